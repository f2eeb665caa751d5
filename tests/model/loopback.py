"""A tiny loopback HTTP server for provider failure cases (runs on the test's event loop).

Each request is answered by `behaviour`: "ok", "invalid_json", "extra_fields",
"status_500", "not_json_body", "slow". It records what it received
(headers, body) and whether the client dropped the connection while it waited.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import orjson


class LoopbackServer:
    def __init__(self, behaviour: str = "ok") -> None:
        self.behaviour = behaviour
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
            writer.close()

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
