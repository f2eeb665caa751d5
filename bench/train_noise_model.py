"""Train the noise classifier (agent/notifications/noise_model.py) and measure triage.

Training: a logistic regression (L2, full-batch gradient descent in numpy) over the
embedding of each notification of the training sets, its category group and the shape
marks of its text (`noise_model.shape`). `--train` picks the sets: the first,
bench/data/triage_train/, by default; the second, bench/data/triage_train2/, on request.
The thresholds are chosen by 5-fold cross-validation on the training set
alone: the lowest noise probability at which at most `--keep-loss` of the held-out keep
rows would be dropped, and for the person-to-person channels (the phone's message,
email and call categories: dropping a person's words costs more than keeping an ad) at
most `--person-loss` of theirs. The weights are written to
agent/notifications/data/noise_model.json (with `--write`).

Measurement (`--measure`): on the labelled rows of the repository's corpora (fortnight:
tuning; holdout: held-out; blind: frozen, never tuned on), every `added`/`modified` row
labelled keep or noise is judged by (a) the rule triage (`NoiseFilter.classify`; secret
reasons are not counted as noise calls), (b) the model alone, (c) either. Printed per
corpus: the share of noise rows dropped and the share of keep rows dropped, then per rule
reason the rows that rule drops first (noise, keep) and how many of them the model alone
would drop too: what the rule adds once the model is on.

Usage:
    .venv/bin/python bench/train_noise_model.py --write
    .venv/bin/python bench/train_noise_model.py --measure
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion_memory.agent.notifications.filters import NoiseFilter, word_count  # noqa: E402
from companion_memory.agent.notifications.noise_model import (  # noqa: E402
    GROUPS,
    MIN_WORDS,
    MODEL_FILE,
    PERSON_GROUPS,
    NoiseWeights,
    category_group,
    features,
)
from companion_memory.ble.events import EventKind, NotificationEvent, parse_rfc3339  # noqa: E402
from companion_memory.memory.embedding import E5_SMALL, shared_embedder  # noqa: E402

TRAIN_SETS = {
    "first": [ROOT / "bench" / "data" / "triage_train" / "train.jsonl"],
    "second": sorted((ROOT / "bench" / "data" / "triage_train2").glob("*/train.jsonl")),
}
"""The training sets (each written apart from every evaluation corpus; see their READMEs):
"first" is template-expanded, "second" written row by row."""
OUT = ROOT / "agent" / "notifications" / "data" / MODEL_FILE
CORPORA = {"fortnight (tuning)": "fortnight", "dev_android (tuning)": "dev_android",
           "dev_ios (checked)": "dev_ios", "dev_warsaw (checked)": "dev_warsaw",
           "holdout (held-out)": "holdout",
           "blind (frozen)": "blind"}
SEED = 7


def embed(texts: list[str]) -> npt.NDArray[np.float32]:
    embedder = shared_embedder(E5_SMALL)
    assert embedder is not None
    out = [embedder.documents(texts[i:i + 32]) for i in range(0, len(texts), 32)]
    return np.vstack(out)


def fit(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], l2: float,
        steps: int = 3000, rate: float = 0.5) -> tuple[npt.NDArray[np.float32], float]:
    w = np.zeros(x.shape[1], dtype=np.float64)
    b = 0.0
    n = len(y)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        grad = p - y
        w -= rate * (x.T @ grad / n + l2 * w)
        b -= rate * float(grad.mean())
    return w.astype(np.float32), b


def probs(x: npt.NDArray[np.float32], w: npt.NDArray[np.float32], b: float) -> npt.NDArray[Any]:
    return 1.0 / (1.0 + np.exp(-(x @ w + b)))


def lowest_threshold(keep_scores: npt.NDArray[Any], loss: float) -> float:
    """The lowest threshold at which at most `loss` of these keep rows are dropped."""
    ordered = np.sort(keep_scores)
    return float(ordered[int(np.ceil((1 - loss) * len(ordered))) - 1]) + 1e-6


def training_rows(sets: list[str]) -> list[dict[str, Any]]:
    return [orjson.loads(line) for name in sets for path in TRAIN_SETS[name]
            for line in path.read_bytes().splitlines() if line.strip()]


def train(keep_loss: float, person_loss: float, l2: float,
          sets: list[str]) -> dict[str, Any]:
    rows = training_rows(sets)
    texts = ["\n".join(p for p in (r["title"], r["subtitle"], r["body"]) if p) for r in rows]
    x = features(embed(texts), [r["category"] for r in rows], texts)
    y = np.array([1.0 if r["label"] == "noise" else 0.0 for r in rows])
    order = np.random.default_rng(SEED).permutation(len(rows))
    folds = np.array_split(order, 5)
    held_p, held_y = [], []
    for k in range(5):
        test = folds[k]
        trainset = np.concatenate([folds[j] for j in range(5) if j != k])
        w, b = fit(x[trainset], y[trainset], l2)
        held_p.append(probs(x[test], w, b))
        held_y.append(y[test])
    p, t = np.concatenate(held_p), np.concatenate(held_y)
    person = np.isin(np.concatenate(folds), [
        i for i, r in enumerate(rows) if category_group(r["category"]) in PERSON_GROUPS])
    threshold = lowest_threshold(p[t == 0], keep_loss)
    person_threshold = max(threshold, lowest_threshold(p[(t == 0) & person], person_loss))
    noise_caught = float((p[t == 1] >= threshold).mean())
    person_caught = float((p[(t == 1) & person] >= person_threshold).mean())
    accuracy = float(((p >= 0.5) == (t == 1)).mean())
    w, b = fit(x, y, l2)
    return {
        "model": E5_SMALL, "groups": list(GROUPS), "weights": [round(float(v), 6) for v in w],
        "bias": round(b, 6), "threshold": round(threshold, 6),
        "person_threshold": round(person_threshold, 6),
        "cv": {"noise_dropped": round(noise_caught, 3), "keep_dropped_max": keep_loss,
               "person_noise_dropped": round(person_caught, 3),
               "person_keep_dropped_max": person_loss,
               "accuracy_at_0.5": round(accuracy, 3), "rows": len(rows), "l2": l2,
               "sets": sets},
    }


def measure(weights: NoiseWeights, only: list[str] | None = None) -> None:
    rules = NoiseFilter()
    for name, folder in CORPORA.items():
        if only and folder not in only:
            continue
        path = ROOT / "bench" / "data" / folder / "notifications.jsonl"
        rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        rows = [r for r in rows if r["kind"] != "removed" and r["label"] in ("keep", "noise")]
        events = [NotificationEvent(
            kind=EventKind(r["kind"]), key=r["key"], app_id=r["app_id"], title=r["title"],
            subtitle=r["subtitle"], body=r["body"], category=r["category"],
            posted_at=parse_rfc3339(r["posted_at"])) for r in rows]
        texts = ["\n".join(p for p in (e.title, e.subtitle, e.body) if p) for e in events]
        p = weights.probabilities(features(embed(texts), [e.category for e in events], texts))
        model = [v >= weights.threshold_for(e.category)
                 and word_count(f"{e.subtitle} {e.body}") >= MIN_WORDS
                 for v, e in zip(p, events, strict=True)]
        rule = []
        by_reason: dict[str, list[int]] = {}
        for e, r, m in zip(events, rows, model, strict=True):
            reason = rules.classify(e)
            drops = reason is not None and not reason.startswith("secret") \
                and reason not in ("otp", "verification_code")
            rule.append(drops)
            if drops:
                assert reason is not None
                counts = by_reason.setdefault(reason, [0, 0, 0, 0])
                offset = 0 if r["label"] == "noise" else 2
                counts[offset] += 1
                counts[offset + 1] += int(m)
        noise = [r["label"] == "noise" for r in rows]

        def share(calls: list[bool], label: bool, noise: list[bool] = noise) -> str:
            picked = [c for c, n in zip(calls, noise, strict=True) if n == label]
            return f"{sum(picked) / len(picked):.3f} ({sum(picked)}/{len(picked)})"

        either = [a or b for a, b in zip(rule, model, strict=True)]
        print(f"\n{name}: {sum(noise)} noise rows, {len(noise) - sum(noise)} keep rows")
        print("| triage | noise dropped | keep dropped |\n|---|---:|---:|")
        for label, calls in (("rules", rule), ("model", model), ("rules or model", either)):
            print(f"| {label} | {share(calls, True)} | {share(calls, False)} |")
        print("\n| rule (first reason) | noise rows dropped (by the model too) "
              "| keep rows dropped (by the model too) |\n|---|---:|---:|")
        for reason, (n, n_model, k, k_model) in sorted(by_reason.items()):
            print(f"| {reason} | {n} ({n_model}) | {k} ({k_model}) |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the weights file")
    parser.add_argument("--measure", action="store_true", help="triage on the corpora")
    parser.add_argument("--keep-loss", type=float, default=0.002,
                        help="most keep rows dropped in cross-validation (threshold)")
    parser.add_argument("--person-loss", type=float, default=0.002,
                        help="the same for rows of person-to-person channels (message, "
                             "email, call): their threshold")
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--train", action="append", choices=sorted(TRAIN_SETS),
                        help="training set (repeatable; default: first, the set the "
                             "shipped weights were trained on)")
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA.values()),
                        help="measure on this corpus only (repeatable; default: all)")
    args = parser.parse_args()
    if args.write or args.train or not args.measure:
        trained = train(args.keep_loss, args.person_loss, args.l2,
                        args.train or ["first"])
        print(orjson.dumps(trained["cv"]).decode(), "threshold", trained["threshold"])
        if args.write:
            OUT.parent.mkdir(exist_ok=True)
            OUT.write_bytes(orjson.dumps(trained))
    if args.measure:
        measure(NoiseWeights.load() if not (args.write or args.train) else NoiseWeights(
            trained["model"], np.asarray(trained["weights"], dtype=np.float32),
            trained["bias"], trained["threshold"], trained["person_threshold"]), args.corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
