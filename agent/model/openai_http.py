"""`OpenAICompatibleProvider`: chat completions over HTTP (llama.cpp server, Ollama, vLLM, cloud).

The request asks for JSON with `response_format` where the server supports it
(`response_format_kind`: "json_schema" is the OpenAI form, "json_object" with
a `schema` is llama-cpp-python's server form, "none" sends nothing). Whatever
the server promises, the completion is always parsed and validated against the
request's schema: invalid JSON, extra fields or an over-long string become a
`ModelOutputError` with a reason, never a crash.

The API key is read, at call time, from the environment variable named by
`api_key_env`; it is sent as a bearer token and never logged or put into an
error. A missing variable is `ModelUnavailableError` (naming the variable).

Timeouts: each call is bounded by min(`timeout_s`, `request.deadline_s`) in
total (connect, send, wait and read); past it the call raises
`ModelTimeoutError`. Cancellation: cancelling the awaiting task closes the
HTTP request (the connection is dropped) and re-raises `CancelledError`; the
provider stays usable.
"""

from __future__ import annotations

import asyncio
import os
import time
import zlib
from collections.abc import Mapping
from typing import Any

import httpx
import orjson

from companion_memory.agent.model.provider import (
    ModelError,
    ModelOutputError,
    ModelRequest,
    ModelResponse,
    ModelTimeoutError,
    ModelUnavailableError,
)
from companion_memory.agent.model.schema_tools import parse_completion
from companion_memory.agent.model.settings import RESPONSE_FORMATS, ProviderConfigError

MAX_RESPONSE_BYTES = 1_000_000  # a chat completion for one batch is a few KiB; refuse more


