"""Drafts from the prompt: tokens the answer repeats from its prompt are checked in one
batch, and the answer is the one token-by-token greedy decoding gives."""

from __future__ import annotations

import json

import pytest

from companion_memory.agent.model.llama_engine import _Lookup
from companion_memory.agent.model.provider import Message


def test_the_lookup_drafts_what_followed_the_last_token_pair() -> None:
    lookup = _Lookup([1, 2, 3, 4, 5, 2, 3, 9])
    assert lookup.draft(4) == []  # nothing appended yet
    lookup.append(7)
    assert lookup.draft(4) == []  # (9, 7) never occurred
    lookup.append(2)
    lookup.append(3)
    assert lookup.draft(4) == [9, 7, 2, 3]  # the latest earlier (2, 3): after index 6
    assert lookup.draft(2) == [9, 7]
    lookup.append(4)
    assert lookup.draft(8) == [5, 2, 3, 9, 7, 2, 3, 4]  # (3, 4) at index 3


SCHEMA = {
    "type": "object",
    "properties": {"t": {"type": "string", "maxLength": 90}, "k": {"enum": ["a", "b"]}},
    "required": ["t", "k"],
    "additionalProperties": False,
}


def _messages(text: str) -> tuple[Message, ...]:
    # the decoy after the JSON shares word pairs with the text: drafts that are refused
    decoy = " ".join([*text.split()[:4], "closes", "early", "on", "Sunday", "evening"])
    return (Message("user", 'Repeat this JSON exactly: {"t":"' + text + '","k":"a"} '
                    f"(but not: {decoy})"),)


@pytest.mark.llama
@pytest.mark.timeout(600)
def test_drafts_give_the_same_answer_in_fewer_steps(model_path: str) -> None:
    from companion_memory.agent.model.llama_engine import Job, LlamaEngine

    texts = ["The parcel from the bike shop arrives on Thursday 5 March between ten and two.",
             "Dinner with Anna at the Italian place on Karl-Marx-Allee on Friday at seven."]
    answers: dict[bool, list[str]] = {}
    cached: dict[bool, list[list[int]]] = {}
    figures = {}
    for draft in (False, True):
        engine = LlamaEngine(model_path, n_ctx=1024, n_threads=1, seed=0,
                             draft_from_prompt=draft)
        try:
            answers[draft], cached[draft] = [], []
            for text in (*texts, texts[0]):  # the last one reuses a cache drafts wrote to
                job = Job(_messages(text), SCHEMA, 80, deadline=float("inf"),
                          max_prompt_tokens=512)
                generation = engine.generate(job)
                assert generation.stopped == "eog"
                json.loads(generation.text)
                answers[draft].append(generation.text)
                # the KV cache holds the prompt and the answer and no refused draft; the
                # fixed text that closes the answer is never evaluated (nothing follows it)
                whole = generation.prompt_tokens + generation.completion_tokens
                assert whole - generation.forced_tokens <= engine.llm.n_tokens < whole
                cache = engine.llm.input_ids[: engine.llm.n_tokens].tolist()
                assert cache[: generation.prompt_tokens] == engine.tokenize_prompt(job.messages)
                cached[draft].append(cache)
                figures[draft, text] = generation
        finally:
            engine.close()
    assert answers[True] == answers[False]
    assert cached[True] == cached[False]
    assert answers[True][0] == answers[True][2]
    assert all(figures[False, t].drafted_tokens == 0 for t in texts)
    assert sum(figures[True, t].drafted_tokens for t in texts) > 10
    # some drafts were refused in part (the decoy), so the cache was rolled back
    assert sum(figures[True, t].drafts for t in texts) > 2
