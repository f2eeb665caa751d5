"""ProviderSettings validation and build_provider: budgets, explicit fallback, no silent switch."""

from __future__ import annotations

import asyncio
import contextlib
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory.agent.extraction import RulesFallbacks, WithRulesFallback
from companion_memory.agent.model.budget import BudgetedProvider
from companion_memory.agent.model.factory import build_provider, describe
from companion_memory.agent.model.llama import LlamaCppProvider
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.model.openai_http import OpenAICompatibleProvider
from companion_memory.agent.model.provider import (
    BudgetExhaustedError,
    Message,
    ModelError,
    ModelRequest,
    ModelTimeoutError,
    ModelUnavailableError,
)
from companion_memory.agent.model.settings import ProviderConfigError, ProviderSettings
from companion_memory.agent.notifications.extractor import (
    ModelNotificationExtractor,
    NotificationBatch,
    NotificationItem,
    RulesNotificationExtractor,
)
from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from tests.model.loopback import LoopbackServer

TINY = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


REQUEST = ModelRequest("notifications", (Message("user", "hi"),), TINY, max_output_tokens=12)


@pytest.mark.parametrize(
    ("values", "key", "allowed"),
    [
        ({"kind": "gpt"}, "kind", "one of 'deterministic'"),
        ({"kind": "llama"}, "model_path", "a GGUF file path"),
        ({"kind": "openai", "base_url": "localhost:8080"}, "base_url", "http://"),
        ({"kind": "openai", "base_url": "http://h/v1"}, "model", "model name"),
        ({"daily_calls": 0}, "daily_calls", "a positive integer"),
        ({"daily_tokens": -1}, "daily_tokens", "a positive integer"),
        ({"deadline_s": 0.0}, "deadline_s", "a positive number"),
        ({"max_output_tokens": True}, "max_output_tokens", "a positive integer"),
        ({"n_ctx": 512, "max_prompt_tokens": 600}, "max_prompt_tokens", "fewer than n_ctx"),
        ({"fallback": "deterministic"}, "fallback", "a kind other than 'deterministic'"),
        ({"fallback": "cloud"}, "fallback", "None or a kind"),
        ({"response_format": "xml"}, "response_format", "json_schema"),
        ({"modle": "x"}, "modle", "a known key"),
    ],
)
def test_settings_errors_name_key_value_and_what_is_allowed(
    values: dict[str, Any], key: str, allowed: str
) -> None:
    with pytest.raises(ProviderConfigError) as caught:
        ProviderSettings.from_mapping(values)
    assert caught.value.key == key
    assert f"provider setting {key}=" in caught.value.reason
    assert allowed in caught.value.reason


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


async def test_bad_model_paths_are_refused_at_build(tmp_path: Path) -> None:
    root = str(tmp_path)
    missing = ProviderSettings(kind="llama", model_path=str(tmp_path / "none.gguf"))
    with pytest.raises(ProviderConfigError, match="does not exist"):
        await asyncio.to_thread(
            build_provider, missing, root=root, clock=FakeClock()
        )
    not_gguf = str(tmp_path / "model.bin")
    await asyncio.to_thread(_write, not_gguf, b"PK\x03\x04 zip")
    bad = ProviderSettings(kind="llama", model_path=not_gguf, fallback="deterministic")
    with pytest.raises(ProviderConfigError, match="not a GGUF file"):
        await asyncio.to_thread(
            build_provider, bad, root=root, clock=FakeClock()
        )


@pytest.mark.llama
async def test_llama_settings_build_a_budgeted_llama(model_path: str, tmp_path: Path) -> None:
    settings = ProviderSettings(
        kind="llama", model_path=model_path, n_ctx=512, max_prompt_tokens=256, n_threads=1,
        max_output_tokens=16, daily_calls=1,
    )
    provider = await asyncio.to_thread(
        build_provider, settings, root=str(tmp_path), clock=FakeClock()
    )
    assert isinstance(provider, BudgetedProvider)
    try:
        assert isinstance(provider.inner, LlamaCppProvider)
        response = await provider.complete(REQUEST)
        assert "ok" in orjson.loads(response.text)
        with pytest.raises(BudgetExhaustedError):  # no fallback named: no switch
            await provider.complete(REQUEST)
        status = describe(provider)
        assert status["budget"]["calls"] == 1 and status["budget"]["calls_left"] == 0
        assert status["stats"]["loaded"] is True
        assert await asyncio.to_thread(
            os.path.exists, os.path.join(str(tmp_path), "model", "budget-llama.json")
        )
    finally:
        await provider.close()


