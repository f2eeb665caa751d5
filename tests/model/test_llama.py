"""LlamaCppProvider against the real small model: grammar, limits, cancellation, bad files."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import orjson
import pytest

from companion_memory.agent.model.llama import LlamaCppProvider
from companion_memory.agent.model.llama_engine import PROMPT_CHUNK, render_prompt
from companion_memory.agent.model.provider import (
    Message,
    ModelError,
    ModelOutputError,
    ModelRequest,
    ModelTimeoutError,
    ModelUnavailableError,
)
from companion_memory.agent.model.settings import ProviderConfigError

pytestmark = pytest.mark.llama

SCHEMA = {
    "type": "object",
    "properties": {
        "actions": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"enum": ["add", "ignore"]},
                    "id": {"type": "string", "maxLength": 4},
                },
                "required": ["op", "id"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["actions"],
    "additionalProperties": False,
}
TINY = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}
MESSAGES = (
    Message("system", "Decide which notifications to remember. Reply with JSON."),
    Message("user", '{"n":"n1","app":"mail","t":"Dinner on Friday at 7"}'),
)


@pytest.fixture(scope="module")
def provider(model_path: str) -> Iterator[LlamaCppProvider]:
    llama = LlamaCppProvider(model_path, n_ctx=1024, n_threads=1, max_prompt_tokens=512)
    yield llama
    asyncio.run(llama.close())


def request(schema: dict[str, object], max_output_tokens: int = 48, **kw: object) -> ModelRequest:
    return ModelRequest(
        scenario="notifications",
        messages=MESSAGES,
        schema=schema,
        max_output_tokens=max_output_tokens,
        **kw,  # type: ignore[arg-type]
    )


async def test_constrained_completion_parses_and_counts_tokens(provider: LlamaCppProvider) -> None:
    response = await provider.complete(request(SCHEMA, max_output_tokens=64))
    data = orjson.loads(response.text)
    assert set(data) == {"actions"}
    assert all(item["op"] in ("add", "ignore") and len(item["id"]) <= 4 for item in data["actions"])
    assert response.provider == "llama"
    assert response.prompt_tokens > 10
    assert 0 < response.completion_tokens <= 64
    assert provider.last_generation is not None
    assert provider.last_generation.stopped == "eog"


async def test_grammar_compiled_once_per_schema_and_prefix_reused(
    provider: LlamaCppProvider,
) -> None:
    await provider.complete(request(TINY, max_output_tokens=12))
    cached = provider.grammars_cached
    second = await provider.complete(request(TINY, max_output_tokens=12))
    assert provider.grammars_cached == cached
    assert orjson.loads(second.text) == {"ok": True} or orjson.loads(second.text) == {"ok": False}
    assert provider.last_generation is not None
    assert provider.last_generation.reused_prefix_tokens > 0


async def test_output_cut_by_max_output_tokens_is_an_output_error(
    provider: LlamaCppProvider,
) -> None:
    with pytest.raises(ModelOutputError, match="max_output_tokens \\(3\\)"):
        await provider.complete(request(SCHEMA, max_output_tokens=3))
    again = await provider.complete(request(TINY, max_output_tokens=12))
    assert "ok" in orjson.loads(again.text)


async def test_prompt_over_max_prompt_tokens_is_refused(model_path: str) -> None:
    small = LlamaCppProvider(model_path, n_ctx=256, n_threads=1, max_prompt_tokens=16)
    try:
        with pytest.raises(ModelError) as caught:
            await small.complete(request(TINY))
        assert caught.value.code == "prompt_too_long"
        assert "max_prompt_tokens 16" in caught.value.reason
        assert small.calls == 0
    finally:
        await small.close()


async def test_cancel_stops_within_a_token_and_model_stays_usable(
    provider: LlamaCppProvider,
) -> None:
    task = asyncio.create_task(
        provider.generate(MESSAGES, schema=None, max_output_tokens=400, deadline_s=60)
    )
    for _ in range(500):
        if provider.tokens_in_flight >= 5:
            break
        await asyncio.sleep(0.01)
    assert provider.tokens_in_flight >= 5
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    report = provider.last_cancel
    assert report is not None
    assert report.tokens_after_cancel <= 1
    assert provider.tokens_in_flight == 0  # the thread has stopped when the task is done
    response = await provider.complete(request(TINY, max_output_tokens=12))
    assert "ok" in orjson.loads(response.text)


async def test_cancel_of_a_queued_call_never_runs_it(provider: LlamaCppProvider) -> None:
    first = asyncio.create_task(provider.complete(request(TINY, max_output_tokens=12)))
    second = asyncio.create_task(provider.complete(request(TINY, max_output_tokens=12)))
    await asyncio.sleep(0)
    calls = provider.calls
    second.cancel()
    await first
    with pytest.raises(asyncio.CancelledError):
        await second
    assert provider.calls == calls + 1


async def test_deadline_raises_timeout_and_model_stays_usable(provider: LlamaCppProvider) -> None:
    with pytest.raises(ModelTimeoutError, match="deadline"):
        await provider.generate(MESSAGES, schema=None, max_output_tokens=400, deadline_s=0.05)
    response = await provider.complete(request(TINY, max_output_tokens=12))
    assert "ok" in orjson.loads(response.text)


def _write_truncated(source: str, target: str, size: int) -> None:
    with open(source, "rb") as src, open(target, "wb") as dst:
        dst.write(src.read(size))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        (b"not a gguf at all", "not a GGUF file"),
        ("dir", "not a regular file"),
        ("truncated", "truncated, corrupt"),
    ],
)
async def test_bad_model_files_are_refused_at_load(
    model_path: str, tmp_path: object, content: bytes | str | None, message: str
) -> None:
    path = os.path.join(str(tmp_path), "model.gguf")
    if isinstance(content, bytes):
        await asyncio.to_thread(_write, path, content)
    elif content == "dir":
        await asyncio.to_thread(os.mkdir, path)
    elif content == "truncated":
        await asyncio.to_thread(_write_truncated, model_path, path, 4 * 1024 * 1024)
    bad = LlamaCppProvider(path, n_ctx=256, max_prompt_tokens=128)
    try:
        with pytest.raises(ModelUnavailableError, match=message):
            await bad.load()
        assert not bad.loaded
        with pytest.raises(ModelUnavailableError, match=message):
            await bad.complete(request(TINY))
    finally:
        await bad.close()


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


async def test_closed_provider_refuses_and_close_is_idempotent(model_path: str) -> None:
    llama = LlamaCppProvider(model_path, n_ctx=256, n_threads=1, max_prompt_tokens=128)
    await llama.load()
    assert llama.loaded and llama.load_s is not None
    await llama.close()
    await llama.close()
    assert not llama.loaded
    with pytest.raises(ModelUnavailableError, match="closed"):
        await llama.complete(request(TINY))


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"n_ctx": 0}, "n_ctx"),
        ({"max_prompt_tokens": -1}, "max_prompt_tokens"),
        ({"n_ctx": 64, "max_prompt_tokens": 64}, "max_prompt_tokens"),
        ({"n_threads": 0}, "n_threads"),
    ],
)
def test_invalid_construction_names_the_key(kwargs: dict[str, int], key: str) -> None:
    with pytest.raises(ProviderConfigError, match=f"provider setting {key}="):
        LlamaCppProvider("/nowhere.gguf", **kwargs)  # type: ignore[arg-type]


def _reference_completion(model_path: str, prompt: str, limit: int) -> str:
    """llama-cpp-python's own greedy generation with a full from_json_schema grammar."""
    import llama_cpp
    from llama_cpp.llama_grammar import LlamaGrammar

    # Prompt evaluated in the provider's chunk size, so both see bit-identical logits.
    llm = llama_cpp.Llama(
        model_path=model_path, n_ctx=1024, n_threads=1, n_batch=PROMPT_CHUNK, verbose=False
    )
    grammar = LlamaGrammar.from_json_schema(orjson.dumps(SCHEMA).decode(), verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    tokens = llm.tokenize(prompt.encode(), add_bos=True, special=True)
    out: list[int] = []
    for token in llm.generate(tokens, temp=0.0, grammar=grammar, reset=True):
        if llama_cpp.llama_vocab_is_eog(vocab, token) or len(out) >= limit:
            break
        out.append(token)
    text: str = llm.detokenize(out).decode("utf-8")
    llm.close()
    return text


async def test_top_token_first_equals_full_grammar_greedy(model_path: str) -> None:
    """The fast path picks exactly the token llama.cpp's full-vocabulary grammar would."""
    fresh = LlamaCppProvider(model_path, n_ctx=1024, n_threads=1, max_prompt_tokens=512)
    try:
        generation = await fresh.generate(MESSAGES, schema=SCHEMA, max_output_tokens=40,
                                          deadline_s=60)
    finally:
        await fresh.close()
    prompt = render_prompt(MESSAGES, None, "", "")
    expected = await asyncio.to_thread(_reference_completion, model_path, prompt, 40)
    assert generation.text == expected
    assert generation.picks_at_width.get(1, 0) > 0
