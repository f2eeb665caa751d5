"""`MemoryWriteStream`: a host's bounded, lossy view of the memory writes.

Each stream is one subscriber of the store's write events (`MemoryStore.
subscribe_writes`): events arrive on the event loop after their transaction
committed, and are put in the stream's own queue of `capacity` events without ever
waiting. A subscriber that reads slowly never holds up the worker or any writer:
when its queue is full the OLDEST event is dropped and `dropped` counts it, so the
newest writes are always there to read. A host that must not miss a write reads the
memories again (`list_memories`) when `dropped` grew.

The events carry ids, codes and times only (`MemoryWrite`), never content.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from types import TracebackType

from companion_memory.core.errors import InvalidInputError
from companion_memory.memory.write_events import MemoryWrite

WRITE_STREAM_CAPACITY = 256
"""Events a stream holds by default before it drops its oldest."""
WRITE_STREAM_MAX = 65_536


def check_capacity(capacity: object) -> int:
    if not isinstance(capacity, int) or isinstance(capacity, bool) \
            or not 1 <= capacity <= WRITE_STREAM_MAX:
        raise InvalidInputError(
            f"capacity must be an integer from 1 to {WRITE_STREAM_MAX} (events held before "
            f"the oldest is dropped), not {capacity!r}")
    return capacity


class MemoryWriteStream:
    """`async for write in runtime.memory_writes(): ...`; ends when the runtime closes
    or `close()` is called (what is queued is still read first)."""

    def __init__(
        self, capacity: int,
        subscribe: Callable[[Callable[[MemoryWrite], None]], Callable[[], None]],
    ) -> None:
        """`subscribe(listener)` registers the stream's listener and returns the call
        that unregisters it (`MemoryStore.subscribe_writes`)."""
        self._capacity = check_capacity(capacity)
        self._queue: deque[MemoryWrite] = deque()
        self._ready = asyncio.Event()
        self._closed = False
        self.dropped = 0
        """Events dropped because the queue was full (the oldest went first)."""
        self._unsubscribe: Callable[[], None] | None = subscribe(self._push)

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def closed(self) -> bool:
        return self._closed

    def pending(self) -> int:
        """Events queued and not yet read."""
        return len(self._queue)

    def _push(self, write: MemoryWrite) -> None:
        """The store's listener (on the loop): never waits."""
        if self._closed:
            return
        if len(self._queue) >= self._capacity:
            self._queue.popleft()
            self.dropped += 1
        self._queue.append(write)
        self._ready.set()

    def close(self) -> None:
        """Stop receiving; the reader gets what is queued, then the end."""
        if self._closed:
            return
        self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[MemoryWrite]:
        return self

    async def __anext__(self) -> MemoryWrite:
        while not self._queue:
            if self._closed:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._queue.popleft()

    async def __aenter__(self) -> MemoryWriteStream:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
