"""The decoding loop of this tree against the one at another commit, on the same batches.

`agent/model/llama_engine.py` is read from the given commit with `git show` and loaded
beside the working tree's; both load the same model and answer every batch of the
corpus's kept notifications (as `bench/contract_decoding.py` builds them: no related
memories), alternating which goes first. Reported: decode seconds per batch (medians and
totals), the ratio of the medians, and how many answers came out identical (greedy
decoding; a different batching of the same tokens can change a logit in its last bits).

    .venv/bin/python bench/engine_ab.py --model PATH.gguf --base HEAD~1 [--batches 30]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from contract_decoding import batches  # noqa: E402

from companion_memory.agent.model import llama_engine  # noqa: E402
from companion_memory.agent.notifications.contract import (  # noqa: E402
    batch_schema,
    output_budget,
)
from companion_memory.agent.notifications.processor import _contract_messages  # noqa: E402


def engine_at(commit: str, folder: Path) -> ModuleType:
    """The engine module as it was at `commit`, imported under its own name."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:agent/model/llama_engine.py"],
        capture_output=True, text=True, check=False)
    if source.returncode != 0:
        raise SystemExit(f"engine_ab: git show {commit}: {source.stderr.strip()}")
    path = folder / "base_llama_engine.py"
    path.write_text(source.stdout, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("base_llama_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    zone = ZoneInfo("Europe/Berlin")
    with tempfile.TemporaryDirectory(prefix="engine-ab-") as folder:
        modules = {"base": engine_at(args.base, Path(folder)), "tree": llama_engine}
        engines = {name: module.LlamaEngine(args.model, n_ctx=4096, n_threads=args.threads,
                                            seed=0)
                   for name, module in modules.items()}
        seconds: dict[str, list[float]] = {name: [] for name in modules}
        same = total = 0
        try:
            for index, batch in enumerate(batches(args.batch, args.batches)):
                messages = tuple(_contract_messages(batch, [], zone))
                texts = {}
                for name in ("base", "tree") if index % 2 else ("tree", "base"):
                    job = modules[name].Job(messages, batch_schema(batch), output_budget(batch),
                                            deadline=float("inf"), max_prompt_tokens=3072)
                    gen = engines[name].generate(job)
                    seconds[name].append(gen.generate_s)
                    texts[name] = gen.text
                total += 1
                same += texts["base"] == texts["tree"]
        finally:
            for engine in engines.values():
                engine.close()
    med = {name: statistics.median(values) for name, values in seconds.items()}
    print(f"model {Path(args.model).name}, {total} batches of {args.batch}, "
          f"n_threads {args.threads}, base {args.base}")
    print("| engine | decode s per batch (median) | decode s (total) |")
    print("|---|---:|---:|")
    for name in ("base", "tree"):
        print(f"| {name} | {med[name]:.3f} | {sum(seconds[name]):.1f} |")
    print(f"ratio tree/base: {med['tree'] / med['base']:.2f}; identical answers: {same}/{total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
