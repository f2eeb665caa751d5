"""The notification processor counts a failing batch's attempts in the one work ledger
(`work_attempts`, scenario `notifications`) and gives it up there as poisoned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from companion_memory.agent.model.provider import ModelOutputError
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.work_ledger import Scenario
from tests.notifications.harness import event, pipeline


async def work_rows(store: MemoryStore) -> list[tuple[Any, ...]]:
    """(scenario, key, attempts, last code, poisoned) of every unit, read from the table."""
    return await store.read(lambda conn: conn.execute(
        "SELECT scenario, work_key, attempts, last_code, poisoned_us IS NOT NULL "
        "FROM work_attempts ORDER BY scenario, work_key").fetchall())


def answer(*proposals: dict[str, object]) -> str:
    return orjson.dumps({"proposals": list(proposals)}).decode()


async def test_a_failing_batch_is_counted_then_poisoned_in_the_work_ledger(
        tmp_path: Path) -> None:
    async with pipeline(tmp_path, ["not json", "{]", ModelOutputError("bad")],
                        retry_budget=3) as p:
        p.publish(event("first batch note"), event("second note"))
        await p.processor.run_batch()
        assert await work_rows(p.store) == [
            ("notifications", "1", 1, "invalid_proposal", 0)]
        await p.processor.run_batch()
        assert await work_rows(p.store) == [
            ("notifications", "1", 2, "invalid_proposal", 0)]
        third = await p.processor.run_batch()
        assert third.report.gaps == 1 and p.context.memory_cursor == 2
        # given up: the row stays, poisoned, for a status reader
        assert await work_rows(p.store) == [
            ("notifications", "1", 3, "model_output_invalid", 1)]
        poisoned = await p.store.poisoned_work(Scenario.NOTIFICATIONS)
        assert [(w.key, w.attempts, w.last_code) for w in poisoned] == [
            ("1", 3, "model_output_invalid")]
        assert (await p.store.work_counts())["notifications"] == {"retrying": 0,
                                                                  "poisoned": 1}
        # a later batch that fails once and then commits clears its own count only
        p.provider.push("not json")
        p.provider.push(answer({"c": 3, "a": "add", "t": "Bob moved the match to Sunday"}))
        p.publish(event("match moved to Sunday", title="Bob"))
        await p.processor.run_batch()
        assert ("notifications", "3", 1, "invalid_proposal", 0) in await work_rows(p.store)
        outcome = await p.processor.run_batch()
        assert outcome.report.applied == 1 and p.context.memory_cursor == 3
        assert await work_rows(p.store) == [
            ("notifications", "1", 3, "model_output_invalid", 1)]
