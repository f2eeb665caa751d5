"""A provider that replays a script, for tests (and for users testing their hosts).

Each step is a completion text, an exception to raise, or a callable that builds
the text from the request. `token_delay_s` makes it "stream" at a given rate on
the clock so cancellation can be tested: the call sleeps once per token and a
cancelled call stops at the next token. Every request received is kept in
`requests` so tests can assert what reached the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from companion_memory.agent.model.provider import ModelError, ModelRequest, ModelResponse

Step = str | BaseException | Callable[[ModelRequest], str]


class ScriptedProvider:
    name = "scripted"

    def __init__(
        self,
        steps: Iterable[Step] = (),
        *,
        token_delay_s: float = 0.0,
        repeat_last: bool = False,
        sleep: Callable[[float], Any] | None = None,
    ) -> None:
        self._steps: list[Step] = list(steps)
        self._token_delay_s = token_delay_s
        self._repeat_last = repeat_last
        self._sleep = sleep or asyncio.sleep
        self.requests: list[ModelRequest] = []
        self.cancelled = 0
        self.completed = 0

    def push(self, *steps: Step) -> None:
        self._steps.extend(steps)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if not self._steps:
            raise ModelError("the scripted provider has no step left")
        keep = self._repeat_last and len(self._steps) == 1
        step = self._steps[0] if keep else self._steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        text = step(request) if callable(step) else step
        tokens = max(1, len(text) // 4)
        try:
            if self._token_delay_s > 0:
                for _ in range(tokens):
                    await self._sleep(self._token_delay_s)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.completed += 1
        prompt_tokens = sum(len(m.content) for m in request.messages) // 4
        return ModelResponse(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=tokens,
            provider=self.name,
        )

    async def prepare(self) -> None:
        return None

    async def close(self) -> None:
        return None
