"""The Android companion GATT protocol (see docs/android-companion-protocol.md)."""
