"""Shared setup for the sweep tests: a processed-notification source, seeding, dumps."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from companion_memory.agent.notification_log.types import NotificationRecord
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory import Authority, IntentOp, Kind, MemoryIntent, SourceRef, Tier
from companion_memory.memory.store import MemoryStore


@dataclass
class ProcessedLog:
    """The two `NotificationContext` reads the sweep uses, over an in-memory list.

    `processed_upto` plays the memory cursor: records above it are still pending.
    Stored as JSON so a crash-test child process can load the same records.
    """

    records: list[NotificationRecord] = field(default_factory=list)
    processed_upto: int = 0

    def add(self, when: datetime, title: str, body: str, *, app_id: str = "com.example.mail",
            processed: bool = True) -> int:
        context_id = len(self.records) + 1
        event = NotificationEvent.create(
            kind="added", key=f"k{context_id}", app_id=app_id, posted_at=when,
            title=title, body=body,
        )
        self.records.append(NotificationRecord(context_id, "g1", context_id, when, event))
        if processed:
            self.processed_upto = context_id
        return context_id

    async def read_processed_between(
        self, start: datetime, end: datetime, limit: int
    ) -> list[NotificationRecord]:
        out = [r for r in self.records
               if r.context_id <= self.processed_upto and start <= r.received_at < end]
        return out[:limit]

    async def read_pending(self, limit: int = 10) -> list[NotificationRecord]:
        return [r for r in self.records if r.context_id > self.processed_upto][:limit]

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"processed_upto": self.processed_upto,
                                    "records": [r.to_line() for r in self.records]}))

    @classmethod
    def load(cls, path: Path) -> ProcessedLog:
        data = json.loads(path.read_text())
        return cls([NotificationRecord.from_line(x) for x in data["records"]],
                   data["processed_upto"])


async def create_temporary(
    store: MemoryStore, memory_id: str, text: str, *, sources: Sequence[str],
    subject: str | None = None, authority: Authority = Authority.INFERENCE,
) -> None:
    await store.apply([MemoryIntent(
        op=IntentOp.CREATE, memory_id=memory_id, tier=Tier.TEMPORARY, kind=Kind.FACT,
        text=text, authority=authority, sources=tuple(SourceRef.parse(s) for s in sources),
        subject=subject,
    )])


async def reinforce(store: MemoryStore, memory_id: str, source: str) -> None:
    record = await store.get(memory_id)
    assert record is not None
    await store.apply([MemoryIntent(
        op=IntentOp.REINFORCE, memory_id=memory_id, expected_revision=record.revision,
        sources=(SourceRef.parse(source),),
    )])


async def dump(store: MemoryStore) -> list[str]:
    """Every row of every table, as SQL text."""
    return await store.read(lambda conn: list(conn.iterdump()))


async def rows(store: MemoryStore, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    return await store.read(lambda conn: conn.execute(sql, args).fetchall())
