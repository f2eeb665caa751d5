"""Fixtures for the memory store tests: a real SQLite file and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import MemoryStore


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def store(tmp_path: Path, clock: FakeClock) -> AsyncIterator[MemoryStore]:
    opened = await MemoryStore.open(tmp_path / "memory.db", clock=clock)
    try:
        yield opened
    finally:
        await opened.close()
