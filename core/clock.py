"""The clock seam: wall time, monotonic time and sleeping come from one object.

Production code receives a `Clock`; tests pass a `FakeClock` and move time with
`advance()`. Nothing patches `time` or `datetime`.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

from companion_memory.core.errors import InvalidInputError


@runtime_checkable
class Clock(Protocol):
    """Where time comes from."""

    def now(self) -> datetime:
        """The current wall time, timezone-aware, in UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Sleep `seconds` of this clock's time; cancellable."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class FakeClock:
    """A clock that only moves when told to.

    `sleep()` parks the caller until `advance()` moves time past its deadline.
    Sleepers wake in deadline order; `advance()` yields to the event loop so the
    woken tasks run before it returns.
    """

    def __init__(self, start: datetime | None = None) -> None:
        if start is None:
            start = datetime(2026, 1, 1, tzinfo=UTC)
        if start.tzinfo is None:
            raise InvalidInputError("FakeClock start must be timezone-aware")
        self._wall = start.astimezone(UTC)
        self._mono = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._counter = itertools.count()

    def now(self) -> datetime:
        return self._wall

    def monotonic(self) -> float:
        return self._mono

    @property
    def sleepers(self) -> int:
        """How many tasks are parked in `sleep()` right now."""
        return sum(1 for _, _, fut in self._sleepers if not fut.done())

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._mono + seconds, next(self._counter), fut))
        await fut

    async def advance(self, seconds: float) -> None:
        """Move time forward by `seconds`, waking every sleeper that is due."""
        if seconds < 0:
            raise InvalidInputError("time cannot go backwards")
        target = self._mono + seconds
        while self._sleepers and self._sleepers[0][0] <= target:
            deadline, _, fut = heapq.heappop(self._sleepers)
            step = deadline - self._mono
            self._mono = deadline
            self._wall += timedelta(seconds=step)
            if not fut.done():
                fut.set_result(None)
            for _ in range(5):
                await asyncio.sleep(0)
        step = target - self._mono
        self._mono = target
        self._wall += timedelta(seconds=step)
        for _ in range(5):
            await asyncio.sleep(0)

    def set_wall(self, when: datetime) -> None:
        """Jump the wall clock (not the monotonic clock), e.g. across midnight."""
        if when.tzinfo is None:
            raise InvalidInputError("wall time must be timezone-aware")
        self._wall = when.astimezone(UTC)
