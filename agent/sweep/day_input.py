"""What the sweep shows the model for one window, gathered from the context and store.

- the window's processed notification records (`read_processed_between`), through the
  same triage as intake (noise dropped, secrets redacted), coalesced per notification
  key, as bounded excerpts (title and body cut short);
- the live Temporary memories created or reinforced in the window, with how often
  they were reinforced that day, and the Long-Term facts a processor wrote in it
  (items of type new_long_term, what `merge` may fold into an older memory);
- the day's senders (`groups`): each sender's notifications that a memory was made
  of, the gist of each, and the Long-Term memories nearest in meaning to the day's
  memories of that sender (`MemoryStore.neighbours`, the embedder's cosine; without
  an embedder, the store's recall of the memory's text, with no cosine);
- the related live Long-Term memories (those neighbours, and the store's search).

The `DayScope` built here is the provenance rule: candidates may cite only these
context ids and Temporary memory ids, and touch only these Long-Term memories. It also
holds the search-only words of each notification (`consolidate.record_words`). Reading
only, apart from embedding memories that still lack a vector; nothing else is written.
Cancelling stops at the next await with nothing changed.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.agent.sweep.consolidate import (
    FACT_KINDS,
    candidate_words,
    gist,
    is_plan,
    names_sender,
    record_words,
    sender_of,
)
from companion_memory.agent.sweep.proposals import DayScope
from companion_memory.agent.sweep.windows import Window, load_zone
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory import MemoryRecord, SourceKind, Tier
from companion_memory.memory.search_text import fold
from companion_memory.memory.secrets import contains_secret
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.sweep_ledger import SweepLedger

TITLE_EXCERPT_CHARS = 80
BODY_EXCERPT_CHARS = 240
_WORD = re.compile(r"[^\W_]+")
DEFER_DAYS = 12
"""A day's diary lines are applied this many days after the day ends: its Temporary
memories (which keep their notifications' words while the log keeps them, 14 days)
answer until then, and a line beside them would only crowd them out of a recall."""


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
    neighbours: int = 12
    """Nearest Long-Term memories looked at per memory of the day."""
    embed_rows: int = 256
    """Memories without a vector embedded before the day is compared (at most)."""


@dataclass(slots=True)
class DayInput:
    window: Window
    items: list[dict[str, Any]] = field(default_factory=list)
    related: list[dict[str, Any]] = field(default_factory=list)
    temporaries: list[dict[str, Any]] = field(default_factory=list)
    groups: list[dict[str, Any]] = field(default_factory=list)
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
        """The day as the rules read it (`fallback.sweep_fallback`), and the structured
        copy a model request carries for provider doubles in tests."""
        return {
            "window": self.window.to_dict(),
            "date": self.window.local_date.isoformat(),
            "groups": self.groups,
            "temporaries": self.temporaries,
            "notifications": [i for i in self.items if i.get("type") == "notification"],
            "related": self.related,
        }


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def _context_ids(record: MemoryRecord) -> list[int]:
    return [int(s.ref) for s in record.sources
            if s.kind is SourceKind.CONTEXT and s.ref.isdigit()]


def _reinforced_in_window(record: MemoryRecord, window: Window, day_ids: set[int]) -> int:
    """Reinforcements that happened in the window: exact when the whole life of the record
    lies in it, else the day's distinct context sources beyond the creating one."""
    created_today = window.contains(record.created_at)
    if created_today and window.contains(record.updated_at):
        return record.reinforced
    cited = sum(1 for cid in _context_ids(record) if cid in day_ids)
    return max(0, min(record.reinforced, cited - (1 if created_today else 0)))


def _neighbour(record: MemoryRecord, cosine: float | None, who: str | None,
               measure: str = "cosine") -> dict[str, Any]:
    """A Long-Term memory as the payload shows it; `same_sender`: it is about `who`."""
    return {
        "memory_id": record.memory_id,
        "revision": record.revision,
        "kind": record.kind.value,
        "subject": record.subject,
        "authority": record.authority.value,
        "text": record.text,
        "cosine": None if cosine is None else round(cosine, 4),
        "measure": measure,
        "same_sender": who is not None and names_sender(record.text, record.subject, who),
    }


def word_overlap(a: str, b: str) -> float:
    """The cosine of two texts' sets of folded words (0..1): the measure of sameness
    when the store has no embedder."""
    left = {fold(w) for w in _WORD.findall(a)}
    right = {fold(w) for w in _WORD.findall(b)}
    if not left or not right:
        return 0.0
    return len(left & right) / math.sqrt(len(left) * len(right))


async def _nearest(store: MemoryStore, memories: Sequence[MemoryRecord], exclude: set[str],
                   limits: InputLimits
                   ) -> dict[str, tuple[str, list[tuple[MemoryRecord, float]]]]:
    """For each of `memories`: the measure and the Long-Term memories nearest to it:
    by meaning ("cosine" of the stored vectors), or, for a memory without a vector
    (no embedder), the store's recall of its text scored by `word_overlap` ("words")."""
    if not memories:
        return {}
    await store.index_vectors(max_rows=limits.embed_rows)
    found = await store.neighbours([m.memory_id for m in memories],
                                   limit=limits.neighbours + len(exclude),
                                   tiers=(Tier.LONG_TERM,))
    out: dict[str, tuple[str, list[tuple[MemoryRecord, float]]]] = {}
    for memory in memories:
        measure = "cosine"
        pairs: list[tuple[MemoryRecord, float]]
        if memory.memory_id in found:
            pairs = list(found[memory.memory_id])
        else:
            measure = "words"
            pairs = [(r, word_overlap(memory.text, r.text)) for r in await store.related(
                memory.text, limit=limits.neighbours + len(exclude), tiers=(Tier.LONG_TERM,))]
            pairs.sort(key=lambda pair: -pair[1])
        out[memory.memory_id] = (measure, [
            (r, c) for r, c in pairs
            if r.memory_id not in exclude and not contains_secret(r.text)
        ][: limits.neighbours])
    return out


async def _fact_cosines(store: MemoryStore, fact: MemoryRecord,
                        near: list[dict[str, Any]]) -> None:
    """A fact is compared with the facts about the same sender by its statement alone:
    a stored vector also holds the words of the memory's sources while the log keeps
    them, and two statements of one fact come from differently worded messages."""
    embedder = store.embedder
    others = [item for item in near if item["same_sender"] and item["kind"] in FACT_KINDS
              and item["measure"] == "cosine"]
    if embedder is None or not others:
        return
    vectors = await asyncio.to_thread(
        embedder.documents, [fact.text, *(str(item["text"]) for item in others)])
    for item, vector in zip(others, vectors[1:], strict=True):
        item["cosine"] = round(float(vectors[0] @ vector), 4)


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
    events: dict[int, NotificationEvent] = {}
    allowed_ids: set[int] = set()
    for record in records:
        triage = noise.triage(record.event)
        if triage.reason is not None:
            day.filtered[triage.reason] += 1
            continue
        cid = int(record.context_id)
        allowed_ids.add(cid)
        events[cid] = triage.event
        latest[(record.event.app_id, record.event.key)] = (record, triage.event)
    ordered = sorted(latest.values(), key=lambda pair: int(pair[0].context_id))
    for record, event in ordered[: limits.max_excerpts]:
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
    memories = [
        m for m in await SweepLedger(store).window_memories(
            window.start_utc, window.end_utc, now)
        if not contains_secret(m.text) and (m.tier is Tier.TEMPORARY or (
            m.auto and any(cid in events for cid in _context_ids(m))))
    ]  # Long-Term: what a processor made of the day's notifications, not what was saved
    temporaries: list[tuple[int, MemoryRecord]] = []
    for record in memories:
        if record.tier is Tier.TEMPORARY:
            temporaries.append((_reinforced_in_window(record, window, allowed_ids), record))
    temporaries.sort(key=lambda pair: (-pair[0], pair[1].created_at, pair[1].memory_id))
    reinforced_of = {r.memory_id: n for n, r in temporaries}
    for record in memories:  # the Long-Term facts a processor wrote today (to merge)
        if record.tier is Tier.LONG_TERM:
            day.items.append({"type": "new_long_term", "memory_id": record.memory_id,
                              "kind": record.kind.value, "text": record.text})
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

    # each kept notification's memory (the newest that cites it), grouped by sender
    memory_of: dict[int, MemoryRecord] = {}
    for record in sorted(memories, key=lambda r: r.updated_at):
        for cid in _context_ids(record):
            if cid in events:
                memory_of[cid] = record
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    group_memories: dict[tuple[str, str], dict[str, MemoryRecord]] = {}
    words: dict[int, str] = {}
    local = load_zone(window.zone)
    candidates = {cid: candidate_words(event) for cid, event in events.items()}
    counts, _ = await store.word_counts({w for ws in candidates.values() for w in ws})
    for cid, event in events.items():  # what a candidate citing it may keep for search
        words[cid] = record_words(candidates[cid], sender_of(event)[2], counts)
    for cid in sorted(memory_of):
        event = events[cid]
        memory = memory_of[cid]
        who, app, person = sender_of(event)
        key = (who.casefold(), app)
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"who": who, "app": app, "person": person, "sources": [],
                                   "gists": [], "until": None, "facts": [], "neighbours": [],
                                   "parts": []}
            group_memories[key] = {}
        group["person"] = group["person"] and person
        group["sources"].append(f"context:{cid}")
        group["parts"].append((memory.text, event.title, is_plan(event)))
        group["plan"] = group.get("plan", False) or is_plan(event)
        group_memories[key][memory.memory_id] = memory
        if memory.tier is Tier.TEMPORARY and memory.expires_at is not None:
            end = memory.expires_at.astimezone(local).isoformat(timespec="seconds")
            group["until"] = max(group["until"] or end, end)
    for group in groups.values():
        parts = group.pop("parts")
        titles = Counter(" ".join(title.split()).casefold() for _, title, _ in parts)
        group["gists"] = [
            gist(statement, title, group["who"], group["app"], group["person"],
                 whole=plan or titles[" ".join(title.split()).casefold()] > 1)
            for statement, title, plan in parts
        ]
    own_ids = {m.memory_id for m in memories}
    nearest = await _nearest(store, [m for ms in group_memories.values() for m in ms.values()],
                             own_ids, limits)
    related: dict[str, dict[str, Any]] = {}
    for key, group in groups.items():
        who = str(group["who"])
        best: dict[str, dict[str, Any]] = {}
        for memory in group_memories[key].values():
            measure, pairs = nearest.get(memory.memory_id, ("cosine", []))
            near = [_neighbour(r, c, who, measure) for r, c in pairs]
            for item in near:
                mid = str(item["memory_id"])
                held = best.get(mid)
                if held is None or float(item["cosine"] or 0.0) > float(held["cosine"] or 0.0):
                    best[mid] = item
            if memory.kind.value in FACT_KINDS:
                await _fact_cosines(store, memory, near)
                group["facts"].append({
                    "memory_id": memory.memory_id,
                    "tier": memory.tier.value,
                    "kind": memory.kind.value,
                    "text": memory.text,
                    "revision": memory.revision,
                    "reinforced_in_window": reinforced_of.get(memory.memory_id, 0),
                    "sources": [f"context:{c}" for c in _context_ids(memory) if c in events],
                    "neighbours": near,
                })
        group["neighbours"] = sorted(best.values(), key=lambda i: -(i["cosine"] or 0.0))
        for item in group["neighbours"]:
            related.setdefault(item["memory_id"], item)
    day.groups = list(groups.values())

    for item in day.temporaries:  # the store's search, as before, for the model
        if len(related) >= limits.max_related * 2:
            break
        for record in await store.related(
            str(item["text"]), limit=limits.related_per_item, tiers=(Tier.LONG_TERM,)
        ):
            if record.memory_id not in own_ids and not contains_secret(record.text):
                related.setdefault(record.memory_id, _neighbour(record, None, None))
    day.related = [
        {k: item[k] for k in ("memory_id", "kind", "text", "subject", "authority", "revision")}
        for item in sorted(related.values(), key=lambda i: -(i["cosine"] or 0.0))
    ][: limits.max_related]
    day.scope = DayScope(
        context_ids=frozenset(allowed_ids),
        temporary_ids=frozenset(str(i["memory_id"]) for i in day.temporaries),
        related_ids=frozenset(related),
        merge_ids=frozenset(m.memory_id for m in memories if m.tier is Tier.LONG_TERM),
        words=words,
        lines_after=window.end_utc + timedelta(days=DEFER_DAYS),
    )
    return day
