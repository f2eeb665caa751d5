"""Each `[provider]` setting does what its docstring says, set in a config file and observed
through a `Runtime`: an OpenAI-compatible server on loopback records what reaches it (it
answers `{"ok": true}`, which no scenario accepts, so a call is seen and the work stays
pending); the `[provider.llama]` keys load the bundled test model (marked `llama`)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory import Runtime
from companion_memory.core.clock import FakeClock
from companion_memory.device.config import Config
from companion_memory.memory import Tier
from tests.episodes.helpers import topic_episode
from tests.model.loopback import LoopbackServer
from tests.settings_helpers import START, Recording, configured, days, note, running

KEY_VAR = "COMPANION_SETTINGS_TEST_KEY"
BODIES = ["Dinner at Luigi's on Saturday at 7", "The plumber comes on Monday morning",
          "Ben's birthday party is on Friday evening"]


class AnsweringServer(LoopbackServer):
    """Answers each call with a valid answer built from the schema it was sent: one new
    memory per notification (its statement the notification's anchor)."""

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        _, body = self.requests[-1]
        schema = body["response_format"]["json_schema"]["schema"]
        answer = {}
        for key, entry in schema["properties"].items():
            props = entry["properties"]
            about = props["about"]["const"]
            answer[key] = {"about": about, "a": "new", "t": f"Said: {about}",
                           "k": props["k"]["enum"][0], "r": 0}
        return 200, orjson.dumps({
            "choices": [{"message": {"role": "assistant", "content": orjson.dumps(answer).decode()},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5},
        })


def openai_toml(base_url: str, provider: str = "", openai: str = "") -> str:
    return (f'[provider]\nkind = "openai"\n{provider}'
            f'[provider.openai]\nbase_url = "{base_url}"\nmodel = "tiny-model"\n{openai}')


async def round_with(tmp_path: Path, cfg: Config, *, notes: int = 1,
                     rounds: int = 1) -> tuple[Runtime, Any]:
    """Feed `notes` notifications and run `rounds` rounds (a failed batch backs off by the
    idle delay: the fake clock passes it between rounds); the runtime is closed after."""
    clock = FakeClock(START)
    report = None
    async with running(tmp_path, cfg, clock=clock) as runtime:
        await runtime.feed([note(f"k{i}", body, title=f"P{i}")
                            for i, body in enumerate(BODIES[:notes])])
        for _ in range(rounds):
            report = await runtime.run_once()
            await clock.advance(cfg.worker.idle_delay_s)
        pending = await runtime.pending_count()
        memories = len(await runtime.list_memories())
        status = (await runtime.status()).provider
    return runtime, (report, pending, memories, status)


async def test_kind_chooses_the_provider(tmp_path: Path) -> None:
    async with LoopbackServer() as server:
        cfg = await configured(tmp_path / "d", "")
        _, (_, pending, memories, status) = await round_with(tmp_path / "d", cfg)
        assert (status["name"], pending, memories) == ("deterministic", 0, 1)
        assert server.requests == []
        cfg = await configured(tmp_path / "o", openai_toml(server.base_url))
        _, (_, pending, memories, status) = await round_with(tmp_path / "o", cfg)
        assert len(server.requests) == 1 and (pending, memories) == (1, 0)
        assert "openai" in status["name"]


async def test_the_openai_table_is_what_the_server_gets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`base_url` (the server reached), `model`, `api_key_env` (the key of that variable
    as a bearer token) and `response_format`."""
    monkeypatch.setenv(KEY_VAR, "not-a-real-key")
    async with LoopbackServer() as server:
        for fmt in ("json_schema", "json_object", "none"):
            cfg = await configured(tmp_path / fmt, openai_toml(
                server.base_url, openai=f'api_key_env = "{KEY_VAR}"\nresponse_format = "{fmt}"\n'))
            await round_with(tmp_path / fmt, cfg)
        formats = [body.get("response_format", {}).get("type") for _, body in server.requests]
        assert formats == ["json_schema", "json_object", None]
        for headers, body in server.requests:
            assert body["model"] == "tiny-model"
            assert headers["authorization"] == "Bearer not-a-real-key"


async def test_max_output_tokens_caps_every_call(tmp_path: Path) -> None:
    async with LoopbackServer() as server:
        for cap in (64, 1024):
            cfg = await configured(tmp_path / str(cap), openai_toml(
                server.base_url, provider=f"max_output_tokens = {cap}\n"))
            await round_with(tmp_path / str(cap), cfg)
        small, large = (body["max_tokens"] for _, body in server.requests)
    assert small <= 64 < large


async def test_deadline_s_bounds_a_model_call(tmp_path: Path) -> None:
    """A server that never answers: the call is dropped at the deadline (0.5 s), the batch
    fails with `model_timeout` and stays pending. With the default (120 s) this test would
    outlive its own time limit."""
    async with LoopbackServer("slow") as server:
        cfg = await configured(tmp_path, openai_toml(server.base_url,
                                                     provider="deadline_s = 0.5\n"))
        _, (report, pending, _, _) = await round_with(tmp_path, cfg)
        await asyncio.wait_for(server.disconnected.wait(), 60)
    notes = report.report_for("notifications")
    assert notes.error is not None and "timeout" in notes.error and pending == 1


@pytest.mark.parametrize("calls", [1, 2])
async def test_daily_calls_is_the_calls_a_day_allows(tmp_path: Path, calls: int) -> None:
    async with LoopbackServer() as server:
        cfg = await configured(tmp_path, openai_toml(
            server.base_url, provider=f"daily_calls = {calls}\n"))
        await round_with(tmp_path, cfg, rounds=3)
        assert len(server.requests) == calls


@pytest.mark.parametrize(("tokens", "calls"), [(20, 2), (10_000_000, 3)])
async def test_daily_tokens_is_the_tokens_a_day_allows(
    tmp_path: Path, tokens: int, calls: int,
) -> None:
    """The server reports 16 tokens a call: 20 allow two calls (16 used is under 20), then
    the budget is spent and the third notification waits."""
    async with AnsweringServer() as server:
        cfg = await configured(tmp_path, openai_toml(
            server.base_url, provider=f"daily_tokens = {tokens}\n") + "[intake]\nbatch_size = 1\n")
        _, (_, pending, memories, _) = await round_with(tmp_path, cfg, notes=3)
        assert len(server.requests) == calls
        assert (memories, pending) == (calls, 3 - calls)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize(("fallback", "memories"), [("deterministic", 1), ("none", 0)])
async def test_fallback_is_used_only_when_named(
    tmp_path: Path, fallback: str, memories: int,
) -> None:
    """No server at `base_url`: the named fallback writes the memory; without one the
    notification stays pending."""
    port = await asyncio.to_thread(closed_port)
    cfg = await configured(tmp_path, openai_toml(f"http://127.0.0.1:{port}/v1",
                                                 provider=f'fallback = "{fallback}"\n'))
    _, (_, pending, written, _) = await round_with(tmp_path, cfg)
    assert (written, pending) == (memories, 1 - memories)


# [provider.llama] --------------------------------------------------------------------


async def test_model_path_names_the_model_file(tmp_path: Path) -> None:
    """A path with no model behind it: the runtime opens, names the problem, and the work
    waits (the bundled model loads under `"small"`: the llama tests below)."""
    missing = tmp_path / "no-such-model.gguf"
    cfg = await configured(tmp_path, f'[provider]\nkind = "llama"\n'
                                     f'[provider.llama]\nmodel_path = "{missing}"\n')
    async with running(tmp_path, cfg) as runtime:
        await runtime.feed([note("a", BODIES[0])])
        await runtime.run_once()
        status = await runtime.status()
        assert status.provider_problem is not None
        assert await runtime.pending_count() == 1


def llama_toml(extra: str) -> str:
    return f'[provider]\nkind = "llama"\n[provider.llama]\nmodel_path = "small"\n{extra}'


def engine_of(runtime: Runtime) -> Any:
    """The loaded llama.cpp engine behind the runtime's budgeted provider."""
    return runtime._provider.inner._engine  # type: ignore[union-attr]


@pytest.mark.llama
@pytest.mark.parametrize("preload", [True, False])
async def test_preload_loads_the_model_when_the_runtime_opens(
    tmp_path: Path, preload: bool,
) -> None:
    cfg = await configured(tmp_path, llama_toml(f"preload = {str(preload).lower()}\n"))
    async with running(tmp_path, cfg) as runtime:
        assert (await runtime.status()).provider["stats"]["loaded"] is preload


@pytest.mark.llama
async def test_n_ctx_and_n_threads_are_the_loaded_models(tmp_path: Path) -> None:
    cfg = await configured(tmp_path, llama_toml(
        "preload = true\nn_ctx = 1024\nmax_prompt_tokens = 512\nn_threads = 1\n"))
    async with running(tmp_path, cfg) as runtime:
        llm = engine_of(runtime).llm
        assert llm.n_ctx() == 1024
        assert llm.context_params.n_threads == 1


@pytest.mark.llama
async def test_max_prompt_tokens_refuses_a_longer_prompt(tmp_path: Path) -> None:
    """A notification prompt is several hundred tokens: over a 64-token limit the call is
    refused as `prompt_too_long` before any decoding (and the day's work is not lost)."""
    cfg = await configured(tmp_path, llama_toml("n_ctx = 256\nmax_prompt_tokens = 64\n"))
    async with running(tmp_path, cfg) as runtime:
        await runtime.feed([note("a", BODIES[0])])
        report = await runtime.run_once()
        stats = (await runtime.status()).provider["stats"]
    notes = report.report_for("notifications")
    assert notes is not None and notes.error is not None and "prompt_too_long" in notes.error
    assert stats["completion_tokens"] == 0


# the environment overrides ------------------------------------------------------------


async def test_env_provider_overrides_the_files_kind(tmp_path: Path) -> None:
    """`COMPANION_MEMORY_PROVIDER=openai` over a file that only describes the server."""
    async with LoopbackServer() as server:
        toml = f'[provider.openai]\nbase_url = "{server.base_url}"\nmodel = "tiny-model"\n'
        cfg = await configured(tmp_path, toml, env={"COMPANION_MEMORY_PROVIDER": "openai"})
        _, (_, pending, _, _) = await round_with(tmp_path, cfg)
        assert len(server.requests) == 1 and pending == 1


@pytest.mark.llama
async def test_env_llama_model_overrides_the_files_model_path(tmp_path: Path) -> None:
    """`COMPANION_MEMORY_LLAMA_MODEL=small` over a file naming a model that is not there:
    the bundled model is used and no problem is reported."""
    toml = ('[provider]\nkind = "llama"\n[provider.llama]\n'
            f'model_path = "{tmp_path / "missing.gguf"}"\n')
    for env, problem in (({}, True), ({"COMPANION_MEMORY_LLAMA_MODEL": "small"}, False)):
        where = tmp_path / str(problem)
        cfg = await configured(where, toml, env=env)
        async with running(where, cfg) as runtime:
            assert ((await runtime.status()).provider_problem is not None) is problem


@pytest.mark.parametrize(("scenarios", "asked"), [
    ("all", {"notifications", "episodes", "sweep"}),
    ("episodes_and_sweep", {"episodes", "sweep"}),
    ("sweep", {"sweep"}),
])
async def test_scenarios_is_what_the_model_extracts_for(
    tmp_path: Path, scenarios: str, asked: set[str],
) -> None:
    """A day of notifications, a completed task and the day's sweep, with a model that
    answers as the rules would: only the named scenarios reach it; the others are
    extracted by the rules all the same (a memory per notification, a swept day)."""
    model = Recording()
    cfg = await configured(tmp_path, f'[sweep]\nzone = "UTC"\n'
                                     f'[provider]\nscenarios = "{scenarios}"\n')
    clock = FakeClock(START)
    async with running(tmp_path, cfg, clock=clock, provider=model) as runtime:
        await runtime.feed([note(f"k{i}", body, title=f"P{i}")
                            for i, body in enumerate(BODIES)])
        await runtime.record_episode(topic_episode(0))
        await runtime.run_once()
        written = len(await runtime.list_memories(tier=Tier.TEMPORARY))
        clock.set_wall(START + days(2))
        report = await runtime.run_once()
        status = (await runtime.status()).provider
    assert {r.scenario for r in model.requests} == asked
    assert written == len(BODIES)
    sweep = report.report_for("sweep")
    assert sweep is not None and sweep.extra["dates"]
    assert status["scenarios"] == scenarios
