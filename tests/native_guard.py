"""Run native code that may crash in a child process, so a crash fails tests, not the run.

llama.cpp is native code: a segmentation fault inside it (a buffer type that crashes
on one CPU, a wheel built for another machine) kills the whole pytest process, with
no summary. Before the first `llama`-marked test of a session, `tests/conftest.py`
runs `tests.model.llama_probe` here, which loads the bundled model exactly as the
product does and decodes; if that child dies by a signal, every `llama` test fails
with `crash_message()` instead of running in-process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass

PROBE_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class ChildOutcome:
    argv: tuple[str, ...]
    returncode: int | None  # None: timed out
    stdout: str
    stderr_tail: str

    @property
    def crashed(self) -> bool:
        return self.returncode is not None and self.returncode < 0

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run_child(argv: list[str], *, timeout_s: float = PROBE_TIMEOUT_S) -> ChildOutcome:
    """Run `argv` with this interpreter's environment; never raises for the child's fate."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout_s, env=env, check=False
        )
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        return ChildOutcome(tuple(argv), None, out, "")
    return ChildOutcome(tuple(argv), done.returncode, done.stdout, done.stderr[-2000:])


def signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def crash_message(outcome: ChildOutcome, what: str) -> str:
    """The failure text for tests that depend on `what` having worked in the child."""
    if outcome.returncode is None:
        return f"{what} did not finish within {PROBE_TIMEOUT_S:.0f} s in a child process"
    if outcome.crashed:
        return (
            f"{what} crashed with {signal_name(outcome.returncode)} in a child process "
            f"(native code; see tests/native_guard.py). Tests that need it fail instead of "
            f"running in-process. Child stderr tail:\n{outcome.stderr_tail}"
        )
    return (
        f"{what} exited {outcome.returncode} in a child process. "
        f"Child stderr tail:\n{outcome.stderr_tail}"
    )


def probe_argv(model_path: str) -> list[str]:
    return [sys.executable, "-X", "faulthandler", "-m", "tests.model.llama_probe", model_path]