async def test_deterministic_kind_is_not_budgeted(tmp_path: Path) -> None:
    provider = await asyncio.to_thread(
        build_provider, ProviderSettings(), root=str(tmp_path), clock=FakeClock(),
    )
    assert provider is None  # no model: the rules extract, nothing is budgeted
    assert describe(provider) == {"name": "deterministic"}
    assert await asyncio.to_thread(os.listdir, str(tmp_path)) == []


async def _build(
    settings: ProviderSettings, root: str, environ: dict[str, str] | None = None
) -> Any:
    env = {} if environ is None else environ
    return await asyncio.to_thread(
        lambda: build_provider(settings, root=root, clock=FakeClock(), environ=env)
    )


def _batch() -> NotificationBatch:
    event = NotificationEvent.create(
        kind="added", key="k1", app_id="net.whatsapp.WhatsApp", title="Anna",
        body="Dinner on Friday at 8 at the Greek place?", category="social",
        posted_at=datetime(2026, 3, 2, 9, tzinfo=UTC))
    return NotificationBatch((NotificationItem(1, (1,), event, {}),))


def _with_rules(provider: Any) -> tuple[WithRulesFallback[Any, Any], RulesFallbacks]:
    """A fallback to "deterministic": the model extractor composed with the rules."""
    switches = RulesFallbacks()
    model = ModelNotificationExtractor(MemoryMergeEngine(provider, deadline_s=5.0))
    return WithRulesFallback(model, RulesNotificationExtractor(), switches), switches


async def test_a_fallback_to_the_rules_builds_the_primary_alone(tmp_path: Path) -> None:
    settings = ProviderSettings(kind="openai", base_url="http://127.0.0.1:9/v1", model="m",
                                fallback="deterministic")
    provider = await _build(settings, str(tmp_path))
    assert isinstance(provider, BudgetedProvider)  # no provider wrapper: extractors compose
    assert isinstance(provider.inner, OpenAICompatibleProvider)
    await provider.close()


async def test_explicit_fallback_is_used_only_when_unavailable_and_reported(
    tmp_path: Path,
) -> None:
    async with LoopbackServer("ok") as server:
        settings = ProviderSettings(
            kind="openai", base_url=server.base_url, model="m", api_key_env="CM_UNSET_FOR_TEST",
            fallback="deterministic",
        )
        environ: dict[str, str] = {}  # the key variable is missing at first
        provider = await _build(settings, str(tmp_path), environ)
        extractor, switches = _with_rules(provider)
        made = await extractor.extract(_batch())
        assert made.usage.model_calls == 0  # the rules answered
        assert made.accepted[1].text == \
            "Anna on WhatsApp: Dinner on Friday 6 Mar at 8 at the Greek place?"
        assert switches.describe() == {"fallback": {"name": "deterministic"},
                                       "fallbacks_used": 1,
                                       "last_fallback_reason": "model_unavailable"}
        assert server.requests == []

        environ["CM_UNSET_FOR_TEST"] = "k"
        with contextlib.suppress(ModelError):  # the loopback's answer is no contract answer
            await extractor.extract(_batch())
        assert len(server.requests) == 1 and switches.used == 1
        await provider.close()


async def test_timeouts_are_never_sent_to_the_fallback(tmp_path: Path) -> None:
    async with LoopbackServer("slow") as server:
        settings = ProviderSettings(
            kind="openai", base_url=server.base_url, model="m", deadline_s=0.2,
            fallback="deterministic",
        )
        provider = await _build(settings, str(tmp_path))
        extractor, switches = _with_rules(provider)
        with pytest.raises(ModelTimeoutError):
            await extractor.extract(_batch())
        assert switches.used == 0
        await provider.close()


async def test_missing_server_without_fallback_stays_an_error(tmp_path: Path) -> None:
    settings = ProviderSettings(kind="openai", base_url="http://127.0.0.1:9/v1", model="m")
    provider = await _build(settings, str(tmp_path))
    with pytest.raises(ModelUnavailableError, match="cannot reach"):
        await provider.complete(REQUEST)
    assert describe(provider)["budget"]["calls"] == 1
    await provider.close()
