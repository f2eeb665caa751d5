"""`Runtime` in process: wiring, hooks, lifecycle, unwinding; the README example runs."""

from __future__ import annotations

import asyncio
import errno
import re
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.core.settings import SettingsError
from companion_memory.device import Runtime, RuntimeState, parse_config
from companion_memory.device.errors import ConfigError, RootError
from companion_memory.memory.records import Tier
from companion_memory.storage.fs import RealFileSystem, StorageIOError
from companion_memory.storage.monitor import FakeDiskProbe, StorageLevel
from companion_memory.testing import runtime_clock
from tests.device.helpers import EPISODE

REPO = Path(__file__).resolve().parents[2]
START = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
# Parsed at import: the zone check reads tz files, which is blocking I/O.
QUICK = parse_config({"worker": {"idle_delay_s": 60}})
WINDOW_2S = parse_config({"intake": {"loss_window_s": 2.0}})


def ev(key: str, body: str, app: str = "net.whatsapp.WhatsApp") -> NotificationEvent:
    return NotificationEvent.create(kind="added", key=key, app_id=app, title="Anna", body=body,
                                    posted_at=START)


async def test_hooks_end_to_end(tmp_path: Path) -> None:
    clock = FakeClock(START)
    runtime = Runtime(QUICK, root=tmp_path / "root", clock=clock,
                      probe=FakeDiskProbe(free_bytes=4 << 30))
    states = [runtime.state]
    async with runtime:
        states.append(runtime.state)
        totals = await runtime.feed([
            ev("k1", "Dinner on Saturday at 7 at the Italian place?"),
            ev("k2", "Your verification code is 482913", app="com.examplebank.mobile"),
            ev("k1", "Dinner on Saturday at 7 at the Italian place?"),  # a replay
        ])
        assert (totals.published, totals.duplicates, totals.persisted) == (2, 1, 2)
        # The worker runs by itself once the idle delay has passed on the clock.
        rounds = runtime.rounds
        await clock.advance(61)
        report = await asyncio.wait_for(runtime.wait_round(after=rounds), 30)
        assert report is not None
        assert [p.processor for p in report.reports][:2] == ["storage", "episodes"]
        hits = await runtime.recall_memory("dinner Saturday")
        assert hits and hits[0].record.tier in (Tier.TEMPORARY, Tier.LONG_TERM)
        saved = await runtime.save_memory("I prefer window seats on trains")
        assert saved.created
        again = await runtime.save_memory("I prefer window seats on trains")
        assert not again.created and again.record.memory_id == saved.record.memory_id
        forgotten = await runtime.forget(saved.record.memory_id, reason="not true")
        assert forgotten.status.value == "deleted"
        runtime.foreground_started()
        assert runtime.in_foreground
        runtime.foreground_ended()
        assert not runtime.in_foreground
        status = await runtime.status()
        assert status.pending == 0 and status.level is StorageLevel.NORMAL
        assert status.last_round is report and status.provider_problem is None
        as_dict = status.to_dict()
        assert as_dict["pending"] == 0 and as_dict["storage"]["level"] == "normal"
        assert "482913" not in repr(as_dict) and "Italian" not in repr(as_dict)
    states.append(runtime.state)
    assert states == [RuntimeState.UNOPENED, RuntimeState.OPEN, RuntimeState.CLOSED]
    await runtime.close()  # idempotent


async def test_record_episode_hook_and_device_tier(tmp_path: Path) -> None:
    async with Runtime(root=tmp_path / "root", start_worker=False) as runtime:
        result = await runtime.record_episode(dict(EPISODE))
        assert result.eligible and not result.duplicate
        report = await runtime.run_once()
        assert report.report_for("episodes") is not None
        device = await runtime.recall_memory("Wi-Fi", tiers=(Tier.DEVICE,))
        assert device and all(h.record.tier is Tier.DEVICE for h in device)
        assert not await runtime.recall_memory("Wi-Fi")


BROKEN_MODEL = parse_config({"provider": {"kind": "llama",
                                          "llama": {"model_path": "/nonexistent/none.gguf"}}})


class NoDirectoriesFS(RealFileSystem):
    """Opening the notification log fails (after the store has opened); the threads
    alive at that moment are kept."""

    def __init__(self) -> None:
        self.threads_at_failure: list[threading.Thread] = []

    def makedirs(self, path: str) -> list[str]:
        self.threads_at_failure = threading.enumerate()
        raise StorageIOError("mkdir", path, OSError(errno.EACCES, "denied"))


async def test_half_finished_open_unwinds(tmp_path: Path) -> None:
    threads_before = {t.ident for t in threading.enumerate()}
    fs = NoDirectoriesFS()
    runtime = Runtime(root=tmp_path / "root", fs=fs)
    with pytest.raises(StorageIOError) as info:
        await runtime.open()
    assert "mkdir" in str(info.value)
    assert runtime.state is RuntimeState.CLOSED
    started = [t for t in fs.threads_at_failure
               if t.ident not in threads_before and "asyncio" not in t.name]
    assert started, "the store's SQLite thread should have been started by open()"
    for thread in started:  # the unwinding closed the store, so its thread ends
        await asyncio.to_thread(thread.join, 10)
    assert [t.name for t in started if t.is_alive()] == []
    # The store and log were closed cleanly: a new runtime opens the same root.
    async with Runtime(root=tmp_path / "root", start_worker=False) as again:
        assert await again.pending_count() == 0


