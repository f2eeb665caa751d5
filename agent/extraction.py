"""The extractor seam: what each scenario's processor calls to turn its batch into proposals.

Each scenario (notifications, episodes, sweep) defines its typed input, its typed result
and an extractor `Protocol` with one method, `extract(input) -> result`, and two
implementations of it: the rules (the scenario's deterministic code, called directly on
the typed input: no provider, no JSON text) and the model (builds the messages, makes
its calls through `MemoryMergeEngine`, parses and validates the model's JSON text). A
processor calls whichever it was given and never asks which one it is: a result is
validated proposals or a failure with a reason code, plus the model's `Usage` (zero for
the rules).

A model that is unavailable or out of budget raises (`ModelUnavailableError`,
`BudgetExhaustedError`); only an explicitly configured fallback (`provider.fallback =
"deterministic"`) turns that into the rules' answer, by composing the two extractors
(`WithRulesFallback`), and it counts every switch (`RulesFallbacks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from companion_memory.agent.model.merge import RawProposal
from companion_memory.agent.model.provider import BudgetExhaustedError, ModelUnavailableError
from companion_memory.agent.processor import ProcessorReport

RULES = "rules"
MODEL = "model"

SWITCHING_ERRORS = (ModelUnavailableError, BudgetExhaustedError)
"""The model failures an explicit fallback answers with the rules; every other failure
(a timeout, an invalid answer) is the model's and is never retried elsewhere."""


@dataclass(slots=True)
class Usage:
    """What the model calls of one extraction cost (all zero for the rules)."""

    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_s: float = 0.0

    def count(self, raw: RawProposal) -> None:
        """Add one answered call."""
        self.model_calls += 1
        self.prompt_tokens += raw.prompt_tokens
        self.completion_tokens += raw.completion_tokens
        self.model_s += raw.model_s

    def add_to(self, report: ProcessorReport) -> None:
        report.model_calls += self.model_calls
        report.prompt_tokens += self.prompt_tokens
        report.completion_tokens += self.completion_tokens
        report.model_s += self.model_s


@dataclass(slots=True)
class RulesFallbacks:
    """How often an explicit fallback answered with the rules, and why the last time;
    shared by the scenarios' compositions and shown by `status`."""

    used: int = 0
    last_reason: str | None = None

    def note(self, code: str) -> None:
        self.used += 1
        self.last_reason = code

    def describe(self) -> dict[str, Any]:
        return {"fallback": {"name": "deterministic"}, "fallbacks_used": self.used,
                "last_fallback_reason": self.last_reason}


In = TypeVar("In", contravariant=True)
Out = TypeVar("Out", covariant=True)
BatchT = TypeVar("BatchT")
ResultT = TypeVar("ResultT")


class Extractor(Protocol[In, Out]):
    """One scenario's extraction: its typed input in, its typed result out.

    `name` is "rules" or "model". Raises `ModelError` subclasses only from a model."""

    name: str

    async def extract(self, batch: In, /) -> Out: ...


class WithRulesFallback(Generic[BatchT, ResultT]):
    """The model first; the rules for a batch the model could not take (unavailable or
    out of budget). Cancellation cancels the model's call; nothing else is tried."""

    def __init__(self, model: Extractor[BatchT, ResultT], rules: Extractor[BatchT, ResultT],
                 switches: RulesFallbacks) -> None:
        self.model = model
        self.rules = rules
        self.switches = switches
        self.name = model.name

    async def extract(self, batch: BatchT, /) -> ResultT:
        try:
            return await self.model.extract(batch)
        except SWITCHING_ERRORS as err:
            self.switches.note(err.code)
        return await self.rules.extract(batch)
