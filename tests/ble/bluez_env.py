"""A private dbus-daemon with bluezoo (mocked BlueZ) for the `bluez` tests.

bluezoo is GPL-2.0-only: it runs as a separate process and is a test dependency
only. Skips with a reason when dbus-daemon or bluezoo is missing.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

WEARABLE = "00:AA:00:00:00:01"  # hci0
PHONE = "00:BB:00:00:00:02"  # hci1


@dataclass
class BluezEnv:
    address: str
    log: Path
    """bluezoo's stderr (its errors), for diagnosing a failed test."""


def _bluezoo() -> str | None:
    candidate = Path(sys.executable).with_name("bluezoo")
    return str(candidate) if candidate.exists() else shutil.which("bluezoo")


@pytest.fixture
def bluez_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BluezEnv]:
    """A fresh dbus-daemon + bluezoo per test (~0.6 s): bluezoo keeps a device's GATT
    links exported after a disconnect, so state must not leak between tests."""
    daemon = shutil.which("dbus-daemon")
    if daemon is None or shutil.which("dbus-send") is None:
        pytest.skip("dbus-daemon is missing (apt-get install dbus-daemon); .ci/run installs it")
    bluezoo = _bluezoo()
    if bluezoo is None:
        pytest.skip("bluezoo is missing (pip install bluezoo; test-only, GPL)")
    socket = tmp_path / "bus"
    log = tmp_path / "bluezoo.log"
    address = f"unix:path={socket}"
    bus = subprocess.Popen(
        [daemon, "--config-file=/usr/share/dbus-1/session.conf", "--nofork",
         f"--address={address}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    procs = [bus]
    try:
        _wait_until(socket.exists, "dbus-daemon creating its socket", log)
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
        with log.open("wb") as log_file:
            zoo = subprocess.Popen(
                [bluezoo, "--auto-enable", "--scan-interval", "1", "-a", WEARABLE, "-a", PHONE,
                 "-q"],
                env=env, stdout=subprocess.DEVNULL, stderr=log_file,
            )
        procs.append(zoo)
        for adapter in ("hci0", "hci1"):
            _wait_until(functools.partial(_powered, address, adapter),
                        f"bluezoo powering {adapter}", log)
        monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", address)
        yield BluezEnv(address, log)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


SETUP_S = 60.0  # generous: a loaded 2-core machine starts both processes in well under 5 s


def _wait_until(condition: Callable[[], bool], what: str, log: Path) -> None:
    """Poll `condition` until it holds; fail naming `what` (and bluezoo's log) after
    SETUP_S seconds."""
    deadline = time.monotonic() + SETUP_S
    while not condition():
        if time.monotonic() > deadline:
            errors = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise AssertionError(f"{what} did not happen within {SETUP_S:g} s; "
                                 f"bluezoo's log: {errors!r}")
        time.sleep(0.02)


def _powered(address: str, adapter: str) -> bool:
    """Whether bluezoo's `adapter` exists and reports Powered = true (dbus-send comes
    with dbus-daemon: Debian's dbus-daemon package depends on dbus-bin)."""
    probe = subprocess.run(
        ["dbus-send", f"--bus={address}", "--print-reply", "--dest=org.bluez",
         f"/org/bluez/{adapter}", "org.freedesktop.DBus.Properties.Get",
         "string:org.bluez.Adapter1", "string:Powered"],
        capture_output=True, text=True, check=False,
    )
    return probe.returncode == 0 and "boolean true" in probe.stdout


async def close_bleak_manager() -> None:
    """bleak keeps one BlueZ manager (and its D-Bus socket) per loop; close it with the loop."""
    from bleak.backends.bluezdbus.manager import get_global_bluez_manager

    manager = await get_global_bluez_manager()
    bus = getattr(manager, "_bus", None)
    if bus is not None:
        bus.disconnect()
        await bus.wait_for_disconnect()
