"""Placeholder: the owner of this module replaces it with its tables."""

from __future__ import annotations

from memory.migrations import Migration

MIGRATIONS: list[Migration] = []
