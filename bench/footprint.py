"""Device runtime footprint: daemon RSS when idle, and command latency over a slow shell.

    .venv/bin/python bench/footprint.py [--runs 7] [--no-model] [--write]

Measures, on this machine:
- the resident memory (VmRSS, VmHWM) of `companion-memory run` once idle, with the
  deterministic provider (no model) and with the small GGUF model loaded
  (`provider.kind = "llama"`, `model_path = "small"`);
- the wall time of `companion-memory --help` and `companion-memory status` against
  a root with a running daemon (median and max of N runs), and, as the baseline
  measured in the same run, a bare `python -c pass` of the same interpreter.
Targets (issue 10): idle RSS without a model under 60 MB; --help and status under
300 ms each. With `--write` the table replaces the section in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = str(ROOT / ".venv" / "bin" / "companion-memory")
PY = str(ROOT / ".venv" / "bin" / "python")
HEADING = "## Device runtime footprint (issue 10)"


def rss_kib(pid: int) -> tuple[int, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields["VmRSS"], fields["VmHWM"]


def start_daemon(root: Path, config: Path | None) -> subprocess.Popen[bytes]:
    cmd = [CLI, "--root", str(root), "run", "--log-level", "warning"]
    if config is not None:
        cmd[1:1] = ["--config", str(config)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    status = root / "daemon" / "status.json"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if status.exists() and b'"running"' in status.read_bytes():
            return proc
        if proc.poll() is not None:
            raise SystemExit(f"daemon exited early: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        time.sleep(0.05)
    raise SystemExit("daemon did not come up")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)


def idle_rss(config_text: str | None) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        config = None
        if config_text is not None:
            config = Path(tmp) / "c.toml"
            config.write_text(config_text)
        proc = start_daemon(root, config)
        try:
            time.sleep(2.0)  # settle: first round and status write done
            rss, hwm = rss_kib(proc.pid)
        finally:
            stop(proc)
        return rss / 1024, hwm / 1024


def wall(cmd: list[str], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-model", action="store_true", help="skip the small-model RSS")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()

    rows: list[tuple[str, str, str]] = []
    rss, hwm = idle_rss(None)
    rows.append(("daemon idle RSS, deterministic provider (no model)",
                 f"{rss:.1f} MB (peak {hwm:.1f} MB)", "< 60 MB"))
    if not args.no_model:
        llama = ('[provider]\nkind = "llama"\n[provider.llama]\nmodel_path = "small"\n'
                 "preload = true\n")
        rss_m, hwm_m = idle_rss(llama)
        rows.append(("daemon idle RSS, small GGUF model loaded (gemma3-270m q4_k_m)",
                     f"{rss_m:.1f} MB (peak {hwm_m:.1f} MB)", "-"))

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        proc = start_daemon(root, None)
        try:
            base_med, base_max = wall([PY, "-c", "pass"], args.runs)
            help_med, help_max = wall([CLI, "--help"], args.runs)
            stat_med, stat_max = wall([CLI, "--root", str(root), "status"], args.runs)
            sj_med, sj_max = wall([CLI, "--root", str(root), "status", "--json"], args.runs)
        finally:
            stop(proc)
    rows.append(("baseline: `python -c pass` (same interpreter)",
                 f"{base_med:.0f} ms median, {base_max:.0f} ms max", "-"))
    rows.append(("`companion-memory --help`", f"{help_med:.0f} ms median, {help_max:.0f} ms max",
                 "< 300 ms"))
    rows.append(("`companion-memory status` (daemon running)",
                 f"{stat_med:.0f} ms median, {stat_max:.0f} ms max", "< 300 ms"))
    rows.append(("`companion-memory status --json` (daemon running)",
                 f"{sj_med:.0f} ms median, {sj_max:.0f} ms max", "< 300 ms"))

    flag = " --no-model" if args.no_model else ""
    cmd = f"`.venv/bin/python bench/footprint.py --runs {args.runs}{flag} --write`"
    lines = [
        HEADING,
        "",
        f"Command: {cmd}. Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. RSS is VmRSS of the `run` process 2 s after it wrote "
        f"its first status; times are wall clock of the whole process, {args.runs} runs each.",
        "",
        "| measurement | result | target |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        path = ROOT / "docs" / "benchmarks.md"
        current = path.read_text() if path.exists() else "# Benchmarks\n"
        if HEADING in current:
            head, _, tail = current.partition(HEADING)
            rest = tail.split("\n## ", 1)
            after = ("\n## " + rest[1]) if len(rest) > 1 else ""
            current = head + text + after
        else:
            current = current.rstrip("\n") + "\n\n" + text
        path.write_text(current)


if __name__ == "__main__":
    sys.exit(main())
