"""Child process for the kill -9 test: `feed` persists events, `process` drains the backlog.

Usage: python -m tests.notifications.crash_child ROOT feed|process

In `process` mode the child reads one line from stdin before each batch and prints
"batch" after it, so the parent decides how many batches may run before its kill: the
kill lands before the backlog is drained on any machine, however fast. At the end of
stdin (or with stdin from /dev/null) the child drains the rest without waiting.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.agent.notification_log.state import StoreMemoryCursor
from companion_memory.agent.notifications.extractor import RulesNotificationExtractor
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import SystemClock
from companion_memory.memory.store import MemoryStore

COUNT = 120
SECRET_EVERY = 7


def events() -> list[NotificationEvent]:
    from datetime import UTC, datetime, timedelta

    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    out = []
    for i in range(COUNT):
        body = (f"your login code is {100000 + i}" if i % SECRET_EVERY == 0
                else f"topic {i}: the plan for project number {i} changed")
        out.append(NotificationEvent.create(
            kind="added", key=f"k{i}", app_id="com.slack", title=f"person{i % 5}", body=body,
            posted_at=t0 + timedelta(seconds=i),
        ))
    return out


async def main(root: Path, mode: str) -> None:
    clock = SystemClock()
    ring = EventRing(capacity=COUNT + 10)
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    context = await NotificationContext.open(root, ring, cursor=StoreMemoryCursor(store),
                                             clock=clock)
    try:
        if mode == "feed":
            for ev in events():
                ring.publish(ev)
            await context.consume(limit=COUNT + 10)
            return
        processor = NotificationProcessor(context, store, RulesNotificationExtractor(),
                                          clock=clock, batch_size=4)
        print("ready", flush=True)
        while True:
            await asyncio.to_thread(sys.stdin.readline)  # the parent's go-ahead (or EOF)
            backlog = (await processor.run_batch()).backlog
            print("batch", flush=True)
            if not backlog:
                break
        print("done", flush=True)
    finally:
        await context.close()
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
