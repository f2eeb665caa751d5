"""BudgetedProvider: persistent daily call/token budget, local days, caps, failures counted."""

from __future__ import annotations

import asyncio
import errno
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from companion_memory.agent.model.budget import BudgetedProvider
from companion_memory.agent.model.provider import (
    BudgetExhaustedError,
    Message,
    ModelOutputError,
    ModelRequest,
)
from companion_memory.agent.model.scripted import ScriptedProvider
from companion_memory.agent.model.settings import ProviderConfigError
from companion_memory.core.clock import FakeClock
from companion_memory.storage.fs import RealFileSystem, StorageIOError

UTC_ZONE = ZoneInfo("UTC")
NEW_YORK = ZoneInfo("America/New_York")  # loaded at import: reading tzdata blocks


def request(max_output_tokens: int = 512) -> ModelRequest:
    return ModelRequest(
        "notifications", (Message("user", "x" * 40),), {}, max_output_tokens=max_output_tokens
    )


def _read(path: str) -> dict[str, object]:
    with open(path, encoding="utf-8") as handle:
        data: dict[str, object] = json.load(handle)
        return data


def budgeted(
    inner: ScriptedProvider, path: str, clock: FakeClock, **kw: object
) -> BudgetedProvider:
    args: dict[str, object] = {"daily_calls": 2, "daily_tokens": 10_000, "zone": UTC_ZONE, **kw}
    return BudgetedProvider(inner, path, clock=clock, **args)  # type: ignore[arg-type]


async def test_call_budget_persists_across_instances_and_resets_next_day(tmp_path: Path) -> None:
    path = str(tmp_path / "model" / "budget-llama.json")
    clock = FakeClock(datetime(2026, 3, 1, 10, tzinfo=UTC))
    inner = ScriptedProvider(['{"a": 1}'], repeat_last=True)
    first = budgeted(inner, path, clock)
    await first.complete(request())
    await first.complete(request())
    with pytest.raises(BudgetExhaustedError, match="2 of 2 calls") as caught:
        await first.complete(request())
    assert "2026-03-01" in caught.value.reason
    assert len(inner.requests) == 2  # the refused call never reached the model
    ledger = await asyncio.to_thread(_read, path)
    assert (ledger["day"], ledger["calls"], ledger["refused"]) == ("2026-03-01", 2, 1)

    second = budgeted(inner, path, clock)  # a restart reads the same ledger
    with pytest.raises(BudgetExhaustedError):
        await second.complete(request())
    assert second.usage()["calls_left"] == 0

    clock.set_wall(datetime(2026, 3, 2, 0, 0, 1, tzinfo=UTC))
    await second.complete(request())
    assert second.usage()["day"] == "2026-03-02" and second.usage()["calls"] == 1


async def test_token_budget_counts_prompt_and_completion(tmp_path: Path) -> None:
    path = str(tmp_path / "b.json")
    clock = FakeClock()
    inner = ScriptedProvider(['{"answer": "' + "y" * 70 + '"}'], repeat_last=True)
    provider = budgeted(inner, path, clock, daily_calls=100, daily_tokens=50)
    response = await provider.complete(request())
    used = response.prompt_tokens + response.completion_tokens
    assert provider.usage()["tokens"] == used == 10 + 21
    await provider.complete(request())
    with pytest.raises(BudgetExhaustedError, match=r"62 of 50 tokens"):
        await provider.complete(request())


async def test_local_day_comes_from_the_zone(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 1, 2, 3, 0, tzinfo=UTC))
    inner = ScriptedProvider(["{}"], repeat_last=True)
    new_york = budgeted(inner, str(tmp_path / "ny.json"), clock, zone=NEW_YORK)
    await new_york.complete(request())
    assert new_york.usage()["day"] == "2026-01-01"


async def test_failures_and_cancellations_are_counted(tmp_path: Path) -> None:
    clock = FakeClock()
    inner = ScriptedProvider(
        [ModelOutputError("broken"), '{"a": 1}'], token_delay_s=1.0, sleep=clock.sleep
    )
    provider = budgeted(inner, str(tmp_path / "b.json"), clock, daily_calls=5)
    with pytest.raises(ModelOutputError):
        await provider.complete(request())
    task = asyncio.create_task(provider.complete(request()))  # "streams" on the fake clock
    for _ in range(100):
        if clock.sleepers:
            break
        await asyncio.sleep(0)
    assert clock.sleepers == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert inner.cancelled == 1
    assert provider.usage()["calls"] == 2
    ledger = await asyncio.to_thread(_read, str(tmp_path / "b.json"))
    assert ledger["calls"] == 2


async def test_caps_lower_the_request(tmp_path: Path) -> None:
    inner = ScriptedProvider(["{}"])
    provider = budgeted(
        inner, str(tmp_path / "b.json"), FakeClock(), max_output_tokens=64, deadline_s=5.0
    )
    await provider.complete(request(max_output_tokens=512))
    sent = inner.requests[0]
    assert (sent.max_output_tokens, sent.deadline_s) == (64, 5.0)


async def test_corrupt_ledger_refuses_with_the_path(tmp_path: Path) -> None:
    path = str(tmp_path / "b.json")
    await asyncio.to_thread(Path(path).write_text, "{not json")
    provider = budgeted(ScriptedProvider(["{}"]), path, FakeClock())
    with pytest.raises(BudgetExhaustedError, match=r"move .*b\.json aside"):
        await provider.complete(request())
    assert await asyncio.to_thread(os.path.exists, path)  # left for the owner to inspect


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"daily_calls": 0}, "daily_calls"),
        ({"daily_tokens": -5}, "daily_tokens"),
        ({"max_output_tokens": 0}, "max_output_tokens"),
        ({"deadline_s": 0}, "deadline_s"),
    ],
)
def test_invalid_limits_name_the_key(tmp_path: Path, kwargs: dict[str, int], key: str) -> None:
    with pytest.raises(ProviderConfigError, match=f"provider setting {key}="):
        budgeted(ScriptedProvider(), str(tmp_path / "b.json"), FakeClock(), **kwargs)


class FullDiskFS(RealFileSystem):
    """Writes fail with ENOSPC once `full` is set."""

    def __init__(self) -> None:
        self.full = False

    def write_file(self, path: str, data: bytes) -> None:
        if self.full:
            raise StorageIOError("write", path, OSError(errno.ENOSPC, "No space left on device"))
        super().write_file(path, data)


async def test_a_full_disk_does_not_turn_an_answer_into_an_error(tmp_path: Path) -> None:
    path = str(tmp_path / "model" / "budget-llama.json")
    clock = FakeClock(datetime(2026, 3, 1, 10, tzinfo=UTC))
    fs = FullDiskFS()
    provider = budgeted(ScriptedProvider(['{"a": 1}'], repeat_last=True), path, clock, fs=fs)
    await provider.complete(request())
    fs.full = True
    response = await provider.complete(request())  # the ledger save fails: the answer stands
    assert response.text == '{"a": 1}'
    assert provider.usage()["calls"] == 2  # still counted, in memory
    with pytest.raises(BudgetExhaustedError):
        await provider.complete(request())
