"""The daemon: `run` in the foreground, `stop` from another shell, `status` beside it.

`run` takes the root lock (`device.lock`: `fcntl.flock` on the root directory and on
`<root>/daemon.lock`; the kernel drops it if the process dies, so a SIGKILL leaves no
stale lock, and the daemon recreates `daemon.lock` if it is removed) and opens the
`Runtime` with its worker under that lock. The `Runtime` writes
`<root>/daemon/status.json` atomically at start, after every round, every
`storage.check_interval_s` and at exit (a fresh snapshot taken once the worker has
stopped), and appends each round worth keeping to `<root>/reports/`, as it does
embedded in a host. A failure to write either (a full disk) is logged by code and
the daemon keeps running: intake must not stop because its status could not be shown.
SIGTERM or SIGINT stops it gracefully: the worker cancels an in-flight model call
(the batch commits nothing and stays pending), the parts close in reverse order,
the lock is released and the process exits 0. After a SIGKILL the next `run`
recovers from disk (torn-tail repair, memory cursor in the store's transaction).

`status` reads the status file and asks the kernel whether the lock is held, so it
works while the daemon runs and never opens the store. `stop` sends SIGTERM to the
pid recorded in the lock file and waits for the lock to be released.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

from companion_memory.core.errors import UnavailableError
from companion_memory.device.errors import RootBusyError, RootError
from companion_memory.device.invocation import Invocation
from companion_memory.device.lock import EMBEDDED, LockCheck, RootLock, read_holder
from companion_memory.device.logs import fields, get_logger, setup_logging
from companion_memory.device.output import print_json, print_round, say
from companion_memory.device.reports import StatusFileError, read_status
from companion_memory.device.root import prepare_root
from companion_memory.device.runtime import Runtime
from companion_memory.storage.fs import RealFileSystem


class DaemonStopTimeout(UnavailableError):
    """The daemon did not exit in time (exit status 1)."""

    code = "daemon_stop_timeout"


def cmd_run(inv: Invocation) -> int:
    config = inv.config
    if not getattr(inv.args, "log_level", None) and not inv.env.get("COMPANION_MEMORY_LOG_LEVEL"):
        setup_logging(config.log_level)
    root = prepare_root(inv.root)
    with RootLock(root, "run") as lock:
        asyncio.run(serve(config, root, lock=lock))
    return 0


# How often the daemon checks that `daemon.lock` still names the file it holds.
LOCK_CHECK_INTERVAL_S = 2.0


async def serve(config: Any, root: Path, *, ready: asyncio.Event | None = None,
                stop: asyncio.Event | None = None, lock: RootLock | None = None,
                provider: Any = None) -> None:
    """Run until SIGTERM/SIGINT (or `stop` is set); the caller holds the root lock.

    With `lock`, its file is checked every `LOCK_CHECK_INTERVAL_S` and recreated when
    removed; when another process holds the file at that name the daemon stops.
    `provider` replaces the configured model provider (for hosts and tests)."""

    log = get_logger("daemon")
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    watcher: asyncio.Task[None] | None = None
    if lock is not None:
        watcher = asyncio.create_task(_watch_lock(lock, stop), name="lock-watch")
    try:
        async with Runtime(config, root=root, start_worker=True, provider=provider,
                           owner="run", root_lock=lock):
            log.info("daemon started", extra=fields(pid=os.getpid(), root=str(root)))
            if ready is not None:
                ready.set()
            await stop.wait()
            log.info("daemon stopping", extra=fields(pid=os.getpid()))
            # Closing stops the worker first (an in-flight model call is cancelled and its
            # batch commits nothing), then records the figures as they are now.
        log.info("daemon stopped", extra=fields(pid=os.getpid()))
    finally:
        if watcher is not None:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        for sig in installed:
            loop.remove_signal_handler(sig)


async def _watch_lock(lock: RootLock, stop: asyncio.Event) -> None:
    """Keep `daemon.lock` naming the file this daemon holds (so `status` and `stop`
    find it), and stop the daemon if another process holds that name now."""

    log = get_logger("daemon")
    reported = False
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), LOCK_CHECK_INTERVAL_S)
        if stop.is_set():
            return
        found = await asyncio.to_thread(lock.verify)
        if found is LockCheck.RECREATED:
            log.warning("lock file was removed or replaced; recreated it",
                        extra=fields(path=str(lock.path)))
            reported = False
        elif found is LockCheck.UNREPAIRABLE and not reported:
            log.error("lock file cannot be recreated; the root stays locked through its "
                      "directory", extra=fields(path=str(lock.path)))
            reported = True
        elif found is LockCheck.LOST:
            log.error("another process holds the lock file now; stopping",
                      extra=fields(path=str(lock.path)))
            stop.set()
            return


def cmd_stop(inv: Invocation) -> int:
    root = inv.existing_root()
    holder = read_holder(root)
    if holder is None:
        if inv.json:
            print_json({"root": str(root), "stopped": False, "pid": None, "was_running": False})
        else:
            say(f"no daemon is running on {root}")
        return 0
    if not holder.known or holder.pid is None:
        raise RootBusyError(
            f"root {root} is locked by a companion-memory process that cannot be named (its "
            "lock file holds no pid yet, or was removed); nothing was signalled; try again "
            "in a moment", pid=None, command=None,
        )
    if holder.command != "run":
        raise RootBusyError(
            f"root {root} is in use by `companion-memory {holder.command}` (pid {holder.pid}), "
            "not by a daemon; nothing to stop", pid=holder.pid, command=holder.command,
        )
    timeout = float(inv.args.timeout)
    with contextlib.suppress(ProcessLookupError):
        os.kill(holder.pid, signal.SIGTERM)
    deadline = time.monotonic() + max(0.0, timeout)
    while time.monotonic() < deadline:
        if read_holder(root) is None:
            if inv.json:
                print_json({"root": str(root), "stopped": True, "pid": holder.pid,
                            "was_running": True})
            else:
                say(f"stopped the daemon (pid {holder.pid})")
            return 0
        time.sleep(0.05)
    raise DaemonStopTimeout(
        f"the daemon (pid {holder.pid}) did not stop within {timeout:g} s; it may be finishing "
        f"a model call; try again or `kill -KILL {holder.pid}` (it recovers on next start)"
    )


def cmd_status(inv: Invocation) -> int:
    root = inv.existing_root()  # missing, empty or a stranger's: exit 2, as every reader
    problems: list[str] = []
    holder = None
    snapshot = None
    try:
        holder = read_holder(root)
    except RootError as err:  # e.g. daemon.lock is a directory: say so, show the rest
        problems.append(err.reason)
    try:
        snapshot = read_status(RealFileSystem(), root)
    except StatusFileError as err:
        problems.append(err.reason)
    running = holder is not None and holder.command == "run"
    data: dict[str, Any] = {
        "root": str(root),
        "running": running,
        "pid": holder.pid if running and holder else None,
        "busy_with": (holder.command or "an unnamed process") if holder and not running
        else None,
        "busy_pid": holder.pid if holder and not running else None,
        "problems": problems,
    }
    if snapshot:
        snapshot.get("gaps", {}).pop("all", None)
        if holder is None and snapshot.get("state") == "running":
            snapshot["state"] = "killed"  # the lock is free but its owner never wrote "stopped"
        data.update({k: v for k, v in snapshot.items() if k not in ("root", "pid")})
    if inv.json:
        print_json(data)
        return 0
    _print_status(data, snapshot is not None)
    return 0


def _print_status(data: dict[str, Any], have_snapshot: bool) -> None:
    if data["running"]:
        say(f"daemon: running (pid {data['pid']}) on {data['root']}")
    elif data["busy_with"] == EMBEDDED:
        say(f"daemon: not running; root owned by a host's Runtime (pid {data['busy_pid']}) "
            f"({data['root']})")
    elif data["busy_with"]:
        say(f"daemon: not running; root busy with `{data['busy_with']}` ({data['root']})")
    else:
        say(f"daemon: not running ({data['root']})")
    for problem in data["problems"]:
        say(f"problem: {problem}")
    if not have_snapshot:
        say("no status yet: no owner has opened this root")
        return
    say(f"state: {data.get('state')}  updated {data.get('updated_at')}")
    storage = data.get("storage") or {}
    say(f"storage level: {storage.get('level')}  intake allowed: {storage.get('intake_allowed')}"
        f"  free: {_mb(storage.get('free_bytes'))}")
    notes = data.get("notifications") or {}
    cursors = {k: v for k, v in notes.items() if "cursor" in k or k.endswith("_id")}
    say(f"pending: {data.get('pending')}  cursors: "
        + ", ".join(f"{k}={v}" for k, v in cursors.items()))
    intake = data.get("intake") or {}
    if intake:
        say(f"intake: {intake.get('in_ring')} in the ring (not yet durable), "
            f"{intake.get('written_persisted')} written since start, durable ring seq "
            f"{intake.get('durable_ring_seq')}, loss window {intake.get('loss_window_s')} s"
            + ("  (paused by the storage level)" if intake.get("intake_paused") else ""))
    gaps = data.get("gaps") or {}
    say(f"gaps: {gaps.get('count', 0)}")
    memory = data.get("memory") or {}
    if memory:
        say("memory: " + ", ".join(f"{k}={v}" for k, v in memory.items()))
    provider = data.get("provider") or {}
    say("provider: " + ", ".join(f"{k}={v}" for k, v in provider.items()))
    if data.get("store_problem"):
        say(f"store: {data['store_problem']} (see `companion-memory doctor`)")
    last = data.get("last_round")
    if last:

        print_round(last)
    else:
        say("last round: none yet")


def _mb(value: Any) -> str:
    return f"{value / 1048576:.0f} MiB" if isinstance(value, int | float) else "unknown"
