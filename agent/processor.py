"""The contract between the `MemoryWorker` and the processors it runs.

The worker knows nothing of notifications, episodes or stores: it calls
`run_batch()` on each registered processor in order inside an idle window and
reads back a `ProcessorReport`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(slots=True)
class ProcessorReport:
    """What one processor did in one round. Counts and codes only, never content."""

    processor: str
    consumed: int = 0
    analyzed: int = 0
    filtered: Counter[str] = field(default_factory=Counter)
    proposals: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    applied: int = 0
    pending: int = 0
    gaps: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_s: float = 0.0
    """Seconds spent waiting on the model (its calls only, not the store or the filters)."""
    elapsed_s: float = 0.0
    batches: int = 0
    error: str | None = None
    """A bounded error code when the processor failed this round."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Processor-specific counts and codes (e.g. sweep dates and statuses)."""

    def merge(self, other: ProcessorReport) -> None:
        """Add another batch's counts into this report."""
        self.consumed += other.consumed
        self.analyzed += other.analyzed
        self.filtered.update(other.filtered)
        self.proposals.update(other.proposals)
        self.rejected.update(other.rejected)
        self.applied += other.applied
        self.pending = other.pending
        self.gaps += other.gaps
        self.model_calls += other.model_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.model_s += other.model_s
        self.elapsed_s += other.elapsed_s
        self.batches += other.batches
        self.error = other.error or self.error
        for key, value in other.extra.items():
            if isinstance(value, int) and isinstance(self.extra.get(key), int):
                self.extra[key] += value
            elif isinstance(value, list) and isinstance(self.extra.get(key), list):
                self.extra[key].extend(value)
            else:
                self.extra[key] = value

    def to_dict(self) -> dict[str, Any]:
        return {
            "processor": self.processor,
            "consumed": self.consumed,
            "analyzed": self.analyzed,
            "filtered": dict(self.filtered),
            "proposals": dict(self.proposals),
            "rejected": dict(self.rejected),
            "applied": self.applied,
            "pending": self.pending,
            "gaps": self.gaps,
            "model_calls": self.model_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "model_s": round(self.model_s, 6),
            "elapsed_s": round(self.elapsed_s, 6),
            "batches": self.batches,
            "error": self.error,
            **({"extra": self.extra} if self.extra else {}),
        }


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """The result of one `run_batch()` call."""

    report: ProcessorReport
    backlog: bool
    """True when more work is pending right now; the worker calls again in the same window."""


@runtime_checkable
class Processor(Protocol):
    """A scenario the worker runs in idle windows (episodes, notifications, sweep)."""

    name: str

    async def run_batch(self) -> BatchOutcome:
        """Process at most one batch. Must keep durable state consistent if cancelled
        at any await (a foreground start cancels it). Raises only on unexpected failure;
        the worker then backs this processor off by the idle delay."""
        ...
