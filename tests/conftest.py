"""Shared fixtures: a blocking call on the event loop fails the test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from blockbuster import BlockBuster, blockbuster_ctx


@pytest.fixture(autouse=True)
def blockbuster() -> Iterator[BlockBuster]:
    """Fail any test whose code blocks the running event loop (file I/O, sleep, ...)."""
    with blockbuster_ctx() as bb:
        yield bb
