"""`RoundReport`: what one idle window of the `MemoryWorker` did.

A round is one idle window. It holds one `ProcessorReport` per processor that
ran in it (batches merged), in registration order. Counts and codes only: a
report never carries a title, a body or memory text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from companion_memory.agent.processor import ProcessorReport


@dataclass(slots=True)
class RoundReport:
    """One idle window: when it started, how long it ran, and each processor's counts.

    `cancelled` is true when a foreground start (or `stop()`) cut the window short;
    the cancelled batch committed nothing and stays pending for the next window.
    """

    started_at: datetime
    elapsed_s: float = 0.0
    reports: list[ProcessorReport] = field(default_factory=list)
    cancelled: bool = False

    def report_for(self, processor: str) -> ProcessorReport | None:
        """The merged report of `processor` in this round, if it ran."""
        for report in self.reports:
            if report.processor == processor:
                return report
        return None

    @property
    def model_calls(self) -> int:
        return sum(r.model_calls for r in self.reports)

    @property
    def errors(self) -> dict[str, str]:
        """Processor name -> error code, for processors that failed this round."""
        return {r.processor: r.error for r in self.reports if r.error}

    def to_dict(self) -> dict[str, Any]:
        return {
            "started_at": self.started_at.isoformat(),
            "elapsed_s": round(self.elapsed_s, 6),
            "cancelled": self.cancelled,
            "model_calls": self.model_calls,
            "processors": [r.to_dict() for r in self.reports],
        }
