"""What the sweep shows the model for one window, gathered from the context and store.

- the window's processed notification records (`read_processed_between`), minus
  noise and secrets (`NoiseFilter.classify`), coalesced per notification key, as
  bounded excerpts (title and body cut short);
- the live Temporary memories created or reinforced in the window, with how often
  they were reinforced that day;
- the related live Long-Term memories (by the store's search).

The `DayScope` built here is the provenance rule: candidates may cite only these
context ids and Temporary memory ids. Reading only; nothing is written. Cancelling
stops at the next await with nothing changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.agent.sweep.proposals import DayScope
from companion_memory.agent.sweep.windows import Window
from companion_memory.memory import MemoryRecord, SourceKind, Tier
from companion_memory.memory.secrets import contains_secret
from companion_memory.memory.store import MemoryStore

TITLE_EXCERPT_CHARS = 80
BODY_EXCERPT_CHARS = 240


class SweepContext(Protocol):
    """The part of `NotificationContext` the sweep reads."""

    async def read_processed_between(
        self, start: datetime, end: datetime, limit: int
    ) -> Sequence[Any]: ...

    async def read_pending(self, limit: int = 10) -> Sequence[Any]: ...


@dataclass(frozen=True, slots=True)
class InputLimits:
    max_records: int = 500
    """Processed records read per window (the provenance scope)."""
    max_excerpts: int = 24
    max_temporaries: int = 32
    max_related: int = 12
    related_per_item: int = 3
    temporaries_scan: int = 2000


@dataclass(slots=True)
class DayInput:
    window: Window
    items: list[dict[str, Any]] = field(default_factory=list)
    related: list[dict[str, Any]] = field(default_factory=list)
    temporaries: list[dict[str, Any]] = field(default_factory=list)
    scope: DayScope = field(
        default_factory=lambda: DayScope(frozenset(), frozenset(), frozenset())
    )
    filtered: Counter[str] = field(default_factory=Counter)
    records: int = 0

    @property
    def empty(self) -> bool:
        """Nothing the model could work with: no excerpt and no Temporary memory."""
        return not self.items

    def payload(self) -> dict[str, Any]:
        """The structured input for providers without a model (the fallback)."""
        return {
            "window": self.window.to_dict(),
            "temporaries": self.temporaries,
            "notifications": [i for i in self.items if i.get("type") == "notification"],
            "related": self.related,
        }


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def _reinforced_in_window(record: MemoryRecord, window: Window, day_ids: set[int]) -> int:
    """Reinforcements that happened in the window: exact when the whole life of the record
    lies in it, else the day's distinct context sources beyond the creating one."""
    created_today = window.contains(record.created_at)
    if created_today and window.contains(record.updated_at):
        return record.reinforced
    cited = sum(
        1 for s in record.sources
        if s.kind is SourceKind.CONTEXT and s.ref.isdigit() and int(s.ref) in day_ids
    )
    return max(0, min(record.reinforced, cited - (1 if created_today else 0)))


async def gather_day(
    context: SweepContext,
    store: MemoryStore,
    window: Window,
    *,
    limits: InputLimits,
    noise: NoiseFilter | None = None,
) -> DayInput:
    """Read the window's input (see the module docstring)."""
    noise = noise or NoiseFilter()
    day = DayInput(window)
    records = await context.read_processed_between(
        window.start_utc, window.end_utc, limits.max_records
    )
    day.records = len(records)
    latest: dict[tuple[str, str], Any] = {}
    allowed_ids: set[int] = set()
    for record in records:
        reason = noise.classify(record.event)
        if reason is not None:
            day.filtered[reason] += 1
            continue
        allowed_ids.add(int(record.context_id))
        latest[(record.event.app_id, record.event.key)] = record
    newest = sorted(latest.values(), key=lambda r: int(r.context_id))[: limits.max_excerpts]
    for record in newest:
        event = record.event
        day.items.append(
            {
                "type": "notification",
                "context_id": int(record.context_id),
                "app_id": event.app_id,
                "title": _excerpt(event.title, TITLE_EXCERPT_CHARS),
                "body": _excerpt(event.body, BODY_EXCERPT_CHARS),
                "at": record.received_at.isoformat(),
            }
        )

    now = store.now()
    live = await store.list_records(tier=Tier.TEMPORARY, limit=limits.temporaries_scan)
    in_window = [
        r for r in live
        if r.is_live(now) and (window.contains(r.created_at) or window.contains(r.updated_at))
    ]
    temporaries: list[tuple[int, MemoryRecord]] = []
    for record in in_window:
        if contains_secret(record.text):
            day.filtered["secret_memory"] += 1
            continue
        temporaries.append((_reinforced_in_window(record, window, allowed_ids), record))
    temporaries.sort(key=lambda pair: (-pair[0], pair[1].created_at, pair[1].memory_id))
    for reinforced, record in temporaries[: limits.max_temporaries]:
        item = {
            "type": "temporary",
            "memory_id": record.memory_id,
            "kind": record.kind.value,
            "text": record.text,
            "subject": record.subject,
            "authority": record.authority.value,
            "reinforced_in_window": reinforced,
            "created_in_window": window.contains(record.created_at),
        }
        day.items.append(item)
        day.temporaries.append(item)

    related: dict[str, MemoryRecord] = {}
    for item in day.temporaries:
        if len(related) >= limits.max_related:
            break
        for record in await store.related(
            str(item["text"]), limit=limits.related_per_item, tiers=(Tier.LONG_TERM,)
        ):
            if len(related) < limits.max_related and not contains_secret(record.text):
                related.setdefault(record.memory_id, record)
    day.related = [
        {
            "memory_id": r.memory_id,
            "kind": r.kind.value,
            "text": r.text,
            "subject": r.subject,
            "authority": r.authority.value,
            "revision": r.revision,
        }
        for r in related.values()
    ]
    day.scope = DayScope(
        context_ids=frozenset(allowed_ids),
        temporary_ids=frozenset(str(i["memory_id"]) for i in day.temporaries),
        related_ids=frozenset(related),
    )
    return day
