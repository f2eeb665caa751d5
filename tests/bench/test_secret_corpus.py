"""The secret corpus benchmark on a CI-sized slice: every language of every part, through
the real triage and the real Runtime (deterministic provider). Any leak fails; so does a
secret-free message dropped for a secret reason beyond 1 %. The corpus itself is checked
for its shape (languages, counts, labels) so that it cannot rot."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.secret_corpus import PARTS, CorpusError, Row, evaluate, leaked, load, main

SLICE_PER_LANGUAGE = 3
"""Secret-bearing and secret-free messages per language and part in the slice."""


def corpus_slice() -> list[Row]:
    picked: list[Row] = []
    taken: Counter[tuple[str, str, bool]] = Counter()
    for row in load():
        key = (row.part, row.lang, row.has_secret)
        if taken[key] < SLICE_PER_LANGUAGE and row.id.endswith("0"):
            taken[key] += 1
            picked.append(row)
    return picked


def test_the_corpus_has_the_promised_shape() -> None:
    rows = load()
    assert {row.part for row in rows} == set(PARTS)
    assert sum(row.has_secret for row in rows) >= 300
    assert sum(not row.has_secret for row in rows) >= 300
    assert len({row.lang for row in rows}) >= 12
    assert len({row.id for row in rows}) == len(rows)
    for row in rows:  # every labelled secret is in the message as written
        assert all(secret in f"{row.title}\n{row.body}" for secret in row.secrets), row.id


KNOWN_LEAKS = frozenset({"c0011", "c0021", "c0143", "c0206", "c0260", "c0266"})
"""The blind2 messages that still leak, each a form the detector does not take without a
word for it (docs/benchmarks.md, "A second blind secret corpus"): a card's security code
named only by where it is printed ("arkadaki 3 hane 614", "the 4 digits on the front are
4412"), a two-digit sign-in approval number (c0021, c0266), a door code after "press"
(c0143), a six-character Brazilian account number (c0206)."""


def test_a_slice_of_every_language_leaks_nothing_beyond_the_known_forms() -> None:
    rows = corpus_slice()
    figures = evaluate(rows)
    total = figures.total()
    assert total.secret > 100 and total.clean > 100
    assert figures.leaked_ids <= KNOWN_LEAKS, sorted(figures.leaked_ids - KNOWN_LEAKS)
    known = sum(row.id in KNOWN_LEAKS for row in rows)
    assert total.leak_triage <= known and total.leak_pipeline <= known
    assert total.false_drops <= 0.01 * total.clean, sorted(figures.false_drop_ids)


def test_the_leak_check_normalises_digit_groups_and_spares_other_numbers() -> None:
    assert leaked("your code 318774 is here", ["318-774"])
    assert leaked("Karte 4111111111111111", ["4111 1111 1111 1111"])
    assert leaked("iban de89370400440532013000", ["DE89-3704-0044-0532-0130-00"])
    assert not leaked("ICE 2026-03-02 at 09:03", ["2026"])
    assert not leaked("[redacted]", ["5 8 2 6"])


def test_a_malformed_corpus_line_names_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "tune.jsonl").write_text('{"id": "x"}\n')
    with pytest.raises(CorpusError, match=r"tune\.jsonl:1: not a corpus row"):
        load(("tune",), tmp_path)


def test_time_reports_the_triage_cost_of_the_part_and_refuses_zero_passes(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--part", "holdout", "--time", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"triage: {len(load(('holdout',)))} messages, 1 passes: median ")
    assert out.strip().endswith("per message") and out.count("\n") == 1
    with pytest.raises(SystemExit):
        main(["--time", "0"])
