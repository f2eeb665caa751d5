"""Fixed text fed vs sampled: the notification contract decoded both ways on the same batches.

Every batch of the corpus's kept notifications (labels other than noise and secret, in
posting order, `--batch` per call, no related memories) is answered twice by the same
loaded model, once sampling every token and once feeding the text the schema forces
(`agent/model/forced.py`), alternating which goes first. Reported: decode seconds per
batch (medians), completion tokens, how many were fed, the ratio, and how many answers
came out identical (greedy decoding; a fed token split differently from the model's own
choice can change what follows).

    .venv/bin/python bench/contract_decoding.py --model PATH.gguf [--batches 12]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion_memory.agent.model.llama_engine import Job, LlamaEngine
from companion_memory.agent.notifications.contract import BatchItem, batch_schema, output_budget
from companion_memory.agent.notifications.processor import _contract_messages

DATA = Path(__file__).resolve().parent / "data" / "fortnight" / "notifications.jsonl"


def batches(size: int, count: int) -> list[list[BatchItem]]:
    items: list[BatchItem] = []
    for number, line in enumerate(DATA.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        if row.get("label") in ("noise", "secret") or row.get("kind") != "added":
            continue
        posted = datetime.fromisoformat(row["posted_at"].replace("Z", "+00:00"))
        items.append(BatchItem(number, posted.astimezone(UTC), row["app_id"].split(".")[-1],
                               row["title"], row.get("subtitle", ""), row["body"], ()))
    return [items[i:i + size] for i in range(0, len(items), size)][:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    zone = ZoneInfo("Europe/Berlin")
    engine = LlamaEngine(args.model, n_ctx=4096, n_threads=args.threads, seed=0)
    runs: dict[bool, list[tuple[float, int, int, str]]] = {True: [], False: []}
    try:
        for index, batch in enumerate(batches(args.batch, args.batches)):
            schema = batch_schema(batch)
            messages = tuple(_contract_messages(batch, [], zone))
            order = (True, False) if index % 2 == 0 else (False, True)
            for feed in order:
                engine.feed_fixed_text = feed
                job = Job(messages, schema, output_budget(batch), deadline=float("inf"),
                          max_prompt_tokens=3072)
                gen = engine.generate(job)
                runs[feed].append((gen.generate_s, gen.completion_tokens, gen.forced_tokens,
                                   gen.text))
    finally:
        engine.close()
    same = sum(a[3] == b[3] for a, b in zip(runs[True], runs[False], strict=True))
    med = {feed: statistics.median(r[0] for r in rows) for feed, rows in runs.items()}
    tok = {feed: statistics.median(r[1] for r in rows) for feed, rows in runs.items()}
    fed = statistics.median(r[2] / r[1] for r in runs[True])
    print(f"model {Path(args.model).name}, {len(runs[True])} batches of {args.batch}, "
          f"n_threads {args.threads}")
    print("| decoding | decode s per batch (median) | completion tokens (median) |")
    print("|---|---:|---:|")
    print(f"| every token sampled | {med[False]:.2f} | {tok[False]:.0f} |")
    print(f"| fixed text fed | {med[True]:.2f} | {tok[True]:.0f} (fed: {fed:.0%}) |")
    print(f"ratio fed/sampled: {med[True] / med[False]:.2f}; identical answers: "
          f"{same}/{len(runs[True])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
