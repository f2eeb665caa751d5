"""OpenAICompatibleProvider: a real llama_cpp.server on loopback, and a scripted loopback server."""

from __future__ import annotations

import asyncio
import gzip
import socket
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from companion_memory.agent.model.openai_http import OpenAICompatibleProvider
from companion_memory.agent.model.provider import (
    Message,
    ModelError,
    ModelOutputError,
    ModelRequest,
    ModelTimeoutError,
    ModelUnavailableError,
)
from companion_memory.agent.model.settings import ProviderConfigError
from tests.model.loopback import LoopbackServer

TINY = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}
MESSAGES = (Message("system", "Reply with JSON."), Message("user", "Is the sky blue?"))
REPO = Path(__file__).resolve().parents[2]
SERVER_START_S = 60.0  # importing the server and loading the model; usually ~3 s


def request(max_output_tokens: int = 16, deadline_s: float = 60.0) -> ModelRequest:
    return ModelRequest("notifications", MESSAGES, TINY, max_output_tokens=max_output_tokens,
                        deadline_s=deadline_s)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def llama_server(model_path: str) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server with the small model, once per module."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.model.llama_server", "--model", model_path,
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "512", "--n_threads", "1",
         "--verbose", "False", "--model_alias", "small"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode} before it was ready")
            try:
                if httpx.get(f"{base}/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not become ready")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.llama
async def test_real_server_json_object_schema_completion(llama_server: str) -> None:
    provider = OpenAICompatibleProvider(llama_server, "small", response_format_kind="json_object")
    try:
        response = await provider.complete(request())
        assert set(orjson.loads(response.text)) == {"ok"}
        assert response.provider == "openai"
        assert response.prompt_tokens > 0 and response.completion_tokens > 0
        assert provider.calls == 1
    finally:
        await provider.close()


@pytest.mark.llama
async def test_real_server_without_json_schema_support_is_an_explicit_error(
    llama_server: str,
) -> None:
    provider = OpenAICompatibleProvider(llama_server, "small")  # OpenAI's json_schema form
    try:
        with pytest.raises(ModelError) as caught:
            await provider.complete(request())
        assert caught.value.code in ("model_request_rejected", "model_server_error")
    finally:
        await provider.close()


@pytest.mark.llama
async def test_real_server_cut_output_is_reported_not_raised_raw(llama_server: str) -> None:
    provider = OpenAICompatibleProvider(llama_server, "small", response_format_kind="json_object")
    try:
        with pytest.raises(ModelOutputError, match="cut at max_output_tokens"):
            await provider.complete(request(max_output_tokens=2))
        again = await provider.complete(request())
        assert "ok" in orjson.loads(again.text)
    finally:
        await provider.close()


async def test_ok_sends_schema_and_key_and_counts_usage() -> None:
    async with LoopbackServer("ok") as server:
        provider = OpenAICompatibleProvider(
            server.base_url, "m", api_key_env="CM_TEST_KEY", environ={"CM_TEST_KEY": "sk-secret"}
        )
        response = await provider.complete(request())
        await provider.close()
    headers, body = server.requests[0]
    assert headers["authorization"] == "Bearer sk-secret"
    assert body["response_format"]["json_schema"]["schema"] == TINY
    assert body["max_tokens"] == 16
    assert (response.prompt_tokens, response.completion_tokens) == (11, 5)


@pytest.mark.parametrize(
    ("behaviour", "error", "message"),
    [
        ("invalid_json", ModelOutputError, "not valid JSON"),
        ("extra_fields", ModelOutputError, "unexpected field 'drop_table'"),
        ("not_json_body", ModelOutputError, "response body is not JSON"),
        ("status_500", ModelError, "HTTP 500"),
    ],
)
async def test_bad_answers_become_typed_errors(
    behaviour: str, error: type[ModelError], message: str
) -> None:
    async with LoopbackServer(behaviour) as server:
        provider = OpenAICompatibleProvider(server.base_url, "m", response_format_kind="none")
        with pytest.raises(error, match=message) as caught:
            await provider.complete(request())
        await provider.close()
    assert "response_format" not in server.requests[0][1]
    assert "x" * 50 not in caught.value.reason  # model text never lands in the reason


async def test_slow_server_times_out_at_the_deadline() -> None:
    async with LoopbackServer("slow") as server:
        provider = OpenAICompatibleProvider(server.base_url, "m", timeout_s=30.0)
        with pytest.raises(ModelTimeoutError, match=r"within 0\.3 s"):
            await provider.complete(request(deadline_s=0.3))
        await asyncio.wait_for(server.disconnected.wait(), 5)
        await provider.close()


