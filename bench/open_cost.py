"""Open cost of NotificationContext against retention, old code beside new, same run.

Builds roots of 1k, 10k and 100k retained records (1,000 records a day, ~470 B a
record, the older half processed) and times, in worker processes (one for the
code of `main`, one for this checkout, taking turns per size on the same disk):

- open: `await NotificationContext.open(...)` then close, median of `--runs`.
  For the new code "open" is the open after a clean checkpoint (every open
  after the first); its first open on an old root (a whole scan that also
  writes the checkpoint and the fingerprint sidecars, once) is shown apart.
- open + first consume of a re-sent event: open, publish one event already in
  the log, `consume()` (refused as a duplicate; nothing is written). For the new
  code this is where the fingerprint sidecars are first read.
- gap append: `record_gap` on a root whose state already holds 10 or 10,000 gaps,
  median of `--gap-runs` appends (the new code's first open has moved them to
  the gap record). The new code also rewrites its gap record once every 10,000
  appends (to fold the oldest): `--amortized` times 10,000 appends including
  that rewrite.

The old code is `git archive <ref>` of this repository (default `main`)
unpacked in a temporary directory, so both run from the same script:

    .venv/bin/python bench/open_cost.py --runs 7
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "ble", "storage", "memory", "agent", "device")
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PER_DAY = 1000


# -- worker (runs against one copy of the code) --------------------------------------


def _event(i: int) -> Any:
    from companion_memory.ble.events import EventKind, NotificationEvent

    body = "Your parcel from the shop is out for delivery and should arrive between 2 and 4 pm. "
    return NotificationEvent.create(
        kind=EventKind.ADDED, key=f"key-{i}", app_id="com.example.delivery",
        title=f"Parcel update {i}", body=(body * 3)[: 180 + i % 40], category="logistics",
        posted_at=T0,
    )


def build_root(root: Path, records: int, gaps: int) -> None:
    """Shards written directly in the log's format (as `consume` writes them)."""
    from companion_memory.ble.events import format_rfc3339
    from companion_memory.storage.jsonl_log import encode_line, shard_name

    events = root / "notifications" / "events"
    events.mkdir(parents=True)
    for start in range(0, records, PER_DAY):
        day = T0 + timedelta(days=start // PER_DAY)
        received = format_rfc3339(day)
        data = b"".join(
            encode_line({"context_id": i, "ring_generation": "gen-1", "ring_seq": i,
                         "received_at": received, **_event(i).to_dict()})
            for i in range(start + 1, min(records, start + PER_DAY) + 1)
        )
        (events / shard_name(day.date())).write_bytes(data)
    state = {
        "version": 1, "memory_cursor": records // 2, "id_high_water": records,
        "gaps": [
            {"kind": "poison_batch", "first": i, "last": i, "count": 1,
             "reason": "retry_budget_exhausted", "at": "2026-03-01T12:00:00Z", "ref": None}
            for i in range(1, gaps + 1)
        ],
    }
    (root / "notifications" / "state.json").write_text(json.dumps(state))
    os.sync()


async def _open(root: Path, refeed: bool) -> float:
    from companion_memory.agent.notification_log import NotificationContext
    from companion_memory.ble.ring import EventRing
    from companion_memory.core.clock import FakeClock

    ring = EventRing(replay_window=0)
    t0 = time.perf_counter()
    ctx = await NotificationContext.open(root, ring, clock=FakeClock(T0))
    if refeed:
        ring.publish(_event(1))
        result = await ctx.consume()
        if result.persisted:
            raise RuntimeError("a re-sent event was stored again")
    elapsed = time.perf_counter() - t0
    await ctx.close()
    return elapsed


async def _gaps(root: Path, runs: int, amortized: bool) -> dict[str, Any]:
    from companion_memory.agent.notification_log import NotificationContext
    from companion_memory.ble.ring import EventRing
    from companion_memory.core.clock import FakeClock

    ctx = await NotificationContext.open(root, EventRing(), clock=FakeClock(T0))
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        await ctx.record_gap("processor_gap", 10**9 + i, 10**9 + i, 1, "bench")
        times.append(time.perf_counter() - t0)
    out: dict[str, Any] = {"append": times}
    if amortized:
        t0 = time.perf_counter()
        for i in range(10_000):
            await ctx.record_gap("processor_gap", 2 * 10**9 + i, 2 * 10**9 + i, 1, "bench")
        out["amortized"] = (time.perf_counter() - t0) / 10_000
    await ctx.close()
    return out


def worker(args: argparse.Namespace) -> None:
    sys.path.insert(0, args.code)
    root = Path(args.root)
    result: dict[str, Any]
    if args.job == "build":
        build_root(root, args.records, args.gaps)
        result = {}
    elif args.job == "open":
        first = asyncio.run(_open(root, False))  # the new code writes its checkpoint here
        result = {"first": first,
                  "open": [asyncio.run(_open(root, False)) for _ in range(args.runs)],
                  "refeed": [asyncio.run(_open(root, True)) for _ in range(args.runs)]}
    else:
        asyncio.run(_open(root, False))  # migrates the gaps (new code), once
        result = asyncio.run(_gaps(root, args.runs, args.amortized))
    print(json.dumps(result))


# -- driver --------------------------------------------------------------------------


def checkout(ref: str, into: Path) -> Path:
    """`git archive ref` unpacked under `into`, importable as companion_memory."""
    archive = into / "old.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(REPO), "archive", ref], stdout=out, check=True)
    code = into / "old"
    with tarfile.open(archive) as tar:
        tar.extractall(code, filter="data")
    package = code / "companion_memory"
    package.mkdir(exist_ok=True)
    for name in PACKAGES:
        if not (package / name).exists():
            (package / name).symlink_to(Path("..") / name)
    return code


def run_worker(code: Path, job: str, root: Path, **extra: Any) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--code", str(code),
           "--job", job, "--root", str(root)]
    for key, value in extra.items():
        if value is True:
            cmd.append(f"--{key}")
        elif value is not False:
            cmd += [f"--{key}", str(value)]
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{job} worker failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--code", help=argparse.SUPPRESS)
    parser.add_argument("--job", choices=("build", "open", "gaps"), help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--records", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--gaps", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=7, help="timed opens per size and code")
    parser.add_argument("--gap-runs", type=int, default=20, help="timed gap appends")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--ref", default="main", help="the old code (a git ref)")
    parser.add_argument("--amortized", action="store_true",
                        help="also time 10,000 gap appends (new code: includes one rewrite)")
    parser.add_argument("--dir", default=None, help="scratch directory (default: a temp dir)")
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    scratch = Path(tempfile.mkdtemp(prefix="open-cost-", dir=args.dir))
    try:
        old, new = checkout(args.ref, scratch), REPO
        print(f"old: git archive {args.ref}; new: {REPO}; runs={args.runs}")
        print("\n| retained records | old open ms | new open ms | ratio | new first open ms "
              "| old open+consume ms | new open+consume ms | ratio |")
        print("|---|---|---|---|---|---|---|---|")
        for size in (int(s) for s in args.sizes.split(",")):
            seed = scratch / f"seed-{size}"
            run_worker(new, "build", seed, records=size)
            roots = {}
            for name in ("old", "new"):
                roots[name] = scratch / f"{name}-{size}"
                shutil.copytree(seed, roots[name])
            shutil.rmtree(seed)
            o = run_worker(old, "open", roots["old"], runs=args.runs)
            n = run_worker(new, "open", roots["new"], runs=args.runs)
            om, nm = statistics.median(o["open"]), statistics.median(n["open"])
            orf, nrf = statistics.median(o["refeed"]), statistics.median(n["refeed"])
            print(f"| {size:,} | {ms(om)} | {ms(nm)} | {om / nm:,.0f}x | {ms(n['first'])} "
                  f"| {ms(orf)} | {ms(nrf)} | {orf / nrf:,.1f}x |")
            for root in roots.values():
                shutil.rmtree(root)
        print("\n| existing gaps | old append ms | new append ms | ratio |")
        print("|---|---|---|---|")
        amortized = {}
        for gaps in (10, 10_000):
            times = {}
            for name, code in (("old", old), ("new", new)):
                root = scratch / f"gaps-{name}-{gaps}"
                run_worker(new, "build", root, records=PER_DAY, gaps=gaps)
                want = args.amortized and gaps == 10_000 and name == "new"
                got = run_worker(code, "gaps", root, runs=args.gap_runs, amortized=want)
                times[name] = statistics.median(got["append"])
                if "amortized" in got:
                    amortized[name] = got["amortized"]
                shutil.rmtree(root)
            print(f"| {gaps:,} | {ms(times['old'])} | {ms(times['new'])} "
                  f"| {times['old'] / times['new']:,.1f}x |")
        if amortized:
            print(f"\nnew code, 10,000 appends from 10,000 gaps (one rewrite included): "
                  f"{ms(amortized['new'])} ms per append")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
