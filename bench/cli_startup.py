"""How long a command takes to start: `--help` and `status` (on an empty root), run by
one or more interpreters, alternately, in one run; medians and the ratio to the first.

Each interpreter must import `companion_memory` from the checkout to measure (a venv
bound to it). Compare two checkouts with:

    python bench/cli_startup.py --python /old/.venv/bin/python --python .venv/bin/python
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

PROBE = "import sys; from companion_memory.device.cli import main; sys.exit(main(sys.argv[1:]))"


def once(python: str, args: list[str], cwd: str) -> float:
    """One run's wall time; a run that fails stops the measurement (its time would lie)."""
    started = time.perf_counter()
    proc = subprocess.run([python, "-c", PROBE, *args], capture_output=True, check=False,
                          timeout=120, cwd=cwd)  # not the checkout: `-c` puts cwd first
    if proc.returncode != 0:
        raise SystemExit(f"{python} {' '.join(args)} failed: {proc.stderr.decode()[-400:]}")
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=[],
                        help="an interpreter to measure (repeatable; first is the baseline)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    pythons = args.python or [sys.executable]
    with tempfile.TemporaryDirectory() as root:
        commands = {"--help": ["--help"], "status": ["--root", root, "status", "--json"]}
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            for name, command in commands.items():
                for python in pythons:
                    times.setdefault((name, python), []).append(once(python, command, root))
    for name in commands:
        base = statistics.median(times[(name, pythons[0])])
        for python in pythons:
            median = statistics.median(times[(name, python)])
            print(f"{name:<8} {python:<40} median {median * 1000:7.1f} ms  "
                  f"ratio {median / base:4.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
