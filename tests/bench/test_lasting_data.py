"""The lasting-fact data set keeps its promised shape (bench/data/lasting/), and the
phrase rules read only the languages they were written for (docs/benchmarks.md,
"Lasting facts by meaning": they find 36 of its 420 lasting facts, and call 9 of its near
misses lasting, jokes about a day of the week)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import orjson

from companion_memory.agent.notifications.lasting import lasting_fact

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "lasting"


def rows(part: str) -> list[dict[str, str]]:
    return [orjson.loads(line) for line in (DATA / f"part_{part}.jsonl").read_bytes()
            .splitlines() if line.strip()]


def test_the_data_validates_and_is_balanced_per_language() -> None:
    done = subprocess.run([sys.executable, str(DATA / "check.py")], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    for part in ("a", "b"):
        counts = Counter((r["lang"], r["label"]) for r in rows(part))
        assert len({lang for lang, _ in counts}) == 15
        assert set(counts.values()) == {14}


def test_the_phrase_rules_find_lasting_facts_in_fifteen_languages(
) -> None:
    found: Counter[str] = Counter()
    right = 0
    for row in rows("a") + rows("b"):
        if lasting_fact(row["sender"], row["text"]) is not None:
            found[row["lang"]] += 1
            right += row["label"] == "lasting"
    assert set(found) <= {"en", "de", "fr", "it", "es", "nl", "pl", "pt", "tr", "ru", "uk",
                          "ja", "zh", "ko", "ar"}
    assert len(found) >= 12
    assert right >= 36
