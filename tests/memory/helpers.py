"""Intent builders shared by the memory tests, and the row an older release wrote."""

from __future__ import annotations

import sqlite3

from companion_memory.memory import (
    Authority,
    IntentOp,
    Kind,
    MemoryIntent,
    SourceKind,
    SourceRef,
    Tier,
)


def create(
    memory_id: str,
    text: str = "Dentist appointment with Dr Lee on Tuesday at 3pm",
    *,
    tier: Tier = Tier.LONG_TERM,
    kind: Kind = Kind.EVENT,
    authority: Authority = Authority.INFERENCE,
    source: str = "1",
    auto: bool = True,
) -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.CREATE, memory_id=memory_id, tier=tier, kind=kind, text=text,
        authority=authority, sources=(SourceRef(SourceKind.CONTEXT, source),), auto=auto,
    )


def update(
    memory_id: str, revision: int, text: str, *, authority: Authority = Authority.INFERENCE
) -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.UPDATE, memory_id=memory_id, expected_revision=revision, text=text,
        authority=authority, sources=(SourceRef(SourceKind.CONTEXT, "2"),),
    )


def reinforce(memory_id: str, revision: int, source: str = "3") -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.REINFORCE, memory_id=memory_id, expected_revision=revision,
        sources=(SourceRef(SourceKind.CONTEXT, source),),
    )


def remove(
    memory_id: str, revision: int, *, authority: Authority = Authority.INFERENCE
) -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.REMOVE, memory_id=memory_id, expected_revision=revision,
        authority=authority, reason="outdated",
    )


def promote(memory_id: str, revision: int, receipt_id: str | None = None) -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.PROMOTE, memory_id=memory_id, expected_revision=revision,
        receipt_id=receipt_id,
    )


def supersede(
    memory_id: str, revision: int, newer: str, *, authority: Authority = Authority.INFERENCE
) -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.SUPERSEDE, memory_id=memory_id, expected_revision=revision,
        superseded_by=newer, authority=authority,
    )


def insert_old_row(
    conn: sqlite3.Connection, memory_id: str, text: str, *, kind: str = "fact",
    norm: str = "x", at_us: int = 0,
) -> None:
    """An active Long-Term memory as an older release's schema holds it, written with plain
    SQL (for the tests that open a store written before a migration)."""
    conn.execute(
        "INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, "
        "sources, created_us, updated_us, status, auto) VALUES (?, 1, 'long_term', ?, ?, ?, "
        "'inference', '[]', ?, ?, 'active', 1)",
        (memory_id, kind, text, norm, at_us, at_us),
    )
