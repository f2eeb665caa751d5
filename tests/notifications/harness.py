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
from companion_memory.agent.notifications.extractor import (
    ModelNotificationExtractor,
    NotificationExtractor,
    RulesNotificationExtractor,
)
from companion_memory.agent.notifications.fallback import distill
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


def contract_answer(*entries: tuple[str, str, str, int]) -> str:
    """A model's answer in the per-batch contract: (action, statement, kind, related
    number) per item, in the batch's order; "about" is left for `contract_step` to copy
    when it matters (the reader does not check it)."""
    import orjson

    return orjson.dumps({
        str(i): {"about": "", "a": a, "t": t, "k": k, "r": r}
        for i, (a, t, k, r) in enumerate(entries, 1)
    }).decode()


def contract_step(request: ModelRequest) -> str:
    """A scripted model that answers the per-batch contract: every item `new`, with the
    statement the rules write for it (the request's structured copy of the batch)."""
    import orjson

    answer = {}
    for index, item in enumerate(request.payload["items"], 1):
        entry = request.schema["properties"][str(index)]["properties"]
        answer[str(index)] = {"about": entry["about"]["const"], "a": "new",
                              "t": (distill(item) or "")[:120], "k": "event", "r": 0}
    return orjson.dumps(answer).decode()


@dataclass
class Pipeline:
    root: Path
    clock: FakeClock
    ring: EventRing
    store: MemoryStore
    context: NotificationContext
    provider: ScriptedProvider
    """The scripted model (unused when the pipeline extracts with the rules)."""
    extractor: NotificationExtractor
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
    items_per_call: int | None = None,
    repeat_last: bool = False,
    **processor_kwargs: Any,
) -> AsyncIterator[Pipeline]:
    """The rules extract unless `steps` or `provider` is given: then a model (the
    scripted provider) does, `items_per_call` items per call."""
    clock = clock or FakeClock(T0)
    ring = EventRing()
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    context = await NotificationContext.open(
        root, ring, cursor=StoreMemoryCursor(store), clock=clock
    )
    extractor: NotificationExtractor
    if provider is None and steps is None:
        provider = ScriptedProvider([])
        extractor = RulesNotificationExtractor()
    else:
        if provider is None:
            provider = ScriptedProvider(steps or [], token_delay_s=token_delay_s,
                                        sleep=clock.sleep, repeat_last=repeat_last)
        extractor = ModelNotificationExtractor(MemoryMergeEngine(provider),
                                               items_per_call=items_per_call)
    processor = NotificationProcessor(context, store, extractor, clock=clock,
                                      **processor_kwargs)
    try:
        yield Pipeline(root, clock, ring, store, context, provider, extractor, processor)
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
