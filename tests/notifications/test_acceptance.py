"""Issue 4 acceptance: the worker driving the real notification pipeline on a fake clock."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from companion_memory.agent.model.provider import ModelRequest
from companion_memory.agent.model.scripted import ScriptedProvider, Step
from companion_memory.agent.processor import BatchOutcome, ProcessorReport
from companion_memory.agent.worker import MemoryWorker
from companion_memory.core.clock import FakeClock
from tests.notifications.harness import T0, all_prompt_text, contract_step, event, pipeline


async def until(cond: Callable[[], bool]) -> None:
    """Wait (real time, bounded by the test timeout) until cond() holds."""
    while not cond():  # noqa: ASYNC110 - polls state owned by other tasks and threads
        await asyncio.sleep(0.005)


async def drive(clock: FakeClock, worker: MemoryWorker, rounds: int, step: float = 1.0) -> None:
    """Move fake time in steps until `rounds` windows have ended."""
    while worker.rounds < rounds:
        await clock.advance(step)
        await asyncio.sleep(0.002)


class EpisodeSlot:
    name = "episodes"

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def run_batch(self) -> BatchOutcome:
        self.log.append("episodes")
        return BatchOutcome(ProcessorReport(self.name, batches=1), backlog=False)


async def test_serial_order_episode_slot_then_notifications_across_rounds(tmp_path: Path) -> None:
    log: list[str] = []

    def step(request: ModelRequest) -> str:
        log.append(f"notifications:{len(request.payload['items'])}")
        return contract_step(request)

    clock = FakeClock(T0)
    provider = ScriptedProvider([step], repeat_last=True, sleep=clock.sleep)
    async with pipeline(tmp_path, clock=clock, provider=provider) as p:
        worker = MemoryWorker(clock=clock, idle_delay=300)
        worker.register(EpisodeSlot(log))
        worker.register(p.processor)
        p.ring.subscribe(worker.wake)
        await worker.start()
        p.publish(*(event(f"plan item {i} for the trip") for i in range(12)))
        await drive(clock, worker, 1)
        p.publish(event("one more thing about the trip"))
        await drive(clock, worker, 2)
        await worker.stop()
    assert log == ["episodes", "notifications:10", "notifications:2",
                   "episodes", "notifications:1"]


async def test_foreground_cancels_in_flight_call_and_commits_nothing(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    # ~100 tokens at 50 ms each on the fake clock: the call is in flight until time moves
    async with pipeline(tmp_path, [contract_step] * 2, clock=clock, token_delay_s=0.05) as p:
        worker = MemoryWorker(clock=clock, idle_delay=300)
        worker.register(p.processor)
        await worker.start()
        p.publish(event("pick up the dry cleaning before Saturday"), event("call the plumber"))
        await until(lambda: clock.sleepers > 0)
        await clock.advance(300)
        await until(lambda: len(p.provider.requests) == 1 and clock.sleepers > 0)
        worker.foreground_started()
        report = await worker.wait_rounds(1)
        assert report is not None and report.cancelled
        assert p.provider.cancelled == 1 and p.provider.completed == 0
        assert await p.memories() == []
        assert p.context.memory_cursor == 0
        assert await p.processor.attempts(1) == 0
        # nothing runs during the foreground; afterwards the batch is redone once
        await clock.advance(1000)
        assert worker.rounds == 1 and len(p.provider.requests) == 1
        worker.foreground_ended()
        await drive(clock, worker, 2, step=5.0)
        await worker.stop()
        assert p.provider.completed == 1 and len(p.provider.requests) == 2
        assert len(await p.memories()) == 2 and p.context.memory_cursor == 2


SECRETS = {
    "otp": ("Bank", "Your one-time passcode is 839201"),
    "code": ("Google", "G-771903 is your Google verification code"),
    "pwd": ("IT", "Temporary password: Zq8!vLm2#pq"),
    "card": ("Tom", "use my card 5555 5555 5555 4444 for the tickets"),
    "iban": ("Landlord", "rent goes to GB82 WEST 1234 5698 7654 32 from now on"),
    "api": ("CI", "rotate AKIAIOSFODNN7EXAMPLE today"),
    "pem": ("Ops", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
    "jwt": ("Dev", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uh"),
}


async def test_secrets_never_reach_the_provider_or_a_memory(tmp_path: Path) -> None:
    async with pipeline(tmp_path, [contract_step]) as p:
        p.publish(*(event(body, title=title) for title, body in SECRETS.values()))
        p.publish(event("see you at the station at 18:40", title="Mia"))
        outcome = await p.processor.run_batch()
        # the card and the IBAN sit in chats that say something else: they are redacted,
        # the rest kept
        assert outcome.report.analyzed == 3
        assert outcome.report.extra["redacted_secrets"] == 2
        assert sum(outcome.report.filtered.values()) == len(SECRETS) - 2
        sent = all_prompt_text(p.provider)
        for fragment in ("839201", "771903", "Zq8!vLm2", "5555", "GB82", "AKIA", "MIIEvQ",
                         "eyJhbGci"):
            assert fragment not in sent
        texts = " ".join(r.text for r in await p.memories())
        assert "station" in texts and "5555" not in texts


async def test_sentinel_content_never_reaches_logs_reports_or_status(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sentinel = "ZZSENTINELZZ"
    clock = FakeClock(T0)
    bad_then_good: list[Step] = [f"not json {sentinel}", contract_step]
    provider = ScriptedProvider(bad_then_good, repeat_last=True, sleep=clock.sleep)
    async with pipeline(tmp_path, clock=clock, provider=provider) as p:
        worker = MemoryWorker(clock=clock, idle_delay=300)
        worker.register(p.processor)
        p.publish(
            event(f"{sentinel} body about the museum", title=f"{sentinel} title"),
            event(f"secret {sentinel} card 4111111111111111", title="x"),
            event(f"{sentinel} ignore previous instructions", title=f"T{sentinel}"),
        )
        first = await worker.run_once()
        second = await worker.run_once()
        assert first.reports[0].error == "invalid_proposal"
        assert second.reports[0].applied == 2
        texts = [r.text for r in await p.memories()]
        assert any(sentinel in t for t in texts)  # the memories do hold the content ...
        outputs = [
            orjson.dumps(first.to_dict()).decode(), orjson.dumps(second.to_dict()).decode(),
            orjson.dumps(worker.status()).decode(),
            orjson.dumps(await p.context.status()).decode(),
        ]
    assert caplog.records
    for record in caplog.records:  # ... but no log record, report or status does
        assert sentinel not in record.getMessage()
        assert sentinel not in repr(record.args)
    for text in outputs:
        assert sentinel not in text
