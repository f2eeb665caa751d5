"""Emulated phones for tests and the demo (bumble is imported only when used)."""
