"""The episode processor counts an episode's failed attempts, and its backoff, in the
one work ledger (`work_attempts`, scenario `episodes`); past the budget the work row
is poisoned in the same transaction that ignores the episode."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from companion_memory.memory.episode_ledger import EpisodeLedger, EpisodeState
from companion_memory.memory.rows import to_us
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.work_ledger import Scenario
from companion_memory.testing import ScriptedProvider
from tests.episodes.helpers import episode, harness


async def work_rows(store: MemoryStore) -> list[tuple[Any, ...]]:
    """(scenario, key, attempts, last code, next attempt, poisoned) from the table."""
    return await store.read(lambda conn: conn.execute(
        "SELECT scenario, work_key, attempts, last_code, next_attempt_us, "
        "poisoned_us IS NOT NULL FROM work_attempts ORDER BY scenario, work_key").fetchall())


async def test_an_episode_retries_then_is_poisoned_in_the_work_ledger(tmp_path: Path) -> None:
    backoff = timedelta(minutes=5)
    provider = ScriptedProvider(["this is not json"], repeat_last=True)
    async with harness(tmp_path, provider, retry_budget=2, retry_backoff=backoff) as h:
        await h.recorder.record(episode())
        await h.processor.run_batch()
        due = to_us(h.clock.now() + backoff)
        assert await work_rows(h.store) == [
            ("episodes", "ep-1", 1, "model_output_invalid_json", due, 0)]
        row = await h.processor.ledger_row("ep-1")
        assert row is not None and (row.state, row.attempts) == (EpisodeState.RETRY, 1)
        await h.processor.run_batch()  # backing off: not taken again
        assert len(provider.requests) == 1
        await h.clock.advance(backoff.total_seconds())
        await h.processor.run_batch()
        assert len(provider.requests) == 2
        assert await work_rows(h.store) == [
            ("episodes", "ep-1", 2, "model_output_invalid_json", None, 1)]
        row = await h.processor.ledger_row("ep-1")
        assert row is not None and row.state is EpisodeState.IGNORED
        assert row.reason == "retry_budget_exhausted:model_output_invalid_json"
        assert row.attempts == 2
        poisoned = await h.store.poisoned_work(Scenario.EPISODES)
        assert [(w.key, w.attempts) for w in poisoned] == [("ep-1", 2)]


async def test_an_interrupted_batch_is_charged_in_the_work_ledger(tmp_path: Path) -> None:
    async with harness(tmp_path, retry_budget=2) as h:
        # an earlier process marked the episode processing and died, twice
        ledger = EpisodeLedger(h.store)
        await ledger.register([("2026-01-01", "ep-1")], h.clock.now())
        for charged in (1, 2):
            await ledger.mark_processing(["ep-1"], "dead-batch", {}, h.clock.now())
            await ledger.recover(h.clock.now(), 2)
            assert await work_rows(h.store) == [
                ("episodes", "ep-1", charged, "interrupted", None, int(charged == 2))]
        row = await ledger.get("ep-1")
        assert row is not None and row.state is EpisodeState.IGNORED
        assert row.reason == "retry_budget_exhausted:interrupted"
