"""LlamaCppProvider against the real small model: grammar, limits, cancellation, bad files."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from companion_memory.agent.model.llama import LlamaCppProvider
from companion_memory.agent.model.llama_buffers import (
    cpu_extra_buffer_types,
    model_params_with,
    plan_extra_buffers,
)
from companion_memory.agent.model.llama_engine import (
    PROMPT_CHUNK,
    STEP_TOKENS,
    GenerationCancelled,
    Job,
    LlamaEngine,
    render_prompt,
)
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


async def test_cancel_stops_within_one_decode_and_model_stays_usable(
    provider: LlamaCppProvider,
) -> None:
    """Through the provider: cancelling the awaiting task stops the thread after at most
    one decode and `STEP_TOKENS` tokens, wherever the cancel lands."""
    task = asyncio.create_task(
        provider.generate(MESSAGES, schema=None, max_output_tokens=400, deadline_s=600)
    )
    for _ in range(6000):  # until the answer has begun (the model may still be loading)
        if provider.tokens_in_flight >= 5 or task.done():
            break
        await asyncio.sleep(0.01)
    assert provider.tokens_in_flight >= 5
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    report = provider.last_cancel
    assert report is not None
    assert report.decodes_after_cancel <= 1
    assert report.tokens_after_cancel <= STEP_TOKENS
    assert provider.tokens_in_flight == 0  # the thread has stopped when the task is done
    response = await provider.complete(request(TINY, max_output_tokens=12))
    assert "ok" in orjson.loads(response.text)


# A long constant (fixed text of more than STEP_TOKENS tokens), a string the prompt spells
# out (drafts) and an enum: every kind of step the decoding loop takes.
CONSTANT = ("companion memory notification contract, compact form, version one, "
            "written for the wearer of the ring")
STEPS_SCHEMA = {
    "type": "object",
    "properties": {
        "v": {"const": CONSTANT},
        "t": {"type": "string", "maxLength": 90},
        "k": {"enum": ["keep", "ignore"]},
    },
    "required": ["v", "t", "k"],
    "additionalProperties": False,
}
STEPS_MESSAGES = (Message("user", "Repeat this JSON exactly: " + orjson.dumps({
    "v": CONSTANT, "t": "Dinner with Anna at the Italian place on Friday at seven.",
    "k": "keep"}).decode()),)


class _CancelAfterLook(threading.Event):
    """A cancel flag that is set right after the engine's `n`-th look at it, the worst
    moment for whatever the engine does next (it saw no cancel and goes on)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.looks = 0
        self.job: Job | None = None

    def is_set(self) -> bool:
        seen = super().is_set()
        self.looks += 1
        if self.looks == self.n and self.job is not None:
            self.job.cancel(time.monotonic())
        return seen


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("schema", "limit"), [(STEPS_SCHEMA, 96), (None, 40)])
def test_a_cancel_after_any_look_stops_within_one_decode_and_one_step(
    model_path: str, schema: dict[str, Any] | None, limit: int
) -> None:
    """The cancel contract at every point a cancel can land, with the real engine: once
    the flag is set, at most one llama_decode runs (counted on llama.cpp's context, not by
    the engine) and at most STEP_TOKENS tokens are added; then the same call answers as
    before, from the cache the cancelled calls left."""
    engine = LlamaEngine(model_path, n_ctx=1024, n_threads=1, seed=0)
    decodes: list[bool] = []  # per llama_decode: whether the cancel flag was set when it began
    flag: _CancelAfterLook | None = None
    real_decode = engine.llm._ctx.decode

    def counted_decode(batch: Any) -> None:
        decodes.append(flag is not None and threading.Event.is_set(flag))
        real_decode(batch)

    engine.llm._ctx.decode = counted_decode
    try:
        whole = engine.generate(Job(STEPS_MESSAGES, schema, limit, deadline=float("inf"),
                                    max_prompt_tokens=512))
        if schema is not None:  # the schema exercises what it is meant to
            assert whole.stopped == "eog"
            assert whole.forced_tokens > STEP_TOKENS and whole.drafted_tokens > 0
        else:
            assert whole.drafted_tokens > 0
        cancelled = 0
        for n in range(1, 1000):
            engine.llm.reset()  # every run evaluates the whole prompt: cancels land there too
            flag = _CancelAfterLook(n)
            job = Job(STEPS_MESSAGES, schema, limit, deadline=float("inf"),
                      max_prompt_tokens=512, cancel_event=flag)
            flag.job = job
            decodes.clear()
            try:
                generation = engine.generate(job)
            except GenerationCancelled:
                cancelled += 1
            else:  # it ended before its n-th look, or nothing was left to do after it
                assert generation.text == whole.text
                if flag.looks < n:
                    break  # every point has been tried
            assert job.tokens_at_cancel is not None
            after = sum(decodes)
            assert after <= 1, f"{after} decodes ran after a cancel at look {n}"
            added = job.completion_tokens - job.tokens_at_cancel
            assert added <= STEP_TOKENS, f"{added} tokens added after a cancel at look {n}"
            assert job.decodes_at_cancel is not None  # the engine counts what llama.cpp ran
            assert job.decodes - job.decodes_at_cancel == after
        assert cancelled > whole.decodes
        again = engine.generate(Job(STEPS_MESSAGES, schema, limit, deadline=float("inf"),
                                    max_prompt_tokens=512))
        assert again.text == whole.text
        assert again.reused_prefix_tokens > 0
    finally:
        engine.close()


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


def test_without_llama_cpp_python_the_provider_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A user who picks the llama provider without the `llama` extra is told what to install
    when the provider is built, not with a model error at the first call."""
    find_spec = importlib.util.find_spec

    def without_llama_cpp(name: str, package: str | None = None) -> Any:
        return None if name == "llama_cpp" else find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_llama_cpp)
    with pytest.raises(ProviderConfigError,
                       match=r"kind='llama'.*pip install 'companion-memory\[llama\]'"):
        LlamaCppProvider("/any/model.gguf")


def _reference_completion(model_path: str, prompt: str, limit: int) -> str:
    """llama-cpp-python's own greedy generation with a full from_json_schema grammar."""
    import llama_cpp
    from llama_cpp.llama_grammar import LlamaGrammar

    # Prompt evaluated in the provider's chunk size and weights in the same buffer types
    # (never AMX's, which crash on some CPUs), so both see bit-identical logits.
    plan = plan_extra_buffers(cpu_extra_buffer_types())
    with model_params_with(use_extra_bufts=plan.use_extra):
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
