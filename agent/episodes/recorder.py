"""The host hook: record an episode as an immutable trace on disk.

`EpisodeRecorder.record(data)` validates the episode (`agent.episodes.model`),
then writes `<root>/episodes/YYYY-MM-DD/<episode_id>.json` (the UTC day of
recording) atomically and durably through the `FileSystem` seam (tmp file,
fsync, rename, directory fsync; new directories fsynced into their parents).
All blocking I/O runs on a worker thread, never on the event loop.

Recording the same id with the same content again is an idempotent no-op
(`duplicate=True`); the same id with different content raises `EpisodeError`
(`duplicate_id_different_content`) and writes nothing. Every rejection writes
nothing. After a new trace is durable the wake callback (the worker's `wake`)
is called so the EpisodeProcessor runs in the next idle window.

Cancellation: cancelling `record()` while the write runs on its thread lets the
write finish or fail whole (the file is either absent or complete) before the
recorder's lock is released; the caller just does not learn which, and recording
again is idempotent.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

import orjson

from companion_memory.agent.episodes.model import (
    DEFAULT_MAX_BYTES,
    EPISODE_ID_RE,
    Episode,
    EpisodeError,
    parse_episode,
)
from companion_memory.agent.episodes.settings import EpisodesSettings
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.settings import check_setting
from companion_memory.storage.atomic import ensure_dir, write_atomic
from companion_memory.storage.fs import FileSystem, RealFileSystem

_DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
EPISODES_DIR = "episodes"


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What `record()` did. `reason` is the ineligibility code when not eligible."""

    episode_id: str
    path: str
    eligible: bool
    reason: str | None
    duplicate: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "path": self.path,
            "eligible": self.eligible,
            "reason": self.reason,
            "duplicate": self.duplicate,
        }


@dataclass(frozen=True, slots=True)
class TraceRef:
    """Where one recorded trace lives: its day directory and id."""

    day: str
    episode_id: str


class EpisodeRecorder:
    """Validates and stores episode traces under `<root>/episodes/`."""

    def __init__(
        self,
        root: str | Path,
        *,
        fs: FileSystem | None = None,
        clock: Clock | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        wake: Callable[[], None] | None = None,
        settings: EpisodesSettings | None = None,
    ) -> None:
        if settings is not None:  # checked when it was built
            max_bytes = settings.max_bytes
        max_bytes = check_setting(EpisodesSettings, "max_bytes", max_bytes)
        self._root = os.fspath(root)
        self._dir = os.path.join(self._root, EPISODES_DIR)
        self._fs: FileSystem = fs or RealFileSystem()
        self._clock: Clock = clock or SystemClock()
        self._max_bytes = max_bytes
        self._wake = wake
        self._lock = asyncio.Lock()

    @property
    def directory(self) -> str:
        return self._dir

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    def set_wake(self, wake: Callable[[], None] | None) -> None:
        """Set the callback run after each newly recorded trace (sync, cheap)."""
        self._wake = wake

    def path_for(self, day: str, episode_id: str) -> str:
        return os.path.join(self._dir, day, f"{episode_id}.json")

    async def record(self, data: dict[str, Any] | bytes | str) -> RecordResult:
        """Validate and durably store one episode; see the module docstring."""
        if isinstance(data, dict):
            try:
                raw = orjson.dumps(data)
            except TypeError:
                raise EpisodeError(
                    "invalid_json", "the episode holds values that are not JSON"
                ) from None
            episode = parse_episode(raw, max_bytes=self._max_bytes)
        elif isinstance(data, bytes | str):
            episode = parse_episode(data, max_bytes=self._max_bytes)
        else:
            raise EpisodeError("not_an_object", "an episode must be a JSON object")
        async with self._lock:
            result = await self._store_locked(episode)
        if not result.duplicate and self._wake is not None:
            self._wake()
        return result

    async def _store_locked(self, episode: Episode) -> RecordResult:
        """`_store` on a thread; a cancelled caller keeps the lock until the thread ends,
        so a second record of the same id cannot run beside a write still in progress."""
        work = asyncio.ensure_future(asyncio.to_thread(self._store, episode))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            while not work.done():
                try:
                    await asyncio.wait({work})
                except asyncio.CancelledError:
                    continue
            if not work.cancelled():
                work.exception()  # retrieved: the caller was cancelled and cannot see it
            raise

    async def record_file(self, path: str | Path) -> RecordResult:
        """Record the episode in the JSON file at `path` (read through the seam)."""
        name = os.fspath(path)

        def _read() -> bytes:
            if not self._fs.exists(name):
                raise EpisodeError("file_not_found", f"episode file {name} does not exist")
            size = self._fs.size(name)
            if size > self._max_bytes:
                raise EpisodeError(
                    "too_large",
                    f"the episode is {size} bytes; at most {self._max_bytes} are allowed",
                )
            return self._fs.read_bytes(name)

        return await self.record(await asyncio.to_thread(_read))

    # -- blocking helpers (run them off the event loop) --------------------------

    def _store(self, episode: Episode) -> RecordResult:
        reason = episode.ineligible_reason()
        existing = self.find(episode.episode_id)
        if existing is not None:
            try:
                stored = self.load_path(existing)
            except EpisodeError:
                stored = None
            if stored is None or stored.digest() != episode.digest():
                raise EpisodeError(
                    "duplicate_id_different_content",
                    f"episode {episode.episode_id} is already recorded with different "
                    "content; traces are immutable, record it under a new episode_id",
                    episode_id=episode.episode_id,
                )
            return RecordResult(episode.episode_id, existing, reason is None, reason, True)
        day = self._clock.now().astimezone(UTC).date().isoformat()
        directory = os.path.join(self._dir, day)
        ensure_dir(self._fs, directory)
        path = self.path_for(day, episode.episode_id)
        write_atomic(self._fs, path, episode.canonical_bytes())
        return RecordResult(episode.episode_id, path, reason is None, reason, False)

    def days(self) -> list[str]:
        """Day directories, oldest first."""
        return [d for d in self._fs.listdir(self._dir) if _DAY_RE.match(d)]

    def find(self, episode_id: str) -> str | None:
        """The path of the recorded trace with this id, or None."""
        if not EPISODE_ID_RE.match(episode_id):
            return None
        for day in reversed(self.days()):
            path = self.path_for(day, episode_id)
            if self._fs.exists(path):
                return path
        return None

    def scan(self, since_day: str | None = None) -> list[TraceRef]:
        """Every recorded trace in day directories >= `since_day` (all when None)."""
        refs: list[TraceRef] = []
        for day in self.days():
            if since_day is not None and day < since_day:
                continue
            for name in self._fs.listdir(os.path.join(self._dir, day)):
                if not name.endswith(".json"):
                    continue  # leftovers such as "<id>.json.tmp" from a crash
                episode_id = name[: -len(".json")]
                if EPISODE_ID_RE.match(episode_id):
                    refs.append(TraceRef(day, episode_id))
        return refs

    def exists(self, path: str) -> bool:
        return self._fs.exists(path)

    def load(self, day: str, episode_id: str) -> Episode:
        return self.load_path(self.path_for(day, episode_id))

    def load_path(self, path: str) -> Episode:
        """Read and re-validate a stored trace (size bound not applied to stored ones)."""
        raw = self._fs.read_bytes(path)
        return parse_episode(raw, max_bytes=max(self._max_bytes, len(raw)))
