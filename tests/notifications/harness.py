"""A real pipeline on tmp_path: SQLite store, JSONL context, ring, fake clock."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.model.provider import ModelRequest
from companion_memory.agent.model.scripted import ScriptedProvider
from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.agent.notification_log.state import StoreMemoryCursor
from companion_memory.agent.notifications.fallback import notification_fallback
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.memory.store import MemoryStore

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
_keys = itertools.count(1)


def event(
    body: str, *, title: str = "Anna", app: str = "net.whatsapp.WhatsApp", key: str | None = None,
    kind: str = "added", category: str = "social", minutes: int = 0,
) -> NotificationEvent:
    return NotificationEvent.create(
        kind=kind, key=key or f"key-{next(_keys)}", app_id=app, title=title, body=body,
        category=category, posted_at=T0 + timedelta(minutes=minutes),
    )


def fallback_step(request: ModelRequest) -> str:
    """A scripted step that answers like the deterministic provider."""
    import orjson

    return orjson.dumps(notification_fallback(request.payload)).decode()


@dataclass
class Pipeline:
    root: Path
    clock: FakeClock
    ring: EventRing
    store: MemoryStore
    context: NotificationContext
    provider: ScriptedProvider
    engine: MemoryMergeEngine
    processor: NotificationProcessor

    def publish(self, *events: NotificationEvent) -> None:
        for ev in events:
            self.ring.publish(ev)

    async def memories(self) -> list[Any]:
        return await self.store.list_records(include_inactive=True)


@asynccontextmanager
async def pipeline(
    root: Path,
    steps: list[Any] | None = None,
    *,
    token_delay_s: float = 0.0,
    clock: FakeClock | None = None,
    provider: ScriptedProvider | None = None,
    **processor_kwargs: Any,
) -> AsyncIterator[Pipeline]:
    clock = clock or FakeClock(T0)
    ring = EventRing()
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    context = await NotificationContext.open(
        root, ring, cursor=StoreMemoryCursor(store), clock=clock
    )
    if provider is None:
        provider = ScriptedProvider(
            steps if steps is not None else [fallback_step], repeat_last=steps is None,
            token_delay_s=token_delay_s, sleep=clock.sleep,
        )
    engine = MemoryMergeEngine(provider)
    processor = NotificationProcessor(context, store, engine, clock=clock, **processor_kwargs)
    try:
        yield Pipeline(root, clock, ring, store, context, provider, engine, processor)
    finally:
        await context.close()
        await store.close()


def all_prompt_text(provider: ScriptedProvider) -> str:
    import orjson

    parts: list[str] = []
    for request in provider.requests:
        parts.extend(m.content for m in request.messages)
        parts.append(orjson.dumps(request.payload).decode())
    return "\n".join(parts)


Factory = Callable[..., Any]
