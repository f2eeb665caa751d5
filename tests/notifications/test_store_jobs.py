"""The processor asks the store once per batch for related memories with the recent
rejections (`batch_context`) and once for owner-rejection checks, whatever the batch size
(one store-thread job each)."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests.notifications.harness import Pipeline, event, pipeline

WATCHED = ("batch_context", "related_many", "related", "recent_rejections", "rejected_many",
           "is_rejected", "read")


def count_store_calls(p: Pipeline) -> Counter[str]:
    calls: Counter[str] = Counter()
    for name in WATCHED:
        original: Callable[..., Awaitable[Any]] = getattr(p.store, name)

        @functools.wraps(original)
        async def counted(*args: Any, _n: str = name, _f: Any = original, **kw: Any) -> Any:
            calls[_n] += 1
            return await _f(*args, **kw)

        setattr(p.store, name, counted)
    return calls


async def test_one_related_and_one_rejection_job_per_batch(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        calls = count_store_calls(p)
        p.publish(*(event(f"dinner plan {i} at the Greek place on Friday", title=f"P{i}")
                    for i in range(10)))
        first = await p.processor.run_batch()
        assert first.report.batches == 1 and first.report.analyzed == 10
        assert first.report.applied == 10
        assert calls["batch_context"] == 1 and calls["related"] == 0
        assert calls["related_many"] == 0 and calls["recent_rejections"] == 0
        assert calls["rejected_many"] == 1 and calls["is_rejected"] == 0
        # the second batch finds the first batch's memories as related: still one job each
        p.publish(*(event(f"dinner plan {i} moved to Saturday", title=f"P{i}")
                    for i in range(10)))
        second = await p.processor.run_batch()
        assert second.report.batches == 1 and second.report.analyzed == 10
        assert calls["batch_context"] == 2 and calls["related"] == 0
        assert calls["related_many"] == 0 and calls["recent_rejections"] == 0
        assert calls["rejected_many"] == 2 and calls["is_rejected"] == 0
        assert calls["read"] == 2 * 2  # batch context, rejection checks per batch


async def test_a_batch_filtered_entirely_makes_no_lookup(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        calls = count_store_calls(p)
        p.publish(*(event(f"Your verification code is {100000 + i}", title="Bank")
                    for i in range(4)))
        outcome = await p.processor.run_batch()
        assert outcome.report.batches == 1 and outcome.report.analyzed == 0
        assert sum(outcome.report.filtered.values()) == 4
        assert calls["batch_context"] == 0 and calls["rejected_many"] == 0
        assert await p.context.pending_count() == 0
