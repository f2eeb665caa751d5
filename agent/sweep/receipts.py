"""`ReceiptApplier`: a staged window's candidates, each through its receipt, exactly once.

Per candidate: claim the receipt (namespace, window_id, candidate digest), then
write the memory and record the outcome on the receipt in one transaction
(`SweepLedger.apply_candidate` with the planner `apply.plan_candidate`), then complete
the receipt; each step is one typed operation of `SweepLedger`, one transaction. A
claimed receipt whose write is recorded is only completed on recovery, one without is
written: nothing lost, nothing doubled. New claims stop at `max_writes` writes for the window. A
candidate that is not due yet (`Candidate.after`) is left unclaimed: the processor
applies it on a later run, through the same receipts.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from datetime import datetime
from functools import partial

from companion_memory.agent.processor import ProcessorReport
from companion_memory.agent.sweep.apply import WRITE_OUTCOMES, WriteContext, plan_candidate
from companion_memory.agent.sweep.proposals import Candidate
from companion_memory.memory import sweep_ledger as ledger
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.sweep_ledger import SweepLedger

StepHook = Callable[[str], None]


class ReceiptApplier:
    """Applies one window's candidates; see the module docstring."""

    def __init__(self, store: MemoryStore, *, max_writes: int, step: StepHook) -> None:
        self.store = store
        self.ledger = SweepLedger(store)
        self.max_writes = max_writes
        self._step = step
        self._claimant = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"

    async def apply(
        self, window_id: str, namespace: int, candidates: list[Candidate],
        report: ProcessorReport, *, day_start: datetime | None = None,
    ) -> int:
        """Claim, write and complete each due candidate; returns the window's write
        count. `day_start`: the swept day's start (UTC), when what it writes happened."""
        receipts = await self.ledger.receipts(namespace, window_id)
        by_digest = {r.key.candidate_digest: r for r in receipts}
        writes = sum(1 for r in receipts if r.outcome in WRITE_OUTCOMES)
        temporary_ttl, long_term_ttl = self.store.ttls
        for candidate in candidates:
            key = ledger.ReceiptKey(namespace, window_id, candidate.digest)
            receipt = by_digest.get(candidate.digest)
            if receipt is not None and receipt.state == "committed":
                continue
            if receipt is None and not candidate.due(self.store.now()):
                continue  # it waits for its moment (a later run applies it)
            if receipt is None:
                if writes >= self.max_writes:
                    report.rejected["write_limit"] += 1
                    continue
                receipt = await self.ledger.claim(key, claimant=self._claimant,
                                                  now=self.store.now())
                self._step("claimed")
            if not receipt.applied:
                ctx = WriteContext(self.store.now(), temporary_ttl, long_term_ttl, day_start)
                outcome = await self.ledger.apply_candidate(
                    key, partial(plan_candidate, candidate=candidate, key=key, ctx=ctx),
                    now=ctx.now)
                self._step("written")
                report.proposals[f"outcome_{outcome}"] += 1
                if outcome in WRITE_OUTCOMES:
                    writes += 1
                    report.applied += 1
            await self.ledger.complete(key, now=self.store.now())
            self._step("completed")
        return writes
