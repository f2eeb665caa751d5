"""What the per-setting effect tests (tests/test_settings_*.py) share: a configuration
built from TOML text the way a user writes it, a `Runtime` on a fake clock and disk,
notifications, and a bounded wait for background work (never a timing assertion).

Configurations are parsed outside the event loop: checking `sweep.zone` reads tz data.
Keyword recall (`[memory] embedder = "none"`) unless a test is about the embedder: the
settings tested here do not depend on it, and it keeps each test small."""

from __future__ import annotations

import asyncio
import inspect
import time
import tomllib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from companion_memory import NotificationEvent, Runtime
from companion_memory.agent.model.provider import ModelProvider, ModelRequest, ModelResponse
from companion_memory.core.clock import FakeClock
from companion_memory.device.config import Config, load_config
from companion_memory.storage.monitor import DiskProbe, FakeDiskProbe
from tests.doubles import answer_like_the_rules

START = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
"""A Thursday morning, UTC."""

KEYWORDS = '[memory]\nembedder = "none"\n'
"""The TOML every configuration here starts from (keyword recall)."""

PLENTY = 4 << 30
"""Free bytes of a disk far from every storage level."""


def config_file(tmp_path: Path, toml: str, *, keywords: bool = True,
                env: Mapping[str, str] | None = None) -> Config:
    """`toml` written to a file and read back through `load_config` (with the environment
    overrides of `env`), as the CLI does."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "config.toml"
    text = toml if not keywords or "[memory]" in toml else KEYWORDS + toml
    tomllib.loads(text)  # a typo in a test's TOML fails here, by name
    path.write_text(text)
    return load_config(path, env=env)


async def configured(tmp_path: Path, toml: str, *, keywords: bool = True,
                     env: Mapping[str, str] | None = None) -> Config:
    """`config_file` off the event loop (it reads the file and the zone's tz data)."""
    return await asyncio.to_thread(config_file, tmp_path, toml, keywords=keywords, env=env)


def note(key: str, body: str, *, title: str = "Anna", app: str = "net.whatsapp.WhatsApp",
         at: datetime = START, kind: str = "added") -> NotificationEvent:
    return NotificationEvent.create(kind=kind, key=key, app_id=app, title=title, body=body,
                                    posted_at=at)


@asynccontextmanager
async def running(tmp_path: Path, config: Config, *, clock: FakeClock | None = None,
                  probe: DiskProbe | None = None, provider: ModelProvider | None = None,
                  start_worker: bool = False, **kw: Any) -> AsyncIterator[Runtime]:
    """An open `Runtime` on `tmp_path/root` with a fake clock (at `START`) and disk."""
    runtime = Runtime(config, root=tmp_path / "root", clock=clock or FakeClock(START),
                      probe=probe or FakeDiskProbe(free_bytes=PLENTY), provider=provider,
                      start_worker=start_worker, start_link=kw.pop("start_link", False), **kw)
    async with runtime:
        yield runtime


async def wait_for(predicate: Callable[[], Awaitable[bool] | bool], *,
                   what: str = "the condition") -> None:
    """Until `predicate()` holds (awaited when it is a coroutine); background work (a
    thread's SQLite commit) needs real time to run, so this polls, and fails only after a
    minute, whatever the machine."""
    deadline = time.monotonic() + 60

    async def holds() -> bool:
        value = predicate()
        return bool(await value) if inspect.isawaitable(value) else bool(value)

    while not await holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} was not reached within 60 s")
        await asyncio.sleep(0.005)


async def settle() -> None:
    """Let the tasks a clock step woke run as far as they can without more time."""
    for _ in range(20):
        await asyncio.sleep(0)


def days(n: float) -> timedelta:
    return timedelta(days=n)


async def intake_written(runtime: Runtime) -> int:
    """Notifications the ring writer has made durable so far."""
    return int((await runtime.status()).intake["written_persisted"])


class Recording:
    """A model double that answers what the rules would say, in each scenario's real
    answer format (`tests.doubles.answer_like_the_rules`), keeping every request (what
    reached 'the model')."""

    name = "recording"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse(text=answer_like_the_rules(request), prompt_tokens=0,
                             completion_tokens=0, provider=self.name)

    async def prepare(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def of(self, scenario: str) -> list[dict[str, Any]]:
        return [r.payload for r in self.requests if r.scenario == scenario]
