"""One command's invocation: its parsed arguments and environment, the root and the
configuration they resolve to, and the ways a command opens the root (a `Runtime`,
which takes the root's lock, or the memory store alone beside the root's owner)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from companion_memory.device.config import load_config
from companion_memory.device.errors import UsageError
from companion_memory.device.output import warn
from companion_memory.device.root import (
    check_root,
    prepare_root,
    require_existing_root,
    resolve_root,
)
from companion_memory.device.runtime import Runtime
from companion_memory.memory.embedding import shared_embedder
from companion_memory.memory.store import MemoryStore

T = TypeVar("T")


@dataclass(slots=True)
class Invocation:
    """One parsed command line with its environment; resolves root and config lazily."""

    args: argparse.Namespace
    env: Mapping[str, str]
    json: bool = False
    _config: Any = field(default=None)
    _root: Path | None = None

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = resolve_root(getattr(self.args, "root", None), self.env)
        return self._root

    def config_path(self) -> Path | None:
        """`--config`, else `$COMPANION_MEMORY_CONFIG`, else the root's `config.toml`,
        which is read only from a root that is ours (a stranger's file is never loaded)."""
        given = getattr(self.args, "config", None)
        if given is not None and not given.strip():
            raise UsageError("--config is empty; pass a TOML file (or leave --config out)")
        explicit = given or self.env.get("COMPANION_MEMORY_CONFIG")
        if explicit:
            return Path(explicit)
        if not check_root(self.root):
            return None
        candidate = self.root / "config.toml"
        return candidate if candidate.is_file() else None

    def existing_root(self) -> Path:
        """The root, refused (`RootError`, exit 2) when it is missing, empty or not ours:
        for every command that only reads or changes what a root already holds."""
        return require_existing_root(self.root)

    @property
    def config(self) -> Any:
        if self._config is None:
            overrides: dict[tuple[str, ...], Any] = {}
            level = getattr(self.args, "log_level", None)
            if level:
                overrides[("log_level",)] = level
            self._config = load_config(self.config_path(), env=self.env, overrides=overrides)
        return self._config


def run_locked(inv: Invocation, command: str,
               body: Callable[[Runtime], Awaitable[T]], *, start_worker: bool = False) -> T:
    """Check the root and run `body` in a fresh loop on a `Runtime` that owns it (the
    runtime takes the root's lock: `RootBusyError` while another owner holds it)."""
    config = inv.config
    root = prepare_root(inv.root)
    return asyncio.run(_with_runtime(root, config, body, start_worker, command))


async def _with_runtime(root: Path, config: Any,
                        body: Callable[[Runtime], Awaitable[T]], start_worker: bool,
                        command: str) -> T:
    # A one-shot command never advertises or connects: the daemon owns the phone link.
    runtime = Runtime(config, root=root, start_worker=start_worker, start_link=False,
                      owner=command)
    async with runtime:
        result = await body(runtime)
        if not runtime.storage_checked:  # the status file shows the real level
            await runtime.check_storage()
    # The runtime rewrote `daemon/status.json` as it closed. The command's work is
    # committed by then, so a failure there never fails the command: one line says so.
    if runtime.status_file_error is not None:
        warn(f"companion-memory: {command}: the work is committed, but the status file was "
             f"not updated ({runtime.status_file_error}); `status` shows older figures "
             "until the next command")
    return result


@asynccontextmanager
async def open_store(inv: Invocation) -> AsyncIterator[MemoryStore]:
    """The memory store alone (safe beside a running daemon: SQLite WAL)."""
    config = inv.config
    await asyncio.to_thread(require_existing_root, inv.root)
    root = await asyncio.to_thread(prepare_root, inv.root)
    embedder = await asyncio.to_thread(
        shared_embedder, config.memory.embedder, threads=config.memory.embedder_threads,
        question_threads=config.memory.question_threads,
    )
    store = await MemoryStore.open(root / "memory.sqlite3", settings=config.memory,
                                   embedder=embedder)
    try:
        yield store
    finally:
        await store.close()
