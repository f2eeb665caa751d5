"""Episodes: durable recording latency and batch processing throughput.

    .venv/bin/python bench/episodes.py [--episodes 60] [--records 200] [--call-ms 50] [--write]

Measures, on this machine, with a real SQLite store and real fsyncs in a temp dir:
- `EpisodeRecorder.record()` latency (validate + tmp write + fsync + rename + dir
  fsync), median and p95; baseline in the same run: writing the same bytes with a
  plain `write_bytes` (no fsync, no rename);
- processing N eligible episodes to Device Memory with batches of 5 (one model call
  per batch) against the baseline of one episode per call (batch_size=1). The model
  is the deterministic fallback behind a fixed simulated call cost (`--call-ms`),
  standing in for a local model's per-call overhead; it prints model calls, wall
  time, per-episode time and the ratio.
With `--write` the section replaces "## Episodes (issue 6)" in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion_memory.agent.episodes import (  # noqa: E402
    EpisodeProcessor,
    EpisodeRecorder,
    ModelEpisodeExtractor,
    episode_fallback,
)
from companion_memory.agent.model import ModelRequest, ModelResponse  # noqa: E402
from companion_memory.agent.model.merge import MemoryMergeEngine  # noqa: E402
from companion_memory.core.clock import SystemClock  # noqa: E402
from companion_memory.memory.records import Tier  # noqa: E402
from companion_memory.memory.store import MemoryStore  # noqa: E402
from tests.episodes.helpers import topic_episode  # noqa: E402

HEADING = "## Episodes (issue 6)"


class SlowDeterministic:
    """A stand-in model: the rules' answer in the episodes' answer format, after a fixed
    per-call cost."""

    name = "slow-deterministic"

    def __init__(self, call_s: float) -> None:
        self._call_s = call_s
        self.calls = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        await asyncio.sleep(self._call_s)
        text = orjson.dumps(episode_fallback(request.payload)).decode()
        return ModelResponse(text, 0, 0, self.name)

    async def prepare(self) -> None:
        return None

    async def close(self) -> None:
        return None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def bench_record(root: Path, n: int) -> dict[str, float]:
    recorder = EpisodeRecorder(root / "rec", clock=SystemClock())
    durable: list[float] = []
    plain: list[float] = []
    plain_dir = root / "plain"
    await asyncio.to_thread(plain_dir.mkdir)
    for i in range(n):
        data = topic_episode(i)
        started = time.perf_counter()
        result = await recorder.record(data)
        durable.append((time.perf_counter() - started) * 1000)
        raw = await asyncio.to_thread(Path(result.path).read_bytes)
        target = plain_dir / f"{i}.json"
        started = time.perf_counter()
        await asyncio.to_thread(target.write_bytes, raw)
        plain.append((time.perf_counter() - started) * 1000)
    return {
        "record_p50": statistics.median(durable), "record_p95": pct(durable, 0.95),
        "plain_p50": statistics.median(plain), "plain_p95": pct(plain, 0.95),
    }


async def bench_process(root: Path, n: int, batch_size: int, call_s: float) -> dict[str, float]:
    clock = SystemClock()
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    try:
        recorder = EpisodeRecorder(root, clock=clock)
        for i in range(n):
            await recorder.record(topic_episode(i))
        provider = SlowDeterministic(call_s)
        processor = EpisodeProcessor(recorder, store,
                                     ModelEpisodeExtractor(MemoryMergeEngine(provider)),
                                     clock=clock, batch_size=batch_size)
        started = time.perf_counter()
        for _ in range(n + 5):
            if not (await processor.run_batch()).backlog:
                break
        elapsed = time.perf_counter() - started
        written = len(await store.list_records(tier=Tier.DEVICE, limit=10_000))
    finally:
        await store.close()
    if written != n:
        raise SystemExit(f"expected {n} device memories, found {written}")
    return {"calls": provider.calls, "elapsed_s": elapsed, "per_episode_ms": elapsed * 1000 / n}


def fs_type(path: str) -> str:
    """The file system type holding `path`, from /proc/mounts (longest mount prefix)."""
    best, kind = "", "unknown"
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return kind
    for line in mounts:
        fields = line.split()
        if len(fields) > 2 and path.startswith(fields[1]) and len(fields[1]) > len(best):
            best, kind = fields[1], fields[2]
    return kind


def section(args: argparse.Namespace, rec: dict[str, float], five: dict[str, float],
            one: dict[str, float]) -> str:
    return f"""{HEADING}

Command: `.venv/bin/python bench/episodes.py --episodes {args.episodes} --records \
{args.records} --call-ms {args.call_ms:g} --write` ({os.cpu_count()} CPUs, temp dir on
{fs_type(tempfile.gettempdir())}, real fsyncs; simulated model call cost {args.call_ms:g} ms
on top of the deterministic fallback).

| measure | median | p95 |
|---|---|---|
| `record()` durable (validate, tmp, fsync, rename, dir fsync), {args.records} episodes | \
{rec['record_p50']:.2f} ms | {rec['record_p95']:.2f} ms |
| baseline: plain `write_bytes` of the same trace (no fsync) | {rec['plain_p50']:.3f} ms | \
{rec['plain_p95']:.3f} ms |

| processing {args.episodes} episodes | model calls | wall time | per episode |
|---|---|---|---|
| batches of 5 (one call per batch) | {five['calls']:.0f} | {five['elapsed_s']:.2f} s | \
{five['per_episode_ms']:.1f} ms |
| baseline: batch_size=1 (one call per episode) | {one['calls']:.0f} | \
{one['elapsed_s']:.2f} s | {one['per_episode_ms']:.1f} ms |

Batching cuts model calls {one['calls'] / five['calls']:.1f}x and wall time \
{one['elapsed_s'] / five['elapsed_s']:.2f}x at this call cost; the rest of the per-episode
time is the ledger transitions and the per-episode apply transaction (fsync'd WAL commits).
"""


def write_section(text: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    doc = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = doc.find(HEADING)
    if start >= 0:
        end = doc.find("\n## ", start + len(HEADING))
        doc = doc[:start] + text + (doc[end + 1:] if end >= 0 else "")
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(doc, encoding="utf-8")
    os.replace(tmp, path)


async def main_async(args: argparse.Namespace) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name in ("r", "five", "one"):
            (base / name).mkdir()
        rec = await bench_record(base / "r", args.records)
        call_s = args.call_ms / 1000
        five = await bench_process(base / "five", args.episodes, 5, call_s)
        one = await bench_process(base / "one", args.episodes, 1, call_s)
    return section(args, rec, five, one)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--call-ms", type=float, default=50.0)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    text = asyncio.run(main_async(args))
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
