"""The decision trail: per notification, kept (with its memories) or dropped (with a
reason code), durable, content-free, pruned with the notification log's retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from companion_memory import InvalidInputError, NotificationDecision, NotificationEvent, Runtime
from companion_memory.core.clock import FakeClock
from companion_memory.device import parse_config
from companion_memory.storage.monitor import FakeDiskProbe

NOW = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
KEYWORDS = parse_config({"memory": {"embedder": "none"}})


def ev(key: str, body: str, *, kind: str = "added", title: str = "Anna",
       app: str = "net.whatsapp.WhatsApp") -> NotificationEvent:
    return NotificationEvent.create(kind=kind, key=key, app_id=app, title=title, body=body,
                                    category="social", posted_at=NOW - timedelta(minutes=5))


def runtime(tmp_path: Path, clock: FakeClock) -> Runtime:
    return Runtime(KEYWORDS, root=tmp_path / "root", clock=clock,
                   probe=FakeDiskProbe(free_bytes=4 << 30), start_worker=False)


async def test_each_notification_is_kept_or_dropped_with_a_reason(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    async with runtime(tmp_path, clock) as rt:
        await rt.feed([
            ev("k1", "Dinner on Saturday at the Italian place?"),
            ev("k2", "Your verification code is 482913", title="Bank",
               app="com.examplebank.mobile"),
            ev("k3", "gone", kind="removed"),
            ev("k1", "Dinner on Saturday at the Greek place instead?", kind="modified"),
        ])
        await rt.run_once()
        found = await rt.notification_decisions()
        assert all(isinstance(d, NotificationDecision) for d in found)
        by_id = {d.context_id: d for d in found}
        assert len(by_id) == 4
        first, code, removed, newer = (by_id[c] for c in sorted(by_id))
        (memory,) = await rt.list_memories()
        assert (newer.outcome, newer.reason, newer.memory_ids) == (
            "kept", None, (memory.memory_id,))
        assert (first.outcome, first.memory_ids) == ("kept", (memory.memory_id,))
        assert (code.outcome, code.reason) == ("dropped", "verification_code")
        assert (removed.outcome, removed.reason) == ("dropped", "removed")
        text = repr(found)
        for word in ("Dinner", "Italian", "Greek", "482913", "Anna", "Bank", "gone"):
            assert word not in text
        assert await rt.notification_decisions(limit=1) == [found[0]]
        assert await rt.notification_decisions(since=NOW + timedelta(seconds=1)) == []
        with pytest.raises(InvalidInputError, match="since"):
            await rt.notification_decisions(since=datetime(2026, 3, 12))
        with pytest.raises(InvalidInputError, match="limit"):
            await rt.notification_decisions(limit=0)
    # durable: a later runtime on the root reads them back
    async with runtime(tmp_path, clock) as again:
        assert len(await again.notification_decisions()) == 4
        # older than the log's retention: pruned when the next decisions are written
        await clock.advance(timedelta(days=15).total_seconds())
        await again.feed([ev("k9", "Lunch on Monday at noon with the team?")])
        await again.run_once()
        assert [d.outcome for d in await again.notification_decisions()] == ["kept"]
