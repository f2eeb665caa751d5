"""Lasting facts in chat messages: what the phrase rules find, and what a classifier over
the embedding would (measured; no classifier ships).

The data (`bench/data/lasting/`): chat messages in 15 languages, each labelled "lasting"
when it states something about a person that stays true for months (a diet, an allergy,
a new address, a condition, a new job, a child's school, a new number, ...) or "other"
(plans, chat, logistics, and near misses that use the same words); part A and part B
written apart, 420 each.

Printed: per language, how many lasting facts of part B the phrase rules of
`agent/notifications/lasting.py` find and how many they call wrongly; the same for a
logistic regression (`bench.train_noise_model.fit`) over the e5 embedding of each
message, trained on part A (with `--chat`, also on the person-to-person notifications of
the noise classifier's training sets as ordinary messages), its threshold chosen by
5-fold cross-validation on its training rows for `--precision`; and with `--corpora`,
how many person-to-person notifications of each repository corpus it calls lasting, by
their label (with `--show`, which, for the tuning corpora only: fortnight, dev_android).

Usage:
    .venv/bin/python bench/lasting_facts.py --corpora --precision 0.99
    .venv/bin/python bench/lasting_facts.py --corpora --precision 0.99 --chat
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.train_noise_model import TRAIN_SETS, embed, fit, probs, training_rows  # noqa: E402
from companion_memory.agent.notifications.lasting import lasting_fact  # noqa: E402
from companion_memory.agent.notifications.noise_model import (  # noqa: E402
    PERSON_GROUPS,
    category_group,
)

DATA = ROOT / "bench" / "data" / "lasting"
MESSAGE_CHARS = 400
"""The start of a message that is judged."""
TUNING = ("fortnight", "dev_android")
CORPORA = ("fortnight", "dev_android", "dev_ios", "dev_warsaw", "holdout", "blind")
SEED = 11


def rows(part: str) -> list[dict[str, Any]]:
    path = DATA / f"part_{part}.jsonl"
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def text_of(row: dict[str, Any]) -> str:
    return " ".join(str(row["text"]).split())[:MESSAGE_CHARS]


def lowest_threshold(scores: npt.NDArray[Any], truth: npt.NDArray[Any],
                     precision: float) -> float:
    """The lowest threshold at which at least `precision` of what scores at or above it
    is lasting (1.0 when none does)."""
    for value in np.sort(np.unique(scores)):
        called = scores >= value
        if called.sum() and truth[called].mean() >= precision:
            return float(value)
    return 1.0


def chat_rows() -> list[dict[str, Any]]:
    """The person-to-person notifications of the noise classifier's training sets
    (`bench/data/triage_train*`: written for training only, apart from every evaluation
    corpus), as ordinary messages: what most chat is, next to part A's lasting facts."""
    return [{"text": row["body"], "label": "other", "lang": row["lang"]}
            for row in training_rows(list(TRAIN_SETS))
            if category_group(row["category"]) in PERSON_GROUPS and str(row["body"]).strip()]


def train(precision: float, l2: float, chat: bool) -> tuple[dict[str, Any], dict[str, float]]:
    data = rows("a") + (chat_rows() if chat else [])
    x = embed([text_of(r) for r in data])
    y = np.array([1.0 if r["label"] == "lasting" else 0.0 for r in data])
    order = np.random.default_rng(SEED).permutation(len(data))
    folds = np.array_split(order, 5)
    held_p, held_y = [], []
    for k in range(5):
        rest = np.concatenate([folds[j] for j in range(5) if j != k])
        w, b = fit(x[rest], y[rest], l2)
        held_p.append(probs(x[folds[k]], w, b))
        held_y.append(y[folds[k]])
    p, t = np.concatenate(held_p), np.concatenate(held_y)
    threshold = lowest_threshold(p, t, precision)
    called = p >= threshold
    cv = {"precision": float(t[called].mean()) if called.any() else 0.0,
          "recall": float(called[t == 1].mean()), "threshold": threshold}
    w, b = fit(x, y, l2)
    return {"weights": w, "bias": b, "threshold": threshold}, cv


def measure_part_b(weights: dict[str, Any]) -> None:
    data = rows("b")
    w = np.asarray(weights["weights"], dtype=np.float32)
    p = probs(embed([text_of(r) for r in data]), w, float(weights["bias"]))
    called = p >= float(weights["threshold"])
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for row, call in zip(data, called, strict=True):
        truth = row["label"] == "lasting"
        rule = lasting_fact(str(row["sender"]), text_of(row)) is not None
        for key in (row["lang"], "all"):
            counts = by[key]
            for at, hit in enumerate((truth, bool(call) and truth, bool(call) and not truth,
                                      rule and truth, rule and not truth)):
                counts[at] += int(hit)
    print("| language | lasting | model: found / wrong | phrase rules: found / wrong |")
    print("|---|---:|---:|---:|")
    for key in sorted(by, key=lambda k: (k == "all", k)):
        total, found, wrong, rule_found, rule_wrong = by[key]
        print(f"| {key} | {total} | {found} / {wrong} | {rule_found} / {rule_wrong} |")
    total, found, wrong, _, _ = by["all"]
    print(f"\npart B: precision {found / max(1, found + wrong):.3f}, "
          f"recall {found / max(1, total):.3f}")


def measure_corpora(weights: dict[str, Any], show: bool) -> None:
    w = np.asarray(weights["weights"], dtype=np.float32)
    print("\n| corpus | person messages (keep / noise) | called lasting: keep / noise |")
    print("|---|---:|---:|")
    for name in CORPORA:
        path = ROOT / "bench" / "data" / name / "notifications.jsonl"
        data = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        data = [r for r in data if r["kind"] != "removed" and r["label"] in ("keep", "noise")
                and category_group(r["category"]) in PERSON_GROUPS and r["body"].strip()]
        p = probs(embed([" ".join(r["body"].split())[:MESSAGE_CHARS] for r in data]), w,
                  float(weights["bias"]))
        called = p >= float(weights["threshold"])
        keep = [r["label"] == "keep" for r in data]
        if show and name in TUNING:
            for row, call in zip(data, called, strict=True):
                if call:
                    print(f"  {name} {row['id']} {row['label']}: {row['body'][:100]!r}")
        print(f"| {name} | {sum(keep)} / {len(keep) - sum(keep)} | "
              f"{sum(c and k for c, k in zip(called, keep, strict=True))} / "
              f"{sum(c and not k for c, k in zip(called, keep, strict=True))} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--precision", type=float, default=0.99,
                        help="least precision in cross-validation (threshold)")
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--chat", action="store_true",
                        help="train on the noise training sets' chat messages too")
    parser.add_argument("--corpora", action="store_true",
                        help="count what it calls lasting on the repository's corpora")
    parser.add_argument("--show", action="store_true",
                        help="with --corpora: list the tuning corpora's rows it calls lasting")
    args = parser.parse_args()
    weights, cv = train(args.precision, args.l2, args.chat)
    print(f"training rows, 5-fold: precision {cv['precision']:.3f}, recall "
          f"{cv['recall']:.3f} at threshold {cv['threshold']:.3f}\n")
    measure_part_b(weights)
    if args.corpora:
        measure_corpora(weights, args.show)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
