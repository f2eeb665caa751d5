"""Content-free events of the store's memory writes, handed out after the commit.

A write notes what it did (`note`) while its transaction runs on the store's thread;
the store's write wrapper takes the notes after COMMIT (`take`) and drops them on a
rollback (`discard`), so no event ever tells of a write that did not happen. The
intents' executor notes a batch only once every intent of it applied: a batch rolled
back to a savepoint (the sweep's and the episodes' per-candidate savepoints) notes
nothing.

`MemoryWrite` carries ids, codes and times only: never a memory's text, subject or a
notification's content.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from companion_memory.memory.records import Kind, Tier

_PENDING: dict[int, list[MemoryWrite]] = {}
"""Notes of the open write transaction, by connection (the store's thread only)."""


@dataclass(frozen=True, slots=True)
class MemoryWrite:
    """One committed write of a memory (no content).

    `op`: create, update, reinforce, remove, promote, supersede, forget or expire (its
    TTL ended and the cleaner removed it: origin `store`). `origin`:
    which scenario wrote it: `notifications`, `episodes`, `sweep`, `host` (the host's
    save, update or forget), or `store` (another caller of the store)."""

    memory_id: str
    op: str
    tier: Tier
    kind: Kind
    revision: int
    origin: str
    at: datetime


def begin(conn: sqlite3.Connection) -> None:
    _PENDING[id(conn)] = []


def note(conn: sqlite3.Connection, writes: Iterable[MemoryWrite]) -> None:
    """Keep `writes` for the end of the open transaction (nothing when no store wrapper
    opened it: a caller of `apply_intents` on its own connection)."""
    pending = _PENDING.get(id(conn))
    if pending is not None:
        pending.extend(writes)


def take(conn: sqlite3.Connection) -> list[MemoryWrite]:
    return _PENDING.pop(id(conn), [])


def discard(conn: sqlite3.Connection) -> None:
    _PENDING.pop(id(conn), None)