class OpenAICompatibleProvider:
    """A chat-completions endpoint at `base_url` (e.g. "http://127.0.0.1:8080/v1")."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = None,
        timeout_s: float = 60.0,
        use_response_format: bool = True,
        response_format_kind: str = "json_schema",
        environ: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ProviderConfigError("base_url", base_url, "an http:// or https:// URL")
        if not model:
            raise ProviderConfigError("model", model, "the server's model name")
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
            raise ProviderConfigError("timeout_s", timeout_s, "a positive number of seconds")
        if response_format_kind not in RESPONSE_FORMATS:
            raise ProviderConfigError(
                "response_format", response_format_kind, f"one of {', '.join(RESPONSE_FORMATS)}"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.timeout_s = float(timeout_s)
        self.response_format_kind = response_format_kind if use_response_format else "none"
        self._environ = environ if environ is not None else os.environ
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._closed = False
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def _headers(self) -> dict[str, str]:
        # Ask for an uncompressed answer; a compressed one is still decoded, within the limit.
        headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
        if self.api_key_env:
            key = self._environ.get(self.api_key_env, "")
            if not key:
                raise ModelUnavailableError(
                    f"the API key variable {self.api_key_env} is not set; export it or "
                    "configure a provider that needs no key"
                )
            headers["Authorization"] = f"Bearer {key}"
        return headers

    async def _get_client(self) -> httpx.AsyncClient:
        if self._closed:
            raise ModelUnavailableError("the HTTP provider is closed")
        if self._client is None:
            # Building a client loads CA certificates from disk: keep that off the loop.
            transport = self._transport
            self._client = await asyncio.to_thread(
                lambda: httpx.AsyncClient(transport=transport, trust_env=False)
            )
        return self._client

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_output_tokens,
            "temperature": 0,
            "stream": False,
        }
        if self.response_format_kind == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.scenario, "schema": request.schema, "strict": True},
            }
        elif self.response_format_kind == "json_object":
            body["response_format"] = {"type": "json_object", "schema": request.schema}
        return body

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        headers = self._headers()
        client = await self._get_client()
        limit = min(self.timeout_s, request.deadline_s)
        url = f"{self.base_url}/chat/completions"
        try:
            async with asyncio.timeout(limit):
                status, content = await self._post(client, url, headers, request, limit)
        except (TimeoutError, httpx.TimeoutException) as err:
            raise ModelTimeoutError(
                f"the server at {self.base_url} did not answer within {limit:g} s"
            ) from err
        except httpx.HTTPError as err:
            raise ModelUnavailableError(
                f"cannot reach the model server at {self.base_url} ({type(err).__name__})"
            ) from err
        payload = self._payload(status, content)
        text, finish = self._content(payload)
        raw_usage = payload.get("usage")
        usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
        prompt_tokens = _count(usage.get("prompt_tokens"), request)
        completion_tokens = _count(usage.get("completion_tokens"), None, text)
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        try:
            parse_completion(text, request.schema)
        except ModelOutputError as err:
            if finish == "length":
                raise ModelOutputError(
                    f"the completion was cut at max_output_tokens ({request.max_output_tokens}); "
                    f"{err.reason}"
                ) from None
            raise
        return ModelResponse(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            provider=self.name,
            elapsed_s=time.perf_counter() - started,
        )

    async def _post(
        self,
        client: httpx.AsyncClient,
        url: str,
        headers: dict[str, str],
        request: ModelRequest,
        limit: float,
    ) -> tuple[int, bytes]:
        """Send the request; return the status and at most `MAX_RESPONSE_BYTES` of body.

        The body is streamed, and reading stops (the connection is closed) as soon
        as the decoded bytes pass the limit, whatever the server declared: a
        chunked body, a Content-Length that understates it or a compressed body
        that inflates cost at most the limit plus one network chunk in memory
        (decompression is bounded too). A declared Content-Length over the limit
        is refused before any of the body is read.
        """
        async with client.stream(
            "POST",
            url,
            content=orjson.dumps(self._body(request)),
            headers=headers,
            timeout=httpx.Timeout(limit),
        ) as response:
            status = response.status_code
            if status >= 400:
                return status, b""  # the status alone decides; the error body is not read
            declared = response.headers.get("content-length", "")
            if declared.strip().isdigit() and int(declared) > MAX_RESPONSE_BYTES:
                raise _over_limit()
            body = _BoundedBody(response.headers.get("content-encoding", ""))
            async for chunk in response.aiter_raw():
                body.feed(chunk)
            return status, body.finish()

    def _payload(self, status: int, content: bytes) -> dict[str, Any]:
        if status in (401, 403):
            raise ModelUnavailableError(
                f"the model server refused the credentials (HTTP {status}); "
                f"check {self.api_key_env or 'the API key variable'}"
            )
        if status == 429:
            raise ModelError(f"the model server is rate limiting (HTTP {status})",
                             code="model_rate_limited")
        if status >= 500:
            raise ModelError(f"the model server failed (HTTP {status})", code="model_server_error")
        if status >= 400:
            raise ModelError(
                f"the model server rejected the request (HTTP {status}); check model name "
                "and response_format support", code="model_request_rejected"
            )
        try:
            payload = orjson.loads(content)
        except orjson.JSONDecodeError:
            raise ModelOutputError("the server's response body is not JSON") from None
        if not isinstance(payload, dict):
            raise ModelOutputError("the server's response is not a JSON object")
        return payload

    @staticmethod
    def _content(payload: dict[str, Any]) -> tuple[str, str | None]:
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ModelOutputError("the response has no choices")
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise ModelOutputError("the response's first choice has no text content")
        finish = choices[0].get("finish_reason")
        return content, finish if isinstance(finish, str) else None

    def stats(self) -> dict[str, Any]:
        return {
            "provider": self.name,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    async def prepare(self) -> None:
        """Nothing to load: the server holds the model."""
        return None

    async def close(self) -> None:
        """Close the HTTP client; idempotent."""
        self._closed = True
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


class _BoundedBody:
    """A response body decoded by hand so that neither it nor its inflation passes the limit.

    httpx's own decoding inflates a whole network chunk at once (a few KiB of
    deflate can become many MB); here each chunk is inflated at most up to the
    room left under `MAX_RESPONSE_BYTES`, plus one byte to see that it is over.
    """

    def __init__(self, content_encoding: str) -> None:
        encoding = content_encoding.strip().lower()
        self._inflate: Any = None
        if encoding == "gzip":
            self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._inflate = zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib or gzip framing
        elif encoding not in ("", "identity"):
            raise ModelOutputError(
                "the server's response uses a content encoding this provider does not "
                "decode; allowed: identity, gzip, deflate"
            )
        self._parts: list[bytes] = []
        self._size = 0

    def feed(self, raw: bytes) -> None:
        if self._inflate is None:
            self._add(raw)
            return
        room = MAX_RESPONSE_BYTES - self._size
        try:
            self._add(self._inflate.decompress(raw, room + 1))
        except zlib.error as err:
            raise ModelOutputError("the server's compressed response cannot be decoded") from err

    def finish(self) -> bytes:
        if self._inflate is not None:
            if self._inflate.unconsumed_tail:
                raise _over_limit()
            try:
                self._add(self._inflate.flush())
            except zlib.error as err:
                raise ModelOutputError(
                    "the server's compressed response cannot be decoded"
                ) from err
        return b"".join(self._parts)

    def _add(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > MAX_RESPONSE_BYTES:
            raise _over_limit()
        self._parts.append(data)


def _over_limit() -> ModelOutputError:
    return ModelOutputError(
        f"the response is over {MAX_RESPONSE_BYTES} bytes; the reading stopped there"
    )


def _count(value: object, request: ModelRequest | None, text: str = "") -> int:
    """A usage figure from the server, else an estimate (4 characters a token) for budgets."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if request is not None:
        return sum(len(m.content) for m in request.messages) // 4
    return len(text) // 4
