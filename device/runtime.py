"""`Runtime`: everything wired from one `Config`, with the hooks an embedding agent calls.

    async with Runtime(config, root="/userdata/agent/memory") as runtime:
        with runtime.foreground():            # the agent runs a task: no model calls now
            hits = await runtime.recall_memory("dentist")
        # leaving the block (however it ends) restarts the idle countdown

One owner per root: `open()` takes the root's lock (`device.lock`, the same
`flock` the daemon and the writing commands take) before anything is written, so a
second `Runtime` on the same root, in this process or another, a daemon, or a
`feed`/`once`/`forget`/`episode` is refused with `RootBusyError` (a `ConflictError`,
code `root_busy`) naming the holder's pid. The lock is released at `close()`, and by
the kernel when the process dies.

`open()` wires, in order: the root (checked, marked, locked), the `EventRing`, the
`MemoryStore`, the `NotificationContext` (memory cursor in the store), the model
provider (none for kind "deterministic": the rules extract), each scenario's extractor
(`device.providers.build_extractors`), the processors (storage maintenance, episodes, notifications,
daily sweep, in that order), the `StorageMonitor` with its cleaners, the
`MemoryWorker` (started only when `start_worker`) and the `RingWriter`, which
persists every published notification within `intake.loss_window_s` whatever the
worker and the foreground are doing (always started). A failure or cancellation
half way unwinds whatever was opened (`AsyncExitStack`); `close()` is idempotent:
it stops the phone link, flushes the ring into the log, then stops the worker,
which cancels an in-flight model call without committing.

While open, the runtime keeps the root's operator files as the daemon always did:
every round worth keeping (and every `run_once`) is appended to `<root>/reports/`,
and `<root>/daemon/status.json` is rewritten at open, after each round, every
`storage.check_interval_s` and at close (`device.status_file`).

The parts are private: a host uses the methods (recall, save, forget, episodes,
publishing events, rounds, gaps, listing and exporting memories, the sweep's
status and reconcile) and reads typed results (`RuntimeStatus`, `SweepStatus`,
`LinkStatus`, ...). Tests and a host running its own phone link session reach the
event ring and the clock through `companion_memory.testing`.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import re
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, cast
from zoneinfo import ZoneInfo

from companion_memory.agent.episodes.processor import EpisodeProcessor
from companion_memory.agent.episodes.recorder import EpisodeRecorder, RecordResult
from companion_memory.agent.model.provider import ModelProvider
from companion_memory.agent.model.settings import ProviderConfigError
from companion_memory.agent.model.unavailable import UnavailableProvider
from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.agent.notification_log.state import StoreMemoryCursor
from companion_memory.agent.notification_log.types import (
    Gap,
    NotificationRecord,
)
from companion_memory.agent.notifications.noise_model import NoiseModel
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.agent.notifications.ring_writer import RingWriter
from companion_memory.agent.processor import Processor
from companion_memory.agent.report import RoundReport
from companion_memory.agent.storage_maintenance import (
    NotificationShardCleaner,
    StorageMaintenanceProcessor,
    TemporaryMemoryCleaner,
    pause_intake_with_level,
)
from companion_memory.agent.sweep.processor import DailySweepProcessor
from companion_memory.agent.worker import RECENT_REPORTS, MemoryWorker, WorkerState
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.errors import InvalidInputError, StateError
from companion_memory.device.config import Config
from companion_memory.device.errors import DeviceError
from companion_memory.device.link import Connect, PhoneLinkService
from companion_memory.device.lock import EMBEDDED, RootLock
from companion_memory.device.providers import Extractors, build_extractors, build_from_config
from companion_memory.device.reports import (
    ReportsCleaner,
    append_report,
    worth_keeping,
    write_status,
)
from companion_memory.device.results import (
    ExportedMemory,
    LinkStatus,
    SweepReconcile,
    SweepStatus,
)
from companion_memory.device.root import prepare_root
from companion_memory.device.status_file import (
    build_snapshot,
    failure_code,
    log_status_failure,
    read_previous,
)
from companion_memory.device.write_stream import WRITE_STREAM_CAPACITY, MemoryWriteStream
from companion_memory.memory.decisions import NotificationDecision
from companion_memory.memory.embedding import Embedder, shared_embedder
from companion_memory.memory.filters import MemoryFilter
from companion_memory.memory.history import MemoryRevision
from companion_memory.memory.records import (
    Authority,
    Kind,
    MemoryNotFoundError,
    MemoryRecord,
    SourceRef,
    Tier,
)
from companion_memory.memory.store import (
    MemoryStore,
    RecallHit,
    RepairResult,
    SaveResult,
    StoreHealth,
)
from companion_memory.memory.write_events import MemoryWrite
from companion_memory.storage.fs import FileSystem, RealFileSystem
from companion_memory.storage.monitor import (
    DiskProbe,
    StatvfsProbe,
    StorageLevel,
    StorageMonitor,
)

log = logging.getLogger("companion_memory.device.runtime")

DEFAULT_TIERS = (Tier.TEMPORARY, Tier.LONG_TERM)


class RuntimeState(enum.Enum):
    UNOPENED = "unopened"
    OPENING = "opening"
    OPEN = "open"
    CLOSED = "closed"


class RuntimeStateError(DeviceError, StateError):
    code = "runtime_state"


_OWNER = re.compile(r"[a-z][a-z0-9 _-]{0,31}")


def build_configured_provider(config: Config, root: Path, clock: Clock,
                              fs: FileSystem | None = None) -> ModelProvider | None:
    """The provider named by `config.provider` (budgeted; explicit fallback only), or None
    for kind "deterministic" (no model: the rules extract).

    Blocking (checks the model file, may load it): call it off the event loop."""

    return build_from_config(config, root=root, clock=clock, fs=fs)


class Runtime:
    """The product in one object: open it, call the hooks, close it.

    `owner` is the name the root's lock and status file record for this runtime
    (`runtime` for a host; the command line passes its command's name). `root_lock` is
    a `RootLock` the caller already holds on this root (the daemon watches its own);
    without one, `open()` takes the lock and `close()` releases it."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        root: str | Path,
        clock: Clock | None = None,
        fs: FileSystem | None = None,
        provider: ModelProvider | None = None,
        probe: DiskProbe | None = None,
        start_worker: bool = True,
        start_link: bool = True,
        link_connect: Connect | None = None,
        owner: str = EMBEDDED,
        root_lock: RootLock | None = None,
    ) -> None:
        if not isinstance(owner, str) or not _OWNER.fullmatch(owner):
            raise InvalidInputError(
                f"owner {owner!r} is not a valid name; use 1 to 32 lower-case letters, "
                "digits, spaces, '-' or '_', starting with a letter (default 'runtime')")
        self._config = config or Config()
        self._root = Path(root).expanduser().absolute()
        if root_lock is not None and (not root_lock.held or root_lock.root != self._root):
            raise InvalidInputError(
                f"root_lock must be a RootLock held on {self._root} (it is "
                f"{'held' if root_lock.held else 'not held'} on {root_lock.root})")
        self._clock: Clock = clock or SystemClock()
        self._fs: FileSystem = fs or RealFileSystem()
        self._provider_override = provider
        self._probe = probe
        self._start_worker = start_worker
        self._start_link = start_link
        self._link_connect = link_connect
        self._embedder: Embedder | None = None
        self._noise_model: NoiseModel | None = None
        self._owner = owner
        self._given_lock = root_lock
        self._link: PhoneLinkService | None = None
        self._provider_problem: str | None = None
        self._state = RuntimeState.UNOPENED
        self._stack: AsyncExitStack | None = None
        self._close_lock = asyncio.Lock()
        self._started_at = ""
        self._status_error: str | None = None
        self._record_lock = asyncio.Lock()
        self._status_lock = asyncio.Lock()
        # the reports already appended (a `run_once` round is also a worker round the
        # watcher sees), by identity
        self._appended: deque[RoundReport] = deque(maxlen=RECENT_REPORTS)
        self._status_begun = False
        self._streams: list[MemoryWriteStream] = []

    # what the host passed in ----------------------------------------------------

    @property
    def config(self) -> Config:
        return self._config

    @property
    def root(self) -> Path:
        return self._root

    @property
    def owner(self) -> str:
        """The name this runtime records in the root's lock and status file."""
        return self._owner

    # lifecycle ---------------------------------------------------------------

    @property
    def state(self) -> RuntimeState:
        return self._state

    async def _build_provider(self) -> ModelProvider | None:
        """The configured provider; a missing or unreadable model file does not stop intake.

        Notifications keep landing durably and stay pending, visible in the round
        report and `status` (`provider_problem`), until the model is fixed."""

        try:
            return await asyncio.to_thread(
                build_configured_provider, self._config, self._root, self._clock, self._fs
            )
        except ProviderConfigError as err:
            if err.key != "model_path":
                raise
            self._provider_problem = err.reason
            log.error("model unavailable (%s key=provider.llama.model_path); intake continues, "
                      "work stays pending", err.code)
            return UnavailableProvider(self._config.provider.kind, err.reason)

    def _provider_name(self) -> str:
        """The model provider's name, or "deterministic" with no model (the rules)."""
        return "deterministic" if self._provider is None else self._provider.name

    async def _take_lock(self, stack: AsyncExitStack) -> None:
        """The root's lock, before anything else is opened (`RootBusyError` when another
        owner holds it). Taken in a thread; a cancellation waits for that thread and
        releases what it took, so a cancelled open never keeps the root."""
        if self._given_lock is not None:
            return
        lock = RootLock(self._root, self._owner)
        taking = asyncio.ensure_future(asyncio.to_thread(lock.acquire))
        try:
            await asyncio.shield(taking)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                await taking
            await asyncio.to_thread(lock.release)
            raise
        stack.push_async_callback(asyncio.to_thread, lock.release)

    async def open(self) -> Runtime:
        """Wire and open every part; on any failure close what was opened and re-raise."""
        if self._state is not RuntimeState.UNOPENED:
            raise RuntimeStateError(f"a runtime can be opened once (it is {self._state.value})")
        cfg = self._config  # checked when it was built: each section validates itself
        self._state = RuntimeState.OPENING
        try:
            async with AsyncExitStack() as stack:
                # a cancelled open waits for the thread: a root marker half written
                # (its temporary file) would make the next owner refuse the root
                preparing = asyncio.ensure_future(asyncio.to_thread(prepare_root, self._root))
                try:
                    await asyncio.shield(preparing)
                except asyncio.CancelledError:
                    with contextlib.suppress(BaseException):
                        await preparing
                    raise
                await self._take_lock(stack)
                self._started_at = datetime.now(UTC).isoformat()
                self._ring = EventRing(
                    cfg.intake.ring_capacity, replay_window=cfg.intake.replay_window
                )
                embedder = await asyncio.to_thread(
                    shared_embedder, cfg.memory.embedder, threads=cfg.memory.embedder_threads,
                    question_threads=cfg.memory.question_threads,
                )
                self._embedder = embedder
                if embedder is not None and cfg.intake.noise_model:
                    self._noise_model = await asyncio.to_thread(NoiseModel, embedder)
                self._store = await MemoryStore.open(
                    self._root / "memory.sqlite3",
                    clock=self._clock, settings=cfg.memory, embedder=embedder,
                )
                stack.push_async_callback(self._store.close)
                self._context = await NotificationContext.open(
                    self._root, self._ring, cursor=StoreMemoryCursor(self._store),
                    fs=self._fs, clock=self._clock,
                )
                stack.push_async_callback(self._context.close)
                provider = self._provider_override
                if provider is None:
                    provider = await self._build_provider()
                self._provider: ModelProvider | None = provider
                if provider is not None:
                    stack.push_async_callback(provider.close)
                    if cfg.provider.llama.preload and "llama" in (cfg.provider.kind,
                                                                   cfg.provider.fallback):
                        await provider.prepare()
                self._extractors: Extractors = build_extractors(cfg, provider)
                # reading the zone's tz data is file I/O: off the loop
                self._zone = await asyncio.to_thread(ZoneInfo, cfg.sweep.zone)
                self._wire_processors()
                self._worker = MemoryWorker(
                    clock=self._clock, settings=cfg.worker,
                    logger=logging.getLogger("companion_memory.agent.worker"),
                )
                for processor in self._processors:
                    self._worker.register(processor)
                # runs after the worker stopped and before the store and log close
                stack.push_async_callback(self._write_final_status)
                if self._start_worker:
                    await self._worker.start()
                    stack.push_async_callback(self._worker.stop)
                self._writer = RingWriter(
                    self._context, self._ring, clock=self._clock, settings=cfg.intake,
                    logger=logging.getLogger("companion_memory.agent.notifications.writer"),
                )
                self._monitor.subscribe(self._resume_writer_on_recovery())
                await self._writer.start()
                stack.push_async_callback(self._writer.stop)
                if self._start_link and cfg.link.kind != "none":
                    self._link = PhoneLinkService(
                        cfg.link, self._ring, zone=cfg.sweep.zone, clock=self._clock,
                        connect=self._link_connect,
                        body_limit_bytes=cfg.intake.body_limit_bytes,
                    )
                    await self._link.start()
                    stack.push_async_callback(self._link.stop)
                if self._start_worker:
                    # an owner that runs rounds knows its storage level (and pauses intake
                    # on a full disk) from the start, as the daemon always did
                    await self._monitor.check()
                self._status_begun = True
                await self._publish_status("running")
                watcher = asyncio.create_task(self._watch_rounds(), name="runtime-status")
                stack.push_async_callback(_cancel_task, watcher)
                self._stack = stack.pop_all()
        except BaseException:
            self._state = RuntimeState.CLOSED
            raise
        self._state = RuntimeState.OPEN
        log.info("runtime open", extra={"fields": {"provider": self._provider_name(),
                                                   "owner": self._owner}})
        return self

    def _resume_writer_on_recovery(self) -> Callable[[StorageLevel, bool], None]:
        """A monitor listener: a level that allows intake again resumes the writer now
        (it would otherwise look again within its loss window)."""
        allowed_before = [self._monitor.intake_allowed]

        def listener(_level: StorageLevel, allowed: bool) -> None:
            if allowed and not allowed_before[0]:
                self._writer.poke()
            allowed_before[0] = allowed

        return listener

    def _wire_processors(self) -> None:
        cfg = self._config
        s = cfg.storage
        self._monitor = StorageMonitor(
            self._probe or StatvfsProbe(str(self._root)), s.thresholds(),
        )
        retention = s.retention()
        self._monitor.register(NotificationShardCleaner(self._context, self._clock, retention))
        self._monitor.register(TemporaryMemoryCleaner(self._store))
        self._storage_step = StorageMaintenanceProcessor(self._monitor, self._store)
        self._monitor.register(ReportsCleaner(self._fs, self._root, self._clock, retention))
        pause_intake_with_level(self._monitor, self._context)
        self._recorder = EpisodeRecorder(
            str(self._root), fs=self._fs, clock=self._clock, settings=cfg.episodes
        )
        episodes = EpisodeProcessor(
            self._recorder, self._store, self._extractors.episodes, clock=self._clock,
            settings=cfg.episodes, retry_budget=cfg.worker.retry_budget,
        )
        notifications = NotificationProcessor(
            self._context, self._store, self._extractors.notifications, clock=self._clock,
            settings=cfg.intake,
            retry_budget=cfg.worker.retry_budget, related_limit=cfg.worker.related_limit,
            zone=self._zone,
            # a memory's copy of its sources' words lives as long as the log keeps them
            source_retention=timedelta(days=s.normal_retention_days),
            noise_model=self._noise_model,
        )
        self._sweep = DailySweepProcessor(
            self._context, self._store, self._extractors.sweep, clock=self._clock,
            settings=cfg.sweep,
        )
        self._processors: list[Processor] = [
            self._storage_step,
            episodes,
            notifications,
            self._sweep,
        ]

    async def close(self) -> None:
        """Stop the worker (cancelling an in-flight call), close provider, context, store."""
        async with self._close_lock:
            stack, self._stack = self._stack, None
            self._state = RuntimeState.CLOSED
            streams, self._streams = self._streams, []
            for stream in streams:
                stream.close()
            if stack is not None:
                await stack.aclose()

    async def __aenter__(self) -> Runtime:
        return await self.open()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def _require_open(self) -> None:
        if self._state is not RuntimeState.OPEN:
            raise RuntimeStateError(f"the runtime is {self._state.value}; open() it first")

    # host hooks ----------------------------------------------------------------

    def foreground_started(self) -> None:
        """The agent began foreground work: cancel the in-flight model call, hold rounds.

        Prefer `with runtime.foreground():`, which cannot leave the worker held."""
        self._require_open()
        self._worker.foreground_started()

    def foreground_ended(self) -> None:
        """Foreground work ended: the idle countdown starts again."""
        self._require_open()
        self._worker.foreground_ended()

    @contextmanager
    def foreground(self) -> Iterator[None]:
        """`with runtime.foreground(): ...`: memory work yields for the block, and the
        worker is released however the block ends (an exception cannot leave it held)."""
        self.foreground_started()
        try:
            yield
        finally:
            if self._state is RuntimeState.OPEN:
                self.foreground_ended()

    @property
    def in_foreground(self) -> bool:
        """Whether foreground work holds memory work now."""
        self._require_open()
        return self._worker.in_foreground

    async def record_episode(self, episode: dict[str, Any]) -> RecordResult:
        """Record a completed agent task (an Episode) and wake the worker."""
        self._require_open()
        result = await self._recorder.record(episode)
        self._worker.wake()
        return result

    async def recall_memory(
        self, query: str, *, limit: int = 10, tiers: Collection[Tier] = DEFAULT_TIERS,
        since: datetime | None = None, until: datetime | None = None,
        app_id: str | None = None, sender: str | None = None,
        kinds: Collection[Kind] | None = None,
    ) -> list[RecallHit]:
        """Temporary and Long-Term memories matching `query`, best first (never waits for
        the worker).

        Filters, applied while ranking (so `limit` hits come back when that many match):
        `since` (inclusive) and `until` (exclusive), timezone-aware datetimes, on when
        the memory's content happened or arrived (`MemoryRecord.occurred_at`: the
        posting time of its newest source notification, else its creation time);
        `app_id` (the source notification's app), `sender` (a message's sender as the
        phone names it; ASCII case ignored), `kinds`. An empty query with a filter lists
        what the filter keeps, newest first, score 0.0:
        `recall_memory("", since=yesterday, until=today)` is "what happened yesterday".
        An empty query without a filter, or one of stopwords only, raises
        `EmptyQueryError`."""
        self._require_open()
        where = MemoryFilter.build(since=since, until=until, app_id=app_id, sender=sender,
                                   kinds=kinds)
        return await self._store.recall(query, limit=limit, tiers=tiers, where=where)

    async def save_memory(
        self, text: str, *, kind: Kind = Kind.FACT,
        sources: Sequence[SourceRef | str] = ("agent:host",),
        tier: Tier = Tier.LONG_TERM,
        authority: Authority = Authority.DIRECT_USER_STATEMENT,
        subject: str | None = None,
    ) -> SaveResult:
        """The agent's explicit save (store-owned duplicate detection)."""
        self._require_open()
        return await self._store.save_memory(
            text, kind=kind, sources=sources, tier=tier, authority=authority, subject=subject
        )

    async def update_memory(
        self, memory_id: str, text: str, *, expected_revision: int
    ) -> MemoryRecord:
        """The owner's correction of a memory's text, with the owner's authority
        (`direct_user_statement`); returns the new revision.

        Compare-and-set: `expected_revision` is the revision the host read, and a memory
        that moved on since raises `RevisionConflictError` (re-read it and retry). A
        text holding a secret is refused as `save_memory` refuses it
        (`SecretInStatementError`), so is one the owner forgot before
        (`RejectedContentError`); a memory that is gone raises `MemoryNotFoundError` or
        `MemoryInactiveError`. None of these errors carries the text."""
        self._require_open()
        return await self._store.update_memory(memory_id, text,
                                               expected_revision=expected_revision)

    async def memory_history(self, memory_id: str) -> list[MemoryRevision]:
        """The memory's revisions, oldest first: revision, op, when, its text from then
        on (None once forgotten), origin and reason. This is content, handed only to the
        host; `MemoryNotFoundError` when the store holds no such memory."""
        self._require_open()
        return await self._store.history(memory_id)

    def memory_writes(self, *, capacity: int = WRITE_STREAM_CAPACITY) -> MemoryWriteStream:
        """Every memory write from now on, as content-free events (`MemoryWrite`: id, op,
        tier, kind, revision, origin scenario, time), each after its transaction
        committed (never one rolled back):

            async for write in runtime.memory_writes():
                ...

        The stream holds at most `capacity` events: a host that reads slowly never
        blocks the worker or any writer; the oldest event is dropped instead and
        `stream.dropped` counts it. It ends at `close()` of the stream or the runtime."""
        self._require_open()
        stream = MemoryWriteStream(capacity, self._store.subscribe_writes)
        self._streams = [s for s in self._streams if not s.closed]
        self._streams.append(stream)
        return stream

    def on_memory_write(self, callback: Callable[[MemoryWrite], None]) -> Callable[[], None]:
        """Call `callback(write)` on the event loop for every committed memory write
        (as `memory_writes`); returns the call that unsubscribes. The callback must
        return at once (it runs on the loop, before the writer resumes); one that
        raises is logged by the exception's type and stays subscribed."""
        self._require_open()
        if not callable(callback):
            raise InvalidInputError("callback must be callable with one MemoryWrite")
        return self._store.subscribe_writes(callback)

    async def forget(self, memory_id: str, reason: str) -> MemoryRecord:
        """Tombstone a memory as the owner's rejection."""
        self._require_open()
        return await self._store.forget(memory_id, reason)

    async def read_memory(self, memory_id: str) -> MemoryRecord:
        """One memory by id, whatever its status (raises `MemoryNotFoundError`)."""
        self._require_open()
        record = await self._store.get(memory_id)
        if record is None:
            raise MemoryNotFoundError(memory_id)
        return record

    async def list_memories(
        self, *, tier: Tier | None = None, include_inactive: bool = False, limit: int = 1000,
        since: datetime | None = None, until: datetime | None = None,
        app_id: str | None = None, sender: str | None = None,
        kinds: Collection[Kind] | None = None, by_time: bool | None = None,
    ) -> list[MemoryRecord]:
        """Memories, newest first: live ones, or every one with `include_inactive`.

        The filters are `recall_memory`'s. Newest first means by when the content
        happened or arrived (`occurred_at`) when `by_time` is true, and by default when
        `since` or `until` is given; otherwise by the last update."""
        self._require_open()
        where = MemoryFilter.build(since=since, until=until, app_id=app_id, sender=sender,
                                   kinds=kinds)
        return await self._store.list_records(
            tier=tier, include_inactive=include_inactive, limit=limit, where=where,
            by_time=by_time,
        )

    async def export(self) -> list[ExportedMemory]:
        """Every live memory and tombstone as JSON-ready dicts (one per JSON Lines line)."""
        self._require_open()
        return cast(list[ExportedMemory], await self._store.export())

    # the phone link ------------------------------------------------------------

    def _event_ring(self) -> EventRing:
        """The ring (for `companion_memory.testing.event_ring`)."""
        self._require_open()
        return self._ring

    def link_status(self) -> LinkStatus:
        """The phone link's state (kind, connected, backing off, last error code,
        sessions); `kind` is `none` when no link runs. Readable after `close()`."""
        if self._link is None:
            return LinkStatus(kind="none")
        return LinkStatus.from_dict(self._link.status())

    def publish(self, event: NotificationEvent) -> int | None:
        """Put one event into the ring as a phone link would (sync, never blocks)."""
        self._require_open()
        limit = self._config.intake.body_limit_bytes
        raw = event.body.encode("utf-8")
        if len(raw) > limit:
            event = replace(
                event, body=raw[:limit].decode("utf-8", errors="ignore"), truncated=True
            )
        return self._ring.publish(event)

    async def feed(self, events: Iterable[NotificationEvent]) -> FeedTotals:
        """Publish `events` and persist them (the writer's flush) in chunks, as BLE would.

        The storage level is checked first, as the worker's storage step does before
        intake: at CRITICAL or EMERGENCY (or when free space cannot be read) no event
        is taken in and the totals say `refused` with the level. Events the log
        already holds are counted as duplicates and never stored again."""
        self._require_open()
        if self._monitor.last_report is None:
            await self._monitor.check()
        totals = FeedTotals()
        if not self._monitor.intake_allowed:
            totals.paused = True
            totals.refused = (
                "unknown (free space cannot be read)" if self._monitor.degraded
                else self._monitor.level.label
            )
            return totals
        intake = self._config.intake
        chunk = max(1, min(intake.consume_limit, intake.ring_capacity))
        pending = 0
        for event in events:
            seq = self.publish(event)
            if seq is None:
                totals.duplicates += 1
            else:
                totals.published += 1
                pending += 1
            if pending >= chunk:
                await self._drain(totals)
                pending = 0
        await self._drain(totals)
        return totals

    async def _drain(self, totals: FeedTotals) -> None:
        # The writer may commit part of the feed on its own (its timer, the ring's
        # high-water mark): count by its totals, which hold every commit.
        before = replace(self._writer.totals)
        result = await self._writer.flush()
        after = self._writer.totals
        totals.persisted += after.persisted - before.persisted
        totals.lost += after.lost - before.lost
        totals.duplicates += after.duplicates - before.duplicates
        if result.paused:
            totals.paused = True

    async def flush_intake(self) -> int:
        """Persist what the ring holds now (the writer does it within the loss window
        anyway); returns how many records this call made durable."""
        self._require_open()
        return (await self._writer.flush()).persisted

    async def notifications_between(
        self, start: datetime, end: datetime, *, limit: int = 1000
    ) -> list[NotificationRecord]:
        """Persisted notifications already processed into memory, received in
        [start, end), oldest first (the source history the sweep reads)."""
        self._require_open()
        return await self._context.read_processed_between(start, end, limit)

    async def notification_decisions(
        self, *, since: datetime | None = None, limit: int = 100
    ) -> list[NotificationDecision]:
        """What became of each processed notification, newest received first, no
        content: `kept` with its memories' ids, or `dropped` with the reason code (the
        triage's, such as `verification_code`; `noise_model`, `removed`, `coalesced`,
        `ignored`, `rejected_by_owner`, `secret_in_statement`, a skipped batch's
        `gap_<code>`, ...; `memory.decisions`). `since`: received at or after this
        (timezone-aware). Kept as long as the notification log keeps its records at
        the Normal storage level."""
        self._require_open()
        where = MemoryFilter.build(since=since)  # the same check of the datetime
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 10_000:
            raise InvalidInputError(f"limit must be an integer from 1 to 10000, not {limit!r}")
        start = None if where.since_us is None else since
        return await self._store.decisions(start, limit)

    async def pending_count(self) -> int:
        """Persisted notifications not yet processed into memory."""
        self._require_open()
        return await self._context.pending_count()

    async def check_store(self, *, full: bool = True) -> StoreHealth:
        """Check the memory database and its search index (SQLite's integrity check,
        FTS5's, the index's structure and that it holds exactly the live memories);
        changes nothing. `full=False` runs SQLite's quicker `quick_check`."""
        self._require_open()
        return await self._store.check(full=full)

    async def repair_store(self) -> RepairResult:
        """Derive the search index again from the memories (no memory is lost) and
        check the result. A round does this by itself after a call found the index
        malformed; this is the explicit form (`doctor --repair`). Raises
        `StoreCorruptError` when SQLite's own integrity check fails."""
        self._require_open()
        return await self._store.repair_index()

    async def gaps(self) -> list[Gap]:
        """Every recorded gap in notification intake, oldest first (no content)."""
        self._require_open()
        return await self._context.gaps()

    # rounds, storage, sweep and status -------------------------------------------

    async def run_once(self, *, max_batches: int = 10_000) -> RoundReport:
        """One idle window now: every processor until no backlog remains (the ring is
        flushed into the log first, so the processors read what is on disk)."""
        self._require_open()
        await self._writer.flush()
        report = await self._worker.run_once(max_batches=max_batches)
        await self._record_round(report, explicit=True)
        return report

    @property
    def rounds(self) -> int:
        """How many rounds (idle windows) have ended since open."""
        self._require_open()
        return self._worker.rounds

    @property
    def last_round(self) -> RoundReport | None:
        """The report of the latest round, None before the first."""
        self._require_open()
        return self._worker.last_report

    async def wait_round(self, after: int | None = None) -> RoundReport | None:
        """Wait until a round ends after the `after`-th one (default: the rounds ended
        so far) and return its report; None when the worker stopped first. Take
        `after = runtime.rounds` before waking the worker so no round is missed."""
        self._require_open()
        seen = self._worker.rounds if after is None else after
        report = await self._worker.wait_rounds(seen + 1)
        return report if self._worker.rounds > seen else None

    async def wait_idle(self) -> RoundReport:
        """Wait until memory work has caught up with everything taken in so far.

        Precisely: the ring is flushed into the log (no intake waits in RAM), then this
        waits for a worker round that began after the flush and ended (a) not cut short
        by the foreground or a stop, (b) with every registered processor run and none
        failed, and (c) with no processor reporting work left (`pending` 0: no
        notification and no episode waiting, no sweep day due); and (d) when that round
        ends the ring again holds nothing unwritten and no notification is pending. The
        report of that round is returned. A round that misses any of these (new
        notifications arrived, a batch failed, the backlog was larger than one round)
        is followed by the next, so this can wait for several rounds: each opens
        `worker.idle_delay_s` after the agent's last foreground activity. It never
        runs a round itself (`run_once` does), and it waits as long as work stays
        undone (a missing model leaves it pending): bound it with `asyncio.timeout`.

        Raises `RuntimeStateError` when the worker is not running (opened with
        `start_worker=False`, or stopped)."""
        self._require_open()
        return await self._wait_idle()

    async def _wait_idle(self) -> RoundReport:
        names = set(self._worker.processors)
        while True:
            if self._worker.state not in (WorkerState.STARTING, WorkerState.RUNNING):
                raise RuntimeStateError(
                    "wait_idle needs the worker running (the runtime was opened with "
                    "start_worker=False, or stop_worker() was called); use run_once()")
            await self._writer.flush()
            # a round already under way (a batch in flight) began before the flush:
            # the one after it is the first that may count
            seen = self._worker.rounds + (1 if self._worker.status()["busy"] else 0)
            report = await self._worker.wait_rounds(seen + 1)
            if self._worker.rounds <= seen or report is None:
                continue  # the worker stopped: the check above says so
            ran = {r.processor for r in report.reports}
            done = (not report.cancelled and not report.errors and ran == names
                    and all(r.pending == 0 for r in report.reports))
            if (done and self._writer.status().get("in_ring", 0) == 0
                    and await self._context.pending_count() == 0):
                return report

    async def stop_worker(self) -> None:
        """Stop memory work now (an in-flight model call is cancelled, nothing from it
        commits); recall, save and intake keep working until `close()`."""
        self._require_open()
        await self._worker.stop()

    async def check_storage(self) -> StorageLevel:
        """Read free space now, apply the level (pausing intake when low), return it."""
        self._require_open()
        await self._monitor.check()
        return self._monitor.level

    @property
    def storage_checked(self) -> bool:
        """Whether free space has been read since open."""
        self._require_open()
        return self._monitor.last_report is not None

    async def sweep_status(self) -> SweepStatus:
        """The daily sweep's zone, switches, last window and pending days."""
        self._require_open()
        return SweepStatus.from_dict(await self._sweep.status())

    async def sweep_reconcile(self) -> SweepReconcile:
        """Accept a change of the sweep's zone (an explicit operator action)."""
        self._require_open()
        return SweepReconcile.from_dict(await self._sweep.reconcile())

    def _store_problem(self) -> str | None:
        if self._storage_step.store_problem is not None:
            return self._storage_step.store_problem
        if self._store.corruption_seen:
            return "the memory database reported a malformed search index; the next " \
                "round rebuilds it from the memories"
        return None

    async def status(self) -> RuntimeStatus:
        """Counts, cursors, level, gaps, budgets and the last round (no content)."""
        self._require_open()
        return await self._status()

    async def _status(self, gaps: list[Gap] | None = None) -> RuntimeStatus:
        if gaps is None:
            gaps = await self._context.gaps()
        return RuntimeStatus(
            root=str(self._root),
            level=self._monitor.level,
            storage=self._monitor.status(),
            link=self.link_status(),
            notifications=await self._context.status(),
            intake=self._writer.status(),
            pending=await self._context.pending_count(),
            gap_count=len(gaps),
            recent_gaps=tuple(gaps[-5:]),
            memory=await self._store.stats(),
            worker=self._worker.status(),
            provider=self._extractors.describe(self._provider),
            provider_problem=self._provider_problem,
            store_problem=self._store_problem(),
            sweep=await self._sweep.status(),
            last_round=self._worker.last_report,
        )

    # the root's operator files ------------------------------------------------------

    @property
    def status_file_error(self) -> str | None:
        """The code of the last failure to write `daemon/status.json` or a round report
        (a full disk, a damaged file), or None when the last write succeeded. Such a
        failure never stops the runtime."""
        return self._status_error

    async def _publish_status(self, state: str, *, stopped_at: str | None = None) -> None:
        """Rewrite `daemon/status.json`; a failure is logged by code and kept in
        `status_file_error`, never raised (intake must not stop for it)."""
        async with self._status_lock:
            await self._write_status(state, stopped_at)

    async def _write_status(self, state: str, stopped_at: str | None) -> None:
        try:
            gaps = await self._context.gaps()
            status = (await self._status(gaps)).to_dict()
            previous: dict[str, Any] = {}
            if self._worker.last_report is None:
                previous = await asyncio.to_thread(read_previous, self._fs, self._root)
            snapshot = build_snapshot(
                status, [g.to_dict() for g in gaps], state=state, owner=self._owner,
                pid=os.getpid(), started_at=self._started_at, previous=previous,
                stopped_at=stopped_at,
            )
            await asyncio.to_thread(write_status, self._fs, self._root, snapshot)
        except Exception as exc:
            log_status_failure(exc)
            self._status_error = failure_code(exc)
        else:
            self._status_error = None

    async def _record_round(self, report: RoundReport, *, explicit: bool) -> None:
        """Append `report` to the day's report file (once; a round of the worker only
        when worth keeping, an explicit `run_once` always) and rewrite the status."""
        async with self._record_lock:
            appended = any(r is report for r in self._appended)
            if not appended and (explicit or worth_keeping(report)):
                try:
                    await asyncio.to_thread(append_report, self._fs, self._root,
                                            report.to_dict(), self._clock.now())
                except Exception as exc:
                    log_status_failure(exc)
                    self._status_error = failure_code(exc)
                    return
                self._appended.append(report)
        await self._publish_status("running")

    async def _watch_rounds(self) -> None:
        """After each round: its report and a fresh status file; between rounds, the
        status every `storage.check_interval_s` (free space, pending and the link move)."""
        # The interval is on the runtime's clock, as every other delay of the product is
        # (a host's or a test's fake clock moves it; the loop's own time would not).
        interval = self._config.storage.check_interval_s
        # Rounds are counted from where the watcher began, not re-read on each turn: a
        # round that ends while the status is being written is still recorded.
        seen = self._worker.rounds
        while True:
            waiter = asyncio.ensure_future(self._worker.wait_rounds(seen + 1))
            timer = asyncio.ensure_future(self._clock.sleep(interval))
            try:
                done, _ = await asyncio.wait({waiter, timer},
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                for future in (waiter, timer):
                    if not future.done():
                        future.cancel()
                await asyncio.gather(waiter, timer, return_exceptions=True)
            ended = self._worker.reports_since(seen)
            if ended:
                seen = ended[-1][0]
                for _, report in ended:
                    await self._record_round(report, explicit=False)
            elif waiter in done:  # the worker stopped: refresh on the interval only
                await self._publish_status("running")
                await self._clock.sleep(interval)
            else:
                await self._publish_status("running")

    async def _write_final_status(self) -> None:
        if self._status_begun:
            await self._publish_status("stopped", stopped_at=datetime.now(UTC).isoformat())


async def _cancel_task(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


@dataclass(frozen=True, slots=True)
class RuntimeStatus:
    """What `Runtime.status()` returns: every figure a host or `status` shows, no content.

    The typed fields are the ones a host acts on (level, pending, gaps, the last
    round, a provider problem); the per-part tables are plain data, as `to_dict()`
    writes them into `daemon/status.json`."""

    root: str
    level: StorageLevel
    storage: Mapping[str, Any]
    link: LinkStatus
    notifications: Mapping[str, Any]
    intake: Mapping[str, Any]
    """What is durable and what still waits in the ring (`in_ring`, `durable_ring_seq`,
    `written_persisted`, `loss_window_s`, ...): the `RingWriter`'s status."""
    pending: int
    gap_count: int
    recent_gaps: tuple[Gap, ...]
    memory: Mapping[str, int]
    worker: Mapping[str, Any]
    provider: Mapping[str, Any]
    provider_problem: str | None
    """Why the configured model cannot be used (work stays pending), or None."""
    store_problem: str | None
    """Why the memory database cannot be used as it is (work stays pending), or None."""
    sweep: Mapping[str, Any]
    last_round: RoundReport | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "storage": dict(self.storage),
            "link": self.link.to_dict(),
            "notifications": dict(self.notifications),
            "intake": dict(self.intake),
            "pending": self.pending,
            "gaps": {"count": self.gap_count, "recent": [g.to_dict() for g in self.recent_gaps]},
            "memory": dict(self.memory),
            "worker": dict(self.worker),
            "provider": {**self.provider,
                         **({"unavailable": self.provider_problem}
                            if self.provider_problem else {})},
            "store_problem": self.store_problem,
            "sweep": dict(self.sweep),
            "last_round": self.last_round.to_dict() if self.last_round is not None else None,
        }


class FeedTotals:
    """What a feed did: events published, replays dropped (by the ring's window or because
    the log already holds them), records persisted, ring losses."""

    __slots__ = ("duplicates", "lost", "paused", "persisted", "published", "refused")

    def __init__(self) -> None:
        self.published = 0
        self.duplicates = 0
        self.persisted = 0
        self.lost = 0
        self.paused = False
        self.refused: str | None = None
        """The storage level that refused the whole feed before it began, if one did."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "published": self.published,
            "duplicates": self.duplicates,
            "persisted": self.persisted,
            "lost": self.lost,
            "paused": self.paused,
            "refused_at_level": self.refused,
        }
