"""`Runtime`: everything wired from one `Config`, with the hooks an embedding agent calls.

    async with Runtime(config, root="/userdata/agent/memory") as runtime:
        runtime.foreground_started()          # the agent starts a task: no model calls now
        hits = await runtime.recall_memory("dentist")
        runtime.foreground_ended()            # the idle countdown restarts

`open()` wires, in order: the root (checked, marked), the `EventRing`, the
`MemoryStore`, the `NotificationContext` (memory cursor in the store), the model
provider (scenario fallbacks registered on the deterministic one), the
`MemoryMergeEngine`, the processors (storage maintenance, episodes, notifications,
daily sweep, in that order), the `StorageMonitor` with its cleaners, and the
`MemoryWorker` (started only when `start_worker`). A failure or cancellation half
way unwinds whatever was opened (`AsyncExitStack`); `close()` is idempotent and
stops the worker first, which cancels an in-flight model call without committing.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any
from zoneinfo import ZoneInfo

from companion_memory.agent.episodes.processor import EpisodeProcessor
from companion_memory.agent.episodes.recorder import EpisodeRecorder, RecordResult
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.model.provider import ModelProvider
from companion_memory.agent.notifications.context import NotificationContext
from companion_memory.agent.notifications.context_state import StoreMemoryCursor
from companion_memory.agent.notifications.context_types import ConsumeResult
from companion_memory.agent.notifications.contract import items_per_call
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.agent.processor import Processor
from companion_memory.agent.report import RoundReport
from companion_memory.agent.storage_maintenance import (
    NotificationShardCleaner,
    StorageMaintenanceProcessor,
    TemporaryMemoryCleaner,
    pause_intake_with_level,
)
from companion_memory.agent.sweep.processor import DailySweepProcessor
from companion_memory.agent.worker import MemoryWorker
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.device.config import Config, check_bounds
from companion_memory.device.errors import DeviceError
from companion_memory.device.link import Connect, PhoneLinkService
from companion_memory.device.reports import ReportsCleaner
from companion_memory.device.root import prepare_root
from companion_memory.memory.records import Authority, Kind, MemoryRecord, SourceRef, Tier
from companion_memory.memory.store import MemoryStore, RecallHit, SaveResult
from companion_memory.storage.fs import FileSystem, RealFileSystem
from companion_memory.storage.monitor import (
    DiskProbe,
    StatvfsProbe,
    StorageMonitor,
)

log = logging.getLogger("companion_memory.device.runtime")

DEFAULT_TIERS = (Tier.TEMPORARY, Tier.LONG_TERM)


class RuntimeState(enum.Enum):
    UNOPENED = "unopened"
    OPENING = "opening"
    OPEN = "open"
    CLOSED = "closed"


class RuntimeStateError(DeviceError):
    code = "runtime_state"


def scenario_fallbacks() -> dict[str, Any]:
    """The deterministic provider's fallback per scenario (the design's no-model path)."""
    from companion_memory.agent.episodes.fallback import episode_fallback
    from companion_memory.agent.notifications.fallback import notification_fallback
    from companion_memory.agent.sweep.fallback import sweep_fallback

    return {
        "notifications": notification_fallback,
        "episodes": episode_fallback,
        "sweep": sweep_fallback,
    }


def build_configured_provider(config: Config, root: Path, clock: Clock,
                              fs: FileSystem | None = None) -> ModelProvider:
    """The provider named by `config.provider` (budgeted; explicit fallback only).

    Blocking (checks the model file, may load it): call it off the event loop."""
    from companion_memory.device.providers import build_from_config

    return build_from_config(config, root=root, clock=clock, fallbacks=scenario_fallbacks(),
                             fs=fs)


async def preload_model(provider: Any) -> bool:
    """Load a lazily loaded model now (walks budget and fallback wrappers)."""
    seen: list[Any] = [provider]
    while seen:
        current = seen.pop(0)
        load = getattr(current, "load", None)
        if callable(load) and hasattr(current, "loaded"):
            await load()
            return True
        seen.extend(getattr(current, name) for name in ("inner", "primary", "fallback")
                    if getattr(current, name, None) is not None)
    return False


class Runtime:
    """The product in one object: open it, call the hooks, close it."""

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
    ) -> None:
        self.config = config or Config()
        self.root = Path(root).expanduser().absolute()
        self.clock: Clock = clock or SystemClock()
        self.fs: FileSystem = fs or RealFileSystem()
        self._provider_override = provider
        self._probe = probe
        self._start_worker = start_worker
        self._start_link = start_link
        self._link_connect = link_connect
        self.link: PhoneLinkService | None = None
        self.provider_problem: str | None = None
        self._state = RuntimeState.UNOPENED
        self._stack: AsyncExitStack | None = None
        self._close_lock = asyncio.Lock()

    # lifecycle ---------------------------------------------------------------

    @property
    def state(self) -> RuntimeState:
        return self._state

    async def _build_provider(self) -> ModelProvider:
        """The configured provider; a missing or unreadable model file does not stop intake.

        Notifications keep landing durably and stay pending, visible in the round
        report and `status` (`provider_problem`), until the model is fixed."""
        from companion_memory.agent.model.settings import ProviderConfigError
        from companion_memory.agent.model.unavailable import UnavailableProvider

        try:
            return await asyncio.to_thread(
                build_configured_provider, self.config, self.root, self.clock, self.fs
            )
        except ProviderConfigError as err:
            if err.key != "model_path":
                raise
            self.provider_problem = err.reason
            log.error("model unavailable (%s key=provider.llama.model_path); intake continues, "
                      "work stays pending", err.code)
            return UnavailableProvider(self.config.provider.kind, err.reason)

    async def open(self) -> Runtime:
        """Wire and open every part; on any failure close what was opened and re-raise."""
        if self._state is not RuntimeState.UNOPENED:
            raise RuntimeStateError(f"a runtime can be opened once (it is {self._state.value})")
        cfg = self.config
        # A Config built in code gets the bounds a TOML file gets (off the loop: the
        # zone check reads tz data).
        await asyncio.to_thread(check_bounds, cfg)
        self._state = RuntimeState.OPENING
        try:
            async with AsyncExitStack() as stack:
                await asyncio.to_thread(prepare_root, self.root)
                self.ring = EventRing(
                    cfg.intake.ring_capacity, replay_window=cfg.intake.replay_window
                )
                self.store = await MemoryStore.open(
                    self.root / "memory.sqlite3",
                    clock=self.clock, settings=cfg.memory,
                )
                stack.push_async_callback(self.store.close)
                self.context = await NotificationContext.open(
                    self.root, self.ring, cursor=StoreMemoryCursor(self.store),
                    fs=self.fs, clock=self.clock,
                )
                stack.push_async_callback(self.context.close)
                provider = self._provider_override
                if provider is None:
                    provider = await self._build_provider()
                self.provider: ModelProvider = provider
                stack.push_async_callback(self.provider.close)
                if cfg.provider.llama.preload and "llama" in (cfg.provider.kind,
                                                               cfg.provider.fallback):
                    await preload_model(self.provider)
                self.engine = MemoryMergeEngine(
                    self.provider,
                    max_output_tokens=cfg.provider.max_output_tokens,
                    deadline_s=cfg.provider.deadline_s,
                )
                # reading the zone's tz data is file I/O: off the loop
                self._zone = await asyncio.to_thread(ZoneInfo, self.config.sweep.zone)
                self._wire_processors()
                self.worker = MemoryWorker(
                    clock=self.clock, settings=cfg.worker,
                    logger=logging.getLogger("companion_memory.agent.worker"),
                )
                for processor in self.processors:
                    self.worker.register(processor)
                stack.callback(self.ring.subscribe(self.worker.wake))
                if self._start_worker:
                    await self.worker.start()
                    stack.push_async_callback(self.worker.stop)
                if self._start_link and cfg.link.kind != "none":
                    self.link = PhoneLinkService(
                        cfg.link, self.ring, zone=cfg.sweep.zone, clock=self.clock,
                        connect=self._link_connect,
                        body_limit_bytes=cfg.intake.body_limit_bytes,
                    )
                    await self.link.start()
                    stack.push_async_callback(self.link.stop)
                self._stack = stack.pop_all()
        except BaseException:
            self._state = RuntimeState.CLOSED
            raise
        self._state = RuntimeState.OPEN
        log.info("runtime open", extra={"fields": {"provider": self.provider.name}})
        return self

    def _wire_processors(self) -> None:
        cfg = self.config
        s = cfg.storage
        self.monitor = StorageMonitor(
            self._probe or StatvfsProbe(str(self.root)), s.thresholds(),
        )
        retention = s.retention()
        self.monitor.register(NotificationShardCleaner(self.context, self.clock, retention))
        self.monitor.register(TemporaryMemoryCleaner(self.store))
        self.monitor.register(ReportsCleaner(self.fs, self.root, self.clock, retention))
        pause_intake_with_level(self.monitor, self.context)
        self.recorder = EpisodeRecorder(
            str(self.root), fs=self.fs, clock=self.clock, settings=cfg.episodes
        )
        self.episodes = EpisodeProcessor(
            self.recorder, self.store, self.engine, clock=self.clock,
            settings=cfg.episodes, retry_budget=cfg.worker.retry_budget,
        )
        self.notifications = NotificationProcessor(
            self.context, self.store, self.engine, clock=self.clock, settings=cfg.intake,
            retry_budget=cfg.worker.retry_budget, related_limit=cfg.worker.related_limit,
            zone=self._zone,
            items_per_call=None if cfg.provider.kind == "deterministic"
            else items_per_call(cfg.provider.max_output_tokens),
        )
        self.sweep = DailySweepProcessor(
            self.context, self.store, self.engine, clock=self.clock, settings=cfg.sweep,
        )
        self.processors: list[Processor] = [
            StorageMaintenanceProcessor(self.monitor),
            self.episodes,
            self.notifications,
            self.sweep,
        ]

    async def close(self) -> None:
        """Stop the worker (cancelling an in-flight call), close provider, context, store."""
        async with self._close_lock:
            stack, self._stack = self._stack, None
            self._state = RuntimeState.CLOSED
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
        """The agent began foreground work: cancel the in-flight model call, hold rounds."""
        self._require_open()
        self.worker.foreground_started()

    def foreground_ended(self) -> None:
        """Foreground work ended: the idle countdown starts again."""
        self._require_open()
        self.worker.foreground_ended()

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

    async def record_episode(self, episode: dict[str, Any]) -> RecordResult:
        """Record a completed agent task (an Episode) and wake the worker."""
        self._require_open()
        result = await self.recorder.record(episode)
        self.worker.wake()
        return result

    async def recall_memory(
        self, query: str, *, limit: int = 10, tiers: Collection[Tier] = DEFAULT_TIERS
    ) -> list[RecallHit]:
        """Temporary and Long-Term memories matching `query` (never waits for the worker)."""
        self._require_open()
        return await self.store.recall(query, limit=limit, tiers=tiers)

    async def save_memory(
        self, text: str, *, kind: Kind = Kind.FACT,
        sources: Sequence[SourceRef | str] = ("agent:host",),
        tier: Tier = Tier.LONG_TERM,
        authority: Authority = Authority.DIRECT_USER_STATEMENT,
        subject: str | None = None,
    ) -> SaveResult:
        """The agent's explicit save (store-owned duplicate detection)."""
        self._require_open()
        return await self.store.save_memory(
            text, kind=kind, sources=sources, tier=tier, authority=authority, subject=subject
        )

    async def forget(self, memory_id: str, reason: str) -> MemoryRecord:
        """Tombstone a memory as the owner's rejection."""
        self._require_open()
        return await self.store.forget(memory_id, reason)

    # the simulated phone link ------------------------------------------------

    def publish(self, event: NotificationEvent) -> int | None:
        """Put one event into the ring as a phone link would (sync, never blocks)."""
        self._require_open()
        limit = self.config.intake.body_limit_bytes
        raw = event.body.encode("utf-8")
        if len(raw) > limit:
            event = replace(
                event, body=raw[:limit].decode("utf-8", errors="ignore"), truncated=True
            )
        return self.ring.publish(event)

    async def feed(self, events: Iterable[NotificationEvent]) -> FeedTotals:
        """Publish `events` and persist them (consume) in ring-sized chunks, as BLE would.

        The storage level is checked first, as the worker's storage step does before
        intake: at CRITICAL or EMERGENCY (or when free space cannot be read) no event
        is taken in and the totals say `refused` with the level. Events the log
        already holds are counted as duplicates and never stored again."""
        self._require_open()
        if self.monitor.last_report is None:
            await self.monitor.check()
        totals = FeedTotals()
        if not self.monitor.intake_allowed:
            totals.paused = True
            totals.refused = (
                "unknown (free space cannot be read)" if self.monitor.degraded
                else self.monitor.level.label
            )
            return totals
        chunk = max(1, min(self.config.intake.consume_limit, self.config.intake.ring_capacity))
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
        while True:
            result: ConsumeResult = await self.context.consume(self.config.intake.consume_limit)
            totals.persisted += result.persisted
            totals.lost += result.lost
            totals.duplicates += result.duplicates
            if result.paused:
                totals.paused = True
                return
            if result.persisted == 0 and result.lost == 0:
                return

    # rounds and status ---------------------------------------------------------

    async def run_once(self, *, max_batches: int = 10_000) -> RoundReport:
        """One idle window now: every processor until no backlog remains."""
        self._require_open()
        return await self.worker.run_once(max_batches=max_batches)

    async def status(self) -> dict[str, Any]:
        """Counts, cursors, level, gaps, budgets and the last round (no content)."""
        self._require_open()
        gaps = await self.context.gaps()
        last = self.worker.last_report
        from companion_memory.agent.model.factory import describe
        return {
            "root": str(self.root),
            "storage": self.monitor.status(),
            "link": self.link.status() if self.link is not None else {"kind": "none"},
            "notifications": await self.context.status(),
            "pending": await self.context.pending_count(),
            "gaps": {"count": len(gaps), "recent": [g.to_dict() for g in gaps[-5:]]},
            "memory": await self.store.stats(),
            "worker": self.worker.status(),
            "provider": {**describe(self.provider),
                         **({"unavailable": self.provider_problem}
                            if self.provider_problem else {})},
            "sweep": await self.sweep.status(),
            "last_round": last.to_dict() if last is not None else None,
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
