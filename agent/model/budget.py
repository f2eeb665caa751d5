"""`BudgetedProvider`: a persistent daily budget of calls and tokens around any provider.

Usage lives in a small JSON file (`ledger_path`), replaced atomically through
`storage.atomic`; all file work runs on a worker thread, never on the event
loop. The day is the local day of the injected clock (`zone`, default the
system's local time zone); a new day starts from zero.

Before each call the budget is checked: when the calls or tokens used today
reach the limit, the call raises `BudgetExhaustedError` (the work stays
pending; nothing switches to another provider or to the rules unless a fallback
was configured explicitly). After each call (success, failure or cancellation) one call and
the tokens the response reported are recorded. Optional per-call caps
(`max_output_tokens`, `deadline_s`) lower what a request asks for. Cancellation: the record of a
cancelled call is still written (shielded) before `CancelledError` propagates.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from dataclasses import asdict, dataclass
from datetime import tzinfo
from typing import Any

from companion_memory.agent.model.provider import (
    BudgetExhaustedError,
    ModelProvider,
    ModelRequest,
    ModelResponse,
)
from companion_memory.agent.model.settings import ProviderConfigError
from companion_memory.core.clock import Clock
from companion_memory.storage.atomic import (
    CorruptStateError,
    ensure_dir,
    read_json,
    write_json_atomic,
)
from companion_memory.storage.fs import FileSystem, RealFileSystem, StorageIOError

_log = logging.getLogger("companion_memory.agent.model.budget")

LEDGER_VERSION = 1


@dataclass
class _Usage:
    day: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    refused: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class BudgetedProvider:
    """Wraps `inner` with a daily call and token budget persisted at `ledger_path`."""

    def __init__(
        self,
        inner: ModelProvider,
        ledger_path: str,
        *,
        daily_calls: int,
        daily_tokens: int,
        clock: Clock,
        zone: tzinfo | None = None,
        fs: FileSystem | None = None,
        max_output_tokens: int | None = None,
        deadline_s: float | None = None,
    ) -> None:
        for key, value in (("daily_calls", daily_calls), ("daily_tokens", daily_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ProviderConfigError(key, value, "a positive integer")
        if max_output_tokens is not None and (
            isinstance(max_output_tokens, bool) or not isinstance(max_output_tokens, int)
            or max_output_tokens <= 0
        ):
            raise ProviderConfigError("max_output_tokens", max_output_tokens, "a positive integer")
        if deadline_s is not None and (not isinstance(deadline_s, (int, float)) or deadline_s <= 0):
            raise ProviderConfigError("deadline_s", deadline_s, "a positive number of seconds")
        if not ledger_path:
            raise ProviderConfigError("ledger_path", ledger_path, "a file path")
        self.inner = inner
        self.name = inner.name
        self.ledger_path = ledger_path
        self.daily_calls = daily_calls
        self.daily_tokens = daily_tokens
        self._clock = clock
        self._zone = zone
        self._fs = fs or RealFileSystem()
        self._lock = asyncio.Lock()
        self._usage: _Usage | None = None
        self.max_output_tokens = max_output_tokens
        self.deadline_s = deadline_s

    def today(self) -> str:
        now = self._clock.now()
        local = now.astimezone(self._zone) if self._zone is not None else now.astimezone()
        return local.date().isoformat()

    def _load_sync(self) -> _Usage:
        try:
            data = read_json(self._fs, self.ledger_path)
        except (CorruptStateError, StorageIOError) as err:
            raise BudgetExhaustedError(
                f"the budget ledger of provider {self.name} cannot be read ({err.code}); "
                f"move {self.ledger_path} aside to reset today's usage"
            ) from err
        if data is None or data.get("day") is None:
            return _Usage(day=self.today())
        fields = ("calls", "prompt_tokens", "completion_tokens", "refused")
        values = {k: data.get(k, 0) for k in fields}
        if not all(isinstance(v, int) and v >= 0 for v in values.values()):
            raise BudgetExhaustedError(
                f"the budget ledger of provider {self.name} holds invalid counts; "
                f"move {self.ledger_path} aside to reset today's usage"
            )
        return _Usage(day=str(data["day"]), **values)

    def _save_sync(self, usage: _Usage) -> None:
        ensure_dir(self._fs, os.path.dirname(self.ledger_path) or ".")
        write_json_atomic(
            self._fs,
            self.ledger_path,
            {"version": LEDGER_VERSION, "provider": self.name, **asdict(usage)},
        )

    async def _current(self) -> _Usage:
        if self._usage is None:
            self._usage = await asyncio.to_thread(self._load_sync)
        today = self.today()
        if self._usage.day != today:
            self._usage = _Usage(day=today)
        return self._usage

    async def complete(self, request: ModelRequest) -> ModelResponse:
        async with self._lock:
            usage = await self._current()
            exhausted = None
            if usage.calls >= self.daily_calls:
                exhausted = f"{usage.calls} of {self.daily_calls} calls"
            elif usage.tokens >= self.daily_tokens:
                exhausted = f"{usage.tokens} of {self.daily_tokens} tokens"
            if exhausted is not None:
                usage.refused += 1
                await self._save_quietly(usage)
                raise BudgetExhaustedError(
                    f"provider {self.name} used {exhausted} of its daily budget on {usage.day}; "
                    "the work stays pending until the next local day or a larger budget"
                )
        response: ModelResponse | None = None
        try:
            response = await self.inner.complete(self._capped(request))
            return response
        finally:
            # Shielded: a cancelled call is still counted before CancelledError propagates.
            await asyncio.shield(self._record(response))

    def _capped(self, request: ModelRequest) -> ModelRequest:
        """The request with the configured per-call output and deadline caps applied."""
        changes: dict[str, Any] = {}
        cap = self.max_output_tokens
        if cap is not None and request.max_output_tokens > cap:
            changes["max_output_tokens"] = cap
        if self.deadline_s is not None and request.deadline_s > self.deadline_s:
            changes["deadline_s"] = self.deadline_s
        return dataclasses.replace(request, **changes) if changes else request

    async def _record(self, response: ModelResponse | None) -> None:
        """Count the call; the count stays in memory when the disk refuses the save, so a
        full disk never turns a good answer (or the real model error) into a storage error."""
        async with self._lock:
            usage = await self._current()
            usage.calls += 1
            if response is not None:
                usage.prompt_tokens += response.prompt_tokens
                usage.completion_tokens += response.completion_tokens
            await self._save_quietly(usage)

    async def _save_quietly(self, usage: _Usage) -> None:
        try:
            await asyncio.to_thread(self._save_sync, usage)
        except StorageIOError as err:
            _log.warning("budget ledger of %s not saved (%s); counted in memory",
                         self.name, err.code)

    async def load(self) -> dict[str, Any]:
        """Read today's usage from the ledger (first call does it otherwise)."""
        async with self._lock:
            await self._current()
        return self.usage()

    def usage(self) -> dict[str, Any]:
        """Today's usage and what is left (counts only; as last loaded or recorded)."""
        today = self.today()
        usage = self._usage if self._usage is not None and self._usage.day == today else None
        if usage is None:
            usage = _Usage(day=today)
        return {
            "provider": self.name,
            "day": usage.day,
            "calls": usage.calls,
            "calls_left": max(0, self.daily_calls - usage.calls),
            "daily_calls": self.daily_calls,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "tokens": usage.tokens,
            "tokens_left": max(0, self.daily_tokens - usage.tokens),
            "daily_tokens": self.daily_tokens,
            "refused": usage.refused,
        }

    async def prepare(self) -> None:
        await self.inner.prepare()

    async def close(self) -> None:
        await self.inner.close()

