"""A tiny loopback HTTP server for provider failure cases (runs on the test's event loop).

Each request is answered by `behaviour`: "ok", "invalid_json", "extra_fields",
"status_500", "not_json_body", "slow", or one of the oversized answers of
`HUGE_BEHAVIOURS` (each `huge_bytes` long): "huge_declared" (an honest
Content-Length), "huge_chunked" (chunked, no length), "huge_until_close" (no
length, the body ends when the connection does), "huge_lying_length" (a small
Content-Length, then the whole body anyway) and "huge_gzip" (a small gzip body
that inflates to `huge_bytes`). It records what it received (headers, body),
whether the client dropped the connection while it waited, and for the huge
answers how many body bytes it managed to hand to the socket before the client
closed (`sent`, set when `answered` is).
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from typing import Any

import orjson

HUGE_BEHAVIOURS = (
    "huge_declared", "huge_chunked", "huge_until_close", "huge_lying_length", "huge_gzip",
)
_PIECE = b"x" * 65_536  # one reused buffer: the server itself never holds the huge body


class LoopbackServer:
    def __init__(self, behaviour: str = "ok", *, huge_bytes: int = 0) -> None:
        self.behaviour = behaviour
        self.huge_bytes = huge_bytes
        self.sent = 0
        self.answered = asyncio.Event()
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.received = asyncio.Event()
        self.disconnected = asyncio.Event()
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def __aenter__(self) -> LoopbackServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            self.requests.append((headers, orjson.loads(body)))
            self.received.set()
            if self.behaviour in HUGE_BEHAVIOURS:
                await self._answer_huge(writer)
                return
            status, payload = await self._answer(reader)
            writer.write(
                f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.answered.set()
            writer.close()

    async def _answer_huge(self, writer: asyncio.StreamWriter) -> None:
        """Write an oversized body piece by piece, counting what the socket took, until refused."""
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
        if self.behaviour == "huge_declared":
            head += f"Content-Length: {self.huge_bytes}\r\n"
        elif self.behaviour == "huge_chunked":
            head += "Transfer-Encoding: chunked\r\n"
        elif self.behaviour == "huge_lying_length":
            head += "Content-Length: 2000\r\n"
        elif self.behaviour == "huge_gzip":
            body = _gzip_of_zeros(self.huge_bytes)
            head += f"Content-Encoding: gzip\r\nContent-Length: {len(body)}\r\n"
            writer.write(head.encode() + b"\r\n" + body)
            await writer.drain()
            self.sent = len(body)
            return
        writer.write(head.encode() + b"\r\n")
        while self.sent < self.huge_bytes:
            if self.behaviour == "huge_chunked":
                writer.write(f"{len(_PIECE):x}\r\n".encode() + _PIECE + b"\r\n")
            else:
                writer.write(_PIECE)
            await writer.drain()  # raises once the client has closed the connection
            self.sent += len(_PIECE)
        if self.behaviour == "huge_chunked":
            writer.write(b"0\r\n\r\n")
            await writer.drain()

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        content = '{"ok": true}'
        if self.behaviour == "slow":
            # Wait for more bytes that never come: EOF means the client dropped the request.
            with contextlib.suppress(TimeoutError):
                if await asyncio.wait_for(reader.read(1), 30) == b"":
                    self.disconnected.set()
        elif self.behaviour == "status_500":
            return 500, b'{"error": "boom"}'
        elif self.behaviour == "not_json_body":
            return 200, b"<html>gateway</html>"
        elif self.behaviour == "invalid_json":
            content = '{"ok": tru'
        elif self.behaviour == "extra_fields":
            content = '{"ok": true, "drop_table": 1}'
        answer = {
            "choices": [{"message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5},
        }
        return 200, orjson.dumps(answer)


def _gzip_of_zeros(size: int) -> bytes:
    """A gzip member that inflates to `size` zero bytes (about 1,000 to 1), built in pieces."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(len(_PIECE))
    parts = [deflate.compress(zeros) for _ in range(size // len(zeros))]
    parts.append(deflate.flush())
    return b"".join(parts)