async def test_cancel_drops_the_request_and_provider_stays_usable() -> None:
    async with LoopbackServer("slow") as server:
        provider = OpenAICompatibleProvider(server.base_url, "m")
        task = asyncio.create_task(provider.complete(request()))
        await asyncio.wait_for(server.received.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.wait_for(server.disconnected.wait(), 5)
        server.behaviour = "ok"
        response = await provider.complete(request())
        assert orjson.loads(response.text) == {"ok": True}
        await provider.close()


async def test_missing_key_and_unreachable_server_are_unavailable() -> None:
    provider = OpenAICompatibleProvider(
        f"http://127.0.0.1:{_free_port()}/v1", "m", api_key_env="CM_ABSENT_KEY", environ={}
    )
    with pytest.raises(ModelUnavailableError, match="CM_ABSENT_KEY is not set"):
        await provider.complete(request())
    provider.api_key_env = None
    with pytest.raises(ModelUnavailableError, match="cannot reach"):
        await provider.complete(request())
    await provider.close()
    with pytest.raises(ModelUnavailableError, match="closed"):
        await provider.complete(request())


async def test_key_never_appears_in_errors() -> None:
    async with LoopbackServer("status_500") as server:
        provider = OpenAICompatibleProvider(
            server.base_url, "m", api_key_env="CM_K", environ={"CM_K": "sk-very-secret"}
        )
        with pytest.raises(ModelError) as caught:
            await provider.complete(request())
        await provider.close()
    assert "sk-very-secret" not in str(caught.value) and "sk-very-secret" not in repr(caught.value)


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [({"base_url": "ftp://x"}, "base_url"), ({"model": ""}, "model"),
     ({"timeout_s": 0}, "timeout_s"), ({"response_format_kind": "xml"}, "response_format")],
)
def test_invalid_construction_names_the_key(kwargs: dict[str, object], key: str) -> None:
    args: dict[str, object] = {"base_url": "http://127.0.0.1:1/v1", "model": "m", **kwargs}
    with pytest.raises(ProviderConfigError, match=f"provider setting {key}="):
        OpenAICompatibleProvider(**args)  # type: ignore[arg-type]




HUGE_BYTES = 64 * 1024 * 1024  # 64 times the limit
READ_BOUND = 16 * 1024 * 1024  # the limit plus loopback socket buffers, with room to spare


@pytest.mark.parametrize("behaviour", ["huge_declared", "huge_chunked", "huge_until_close"])
async def test_huge_body_stops_at_the_limit_with_the_typed_error(behaviour: str) -> None:
    async with LoopbackServer(behaviour, huge_bytes=HUGE_BYTES) as server:
        provider = OpenAICompatibleProvider(server.base_url, "m")
        with pytest.raises(ModelOutputError, match="over 1000000 bytes") as caught:
            await provider.complete(request())
        await provider.close()
        await asyncio.wait_for(server.answered.wait(), 30)
    # The client closed the connection long before the server could send it all.
    assert server.sent < READ_BOUND
    assert caught.value.code == "model_output_invalid"


async def test_lying_content_length_reads_only_what_was_declared() -> None:
    async with LoopbackServer("huge_lying_length", huge_bytes=HUGE_BYTES) as server:
        provider = OpenAICompatibleProvider(server.base_url, "m")
        with pytest.raises(ModelOutputError, match="not JSON"):
            await provider.complete(request())
        await provider.close()
        await asyncio.wait_for(server.answered.wait(), 30)
    assert server.sent < READ_BOUND


async def test_compressed_body_inflates_only_up_to_the_limit() -> None:
    async with LoopbackServer("huge_gzip", huge_bytes=HUGE_BYTES) as server:
        provider = OpenAICompatibleProvider(server.base_url, "m")
        tracemalloc.start()
        try:
            with pytest.raises(ModelOutputError, match="over 1000000 bytes"):
                await provider.complete(request())
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        await provider.close()
    assert peak < READ_BOUND
    assert server.requests[0][0]["accept-encoding"] == "identity"


async def test_small_compressed_body_is_decoded() -> None:
    answer = orjson.dumps({
        "choices": [{"message": {"content": '{"ok": true}'}, "finish_reason": "stop"}],
    })
    gzip_body = gzip.compress(answer)

    def handler(_: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, stream=httpx.ByteStream(gzip_body), headers={"Content-Encoding": "gzip"}
        )

    provider = OpenAICompatibleProvider(
        "http://127.0.0.1:1/v1", "m", transport=httpx.MockTransport(handler)
    )
    response = await provider.complete(request())
    await provider.close()
    assert orjson.loads(response.text) == {"ok": True}
