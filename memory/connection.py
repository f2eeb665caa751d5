"""One owned thread that does all SQLite work for a store (aiosqlite's pattern).

Jobs are plain functions taking the `sqlite3.Connection`; `run()` queues one and
awaits its result through a future resolved with `loop.call_soon_threadsafe`.

Cancellation: a job that has not started when its awaiting task is cancelled is
dropped and never runs. A job that has started runs to its end on the thread (a
transaction job commits or rolls back as a whole); its result is discarded. So
cancellation never leaves a half transaction, but the caller cannot tell whether
a started write committed: re-read, or rely on receipts, after cancelling.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from companion_memory.memory.database import BUSY_TIMEOUT_MS, StoreDiskFullError, is_disk_full
from companion_memory.memory.errors import StoreBusyError, StoreClosedError, StoreCorruptError

T = TypeVar("T")


@dataclass(eq=False)
class _Job:
    fn: Callable[[sqlite3.Connection], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    cancelled: threading.Event = field(default_factory=threading.Event)


def _resolve(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


SQLITE_CORRUPT_VTAB = 267
"""SQLITE_CORRUPT | 1 << 8: a virtual table (the FTS5 index) is malformed. Named here
because not every sqlite3-compatible module exports it (pysqlite3 does not)."""


def is_corrupt(exc: BaseException) -> bool:
    """True for SQLite's SQLITE_CORRUPT (any extended code: CORRUPT_VTAB is the index's)
    and SQLITE_NOTADB."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.DatabaseError) and isinstance(code, int) and \
        code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and getattr(
        exc, "sqlite_errorcode", None
    ) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class SqliteThread:
    """Owns one connection and the only thread allowed to use it."""

    def __init__(self, opener: Callable[[], sqlite3.Connection], name: str = "memory-sqlite"):
        self._opener = opener
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._started = False
        self.corruption_seen = False
        """Set when a job failed with a malformed-database error (`StoreCorruptError`)."""

    async def start(self) -> None:
        """Start the thread and open the connection on it; raises what the opener raised."""
        self._started = True
        self._thread.start()
        try:
            await self.run(lambda _conn: None)
        except BaseException:
            await self.stop()
            raise

    def _main(self) -> None:
        opened: BaseException | None = None
        try:
            self._conn = self._opener()
        except BaseException as exc:
            opened = exc
        while True:
            job = self._queue.get()
            if job is None:
                break
            if job.cancelled.is_set():
                continue
            if opened is not None:
                job.loop.call_soon_threadsafe(_resolve, job.future, False, opened)
                continue
            assert self._conn is not None
            try:
                value = job.fn(self._conn)
            except BaseException as exc:
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                if _is_busy(exc):
                    busy = StoreBusyError(BUSY_TIMEOUT_MS)
                    busy.__cause__ = exc
                    exc = busy
                elif is_disk_full(exc):
                    full = StoreDiskFullError("the memory database")
                    full.__cause__ = exc
                    exc = full
                elif is_corrupt(exc):
                    self.corruption_seen = True
                    what = "its search index" if getattr(
                        exc, "sqlite_errorcode", None) == SQLITE_CORRUPT_VTAB \
                        else "its contents or its search index"
                    corrupt = StoreCorruptError(what)
                    corrupt.__cause__ = exc
                    exc = corrupt
                with contextlib.suppress(RuntimeError):  # the loop is gone; nobody waits
                    job.loop.call_soon_threadsafe(_resolve, job.future, False, exc)
            else:
                with contextlib.suppress(RuntimeError):
                    job.loop.call_soon_threadsafe(_resolve, job.future, True, value)
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` on the owned thread and return its result (see module doc)."""
        if self._closed or not self._started:
            raise StoreClosedError()
        loop = asyncio.get_running_loop()
        job = _Job(fn, loop, loop.create_future())
        self._queue.put(job)
        try:
            result: T = await job.future
        except asyncio.CancelledError:
            job.cancelled.set()
            raise
        return result

    async def stop(self) -> None:
        """Finish queued jobs, close the connection and end the thread; idempotent."""
        if self._closed:
            return
        self._closed = True
        if not self._started:
            return
        self._queue.put(None)
        await asyncio.to_thread(self._thread.join)