async def test_missing_model_keeps_intake_and_leaves_work_pending(tmp_path: Path) -> None:
    async with Runtime(BROKEN_MODEL, root=tmp_path / "root", start_worker=False) as runtime:
        totals = await runtime.feed([
            NotificationEvent.create(kind="added", key="k1", app_id="com.example.chat",
                                     title="Anna", body="Lunch at noon tomorrow?",
                                     posted_at=runtime_clock(runtime).now())
        ])
        assert totals.persisted == 1
        report = await runtime.run_once()
        notes = report.report_for("notifications")
        assert notes is not None and notes.error == "model_unavailable"
        assert (notes.model_calls, notes.applied) == (0, 0)
        assert await runtime.pending_count() == 1
        status = await runtime.status()
        assert status.provider_problem is not None and "none.gguf" in status.provider_problem
        assert status.to_dict()["provider"]["unavailable"] == status.provider_problem


async def test_root_refusals_in_process(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"

    def make_foreign() -> None:
        foreign.mkdir()
        (foreign / "photo.jpg").write_bytes(b"\xff\xd8")

    await asyncio.to_thread(make_foreign)
    with pytest.raises(RootError):
        await Runtime(root=foreign).open()
    with pytest.raises(ConfigError, match=r"intake\.batch_size = 'ten'"):
        await asyncio.to_thread(parse_config, {"intake": {"batch_size": "ten"}})


def test_readme_embedding_example_runs(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks, "README has no python example"
    script = tmp_path / "example.py"
    script.write_text(blocks[0], encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path, check=False,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert "Dinner on Saturday" in proc.stdout
    assert "refused: empty_query" in proc.stdout and "pending 0 gaps 0" in proc.stdout
    assert "second owner refused: root_busy" in proc.stdout
    assert "since yesterday from Anna on net.whatsapp.WhatsApp" in proc.stdout
    assert "write create notifications" in proc.stdout and "write forget host" in proc.stdout


async def test_a_config_built_in_code_is_checked_like_a_file(tmp_path: Path) -> None:
    import dataclasses

    # The settings refuse the value when built, before a runtime can be made with it.
    with pytest.raises(SettingsError, match=r"idle_delay_s = nan"):
        bad = dataclasses.replace(QUICK, worker=dataclasses.replace(QUICK.worker,
                                                                    idle_delay_s=float("nan")))
        Runtime(bad, root=tmp_path / "root", probe=FakeDiskProbe(free_bytes=4 << 30))
    # Refused before anything was written.
    assert not await asyncio.to_thread((tmp_path / "root").exists)


async def test_foreground_block_releases_the_worker_even_on_an_exception(
    tmp_path: Path,
) -> None:
    async with Runtime(QUICK, root=tmp_path / "root",
                       probe=FakeDiskProbe(free_bytes=4 << 30)) as runtime:
        with runtime.foreground():
            assert runtime.in_foreground
            with runtime.foreground():  # nested blocks count
                pass
            assert runtime.in_foreground
        assert not runtime.in_foreground
        with pytest.raises(ZeroDivisionError), runtime.foreground():
            _ = 1 / 0
        assert not runtime.in_foreground


async def test_status_shows_what_is_durable_and_what_waits_in_the_ring(tmp_path: Path) -> None:
    """The writer persists on arrival (its timer on the runtime's clock); the status and
    the daemon's status file say what is on disk and what is still only in RAM; a
    storage level that pauses intake holds the ring, and recovery resumes it."""
    clock = FakeClock(START)
    probe = FakeDiskProbe(free_bytes=4 << 30)
    async with Runtime(WINDOW_2S, root=tmp_path / "root", clock=clock, probe=probe,
                       start_worker=False) as runtime:
        for i in range(3):
            runtime.publish(ev(f"k{i}", f"Parcel {i} arrives today"))
        status = await runtime.status()
        assert status.intake["in_ring"] == 3 and status.intake["written_persisted"] == 0
        assert status.intake["loss_window_s"] == 2.0 and status.pending == 0
        await clock.advance(1.0)  # half the loss window: the writer commits
        for _ in range(3000):
            status = await runtime.status()
            if status.intake["written_persisted"] == 3:
                break
            await asyncio.sleep(0.01)
        assert status.intake["in_ring"] == 0 and status.pending == 3
        assert status.to_dict()["intake"]["durable_ring_seq"] == 3

        probe.free_bytes = 100 << 20  # Critical: intake pauses, the ring holds what comes
        assert await runtime.check_storage() is StorageLevel.CRITICAL
        runtime.publish(ev("k3", "Parcel 3 arrives today"))
        await clock.advance(5.0)
        for _ in range(50):
            await asyncio.sleep(0.01)
        status = await runtime.status()
        assert status.intake["in_ring"] == 1 and status.intake["intake_paused"]
        assert status.pending == 3
        probe.free_bytes = 4 << 30  # recovered: the writer resumes from the source cursor
        assert await runtime.check_storage() is StorageLevel.NORMAL
        for _ in range(3000):
            status = await runtime.status()
            if status.intake["written_persisted"] == 4:
                break
            await asyncio.sleep(0.01)
        assert status.intake["in_ring"] == 0
        assert status.pending == 4 and status.gap_count == 0
        assert "Parcel" not in repr(status.to_dict())
