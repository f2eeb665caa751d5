"""The sweep's proposal schema and its validation against one day's input.

The model (or the rules, `RulesSweepExtractor`) answers one JSON object per window:
`{"candidates": [...]}` where each candidate is one of

- `{"action": "promote", "memory_id": <a Temporary memory of the day>, "sources": [...]}`
- `{"action": "add", "kind": ..., "text": ..., "subject": ..., "sources": [...]}`: a
  new Long-Term memory (a dated diary line of the day, a fact);
- `{"action": "amend", "memory_id": <a related Long-Term memory>, "text": ..., "sources":
  [...]}`: the day changed or restated it;
- `{"action": "reinforce", "memory_id": <a related Long-Term memory>, "sources": [...]}`:
  the day confirms it (it lives the Long-Term TTL from now);
- `{"action": "merge", "memory_id": <a related Long-Term memory>, "from_id": <a Long-Term
  memory a processor wrote during the window>, "text": ..., "sources": [...]}`: the
  newer memory says the same thing changed; the older one takes its text and the newer
  one is removed, so one memory holds the fact.

`validate_page` keeps only candidates that cite the day: every source must be a
`context:<id>` of the window's processed notifications or a `memory:<id>` of the
window's Temporary memories; foreign sources are removed, and a candidate left with
none is dropped (`no_provenance`). An add or amend may carry `until` (the memory lives
at least until then: an upcoming event) and gets `detail`, the search-only words of the
notifications it cites (`DayScope.words`), so recall finds it by what they said. An
added event (a diary line) gets `after`: it is applied once the day's Temporary
memories are about to leave (`DayScope.lines_after`), so a line and the memories it
consolidates never crowd each other out of a recall. Each
kept candidate is normalized and carries a digest of its canonical JSON, the key of its
receipt. Dropped candidates are only counted by reason code: no text is kept about them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from companion_memory.core.errors import InvalidInputError
from companion_memory.memory.records import (
    PERSONAL_KINDS,
    SOURCES_LIMIT,
    TEXT_LIMIT_CHARS,
    normalize_text,
)
from companion_memory.memory.secrets import contains_secret, redact

SCHEMA_VERSION = 2
"""Version of the staged page format; a stage with an older version is attested empty
(1: promote, add and amend without search detail)."""

SUBJECT_LIMIT_CHARS = 80
SOURCES_PER_CANDIDATE = SOURCES_LIMIT
"""A diary line cites every notification of its conversation (a memory keeps 32)."""
DETAIL_LIMIT_BYTES = 480
"""The most search-only words a consolidated memory keeps (UTF-8 bytes)."""
ACTIONS = ("promote", "add", "amend", "reinforce", "merge")

SWEEP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "candidates": {
            "type": "array",
            "maxItems": 32,
            "items": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": list(ACTIONS)},
                    "memory_id": {"type": "string", "maxLength": 128},
                    "kind": {"type": "string", "enum": sorted(k.value for k in PERSONAL_KINDS)},
                    "text": {"type": "string", "maxLength": TEXT_LIMIT_CHARS},
                    "subject": {"type": "string", "maxLength": SUBJECT_LIMIT_CHARS},
                    "from_id": {"type": "string", "maxLength": 128},
                    "until": {"type": "string", "maxLength": 40},

                    "sources": {
                        "type": "array",
                        "maxItems": SOURCES_PER_CANDIDATE,
                        "items": {"type": "string", "maxLength": 160},
                    },
                },
                "required": ["action", "sources"],
            },
        }
    },
    "required": ["candidates"],
}

SYSTEM_PROMPT = (
    "You consolidate one completed day of a personal memory so that it can be recalled "
    "months later. ITEMS are the day's notifications (type notification, with context_id), "
    "Temporary memories (type temporary) and the Long-Term facts written today (type "
    "new_long_term), each with a memory_id. Propose: for each person "
    "and each notable event of the day, 'add' ONE dated diary line (kind event) such as "
    "'2026-01-14 (Wed): Peng Yuqing - art exhibition at the city museum, meet 3 pm', "
    "keeping the names, places, times and facts, citing every notification it covers; "
    "'add' a durable fact or preference about a person, a place, a plan or the owner "
    "(kind fact or preference, a short subject naming what it is about); 'promote' a "
    "Temporary memory that is such a fact; 'amend' a RELATED MEMORY when the day changes "
    "or corrects it (never add a second memory of the same fact); 'merge' an item of type "
    "new_long_term into the RELATED MEMORY it restates or changes (memory_id: the related "
    "memory, from_id: the item, text: the current statement); 'reinforce' a RELATED "
    "MEMORY the day confirms. Every candidate must cite sources from the ITEMS as "
    "'context:<id>' or 'memory:<id>'. Never copy codes, passwords or other secrets. "
    "Leave out advertising, news and other noise; propose nothing when the day holds "
    "nothing worth keeping."
)


def canonical(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def normalize_subject(subject: str | None) -> str | None:
    if subject is None:
        return None
    folded = normalize_text(subject)[:SUBJECT_LIMIT_CHARS]
    return folded or None


@dataclass(frozen=True, slots=True)
class Candidate:
    """One validated candidate, as staged."""

    action: str
    sources: tuple[str, ...]
    memory_id: str | None = None
    kind: str | None = None
    text: str | None = None
    subject: str | None = None
    digest: str = ""
    from_id: str | None = None
    detail: str | None = None
    until: str | None = None
    """RFC 3339: the memory lives at least until then (an upcoming event)."""
    after: str | None = None
    """RFC 3339: not applied before then (a day's diary line waits until the day's
    Temporary memories leave, so the two never compete in recall)."""

    def body(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "memory_id": self.memory_id,
            "kind": self.kind,
            "text": self.text,
            "subject": self.subject,
            "sources": list(self.sources),
            "from_id": self.from_id,
            "detail": self.detail,
            "until": self.until,
            "after": self.after,
        }

    def sealed(self) -> Candidate:
        """This candidate with the digest of its body."""
        return Candidate(self.action, self.sources, self.memory_id, self.kind, self.text,
                         self.subject, candidate_digest(self), self.from_id, self.detail,
                         self.until, self.after)

    def until_at(self) -> datetime | None:
        """`until` as an aware datetime, or None."""
        return parse_until(self.until)

    def due(self, now: datetime) -> bool:
        """Whether it may be applied at `now` (no `after`, or `after` has passed)."""
        after = parse_until(self.after)
        return after is None or after <= now

    def to_dict(self) -> dict[str, Any]:
        return {**self.body(), "digest": self.digest}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        """Rebuild a staged candidate; `ValueError` when it is not one we wrote."""
        if not isinstance(data, dict) or data.get("action") not in ACTIONS:
            raise InvalidInputError("not a staged candidate")
        sources = data.get("sources")
        if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
            raise InvalidInputError("staged candidate sources are malformed")
        made = cls(
            action=data["action"],
            sources=tuple(sources),
            memory_id=data.get("memory_id"),
            kind=data.get("kind"),
            text=data.get("text"),
            subject=data.get("subject"),
            from_id=data.get("from_id"),
            detail=data.get("detail"),
            until=data.get("until"),
            after=data.get("after"),
        ).sealed()
        if made.digest != data.get("digest"):
            raise InvalidInputError("staged candidate digest does not match")
        return made


def candidate_digest(candidate: Candidate) -> str:
    return hashlib.sha256(canonical(candidate.body()).encode("utf-8")).hexdigest()


def parse_until(value: Any) -> datetime | None:
    """An RFC 3339 moment with an offset, or None (anything else is no moment)."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


@dataclass(frozen=True, slots=True)
class DayScope:
    """What a candidate of this window may cite and touch."""

    context_ids: frozenset[int]
    temporary_ids: frozenset[str]
    related_ids: frozenset[str]
    merge_ids: frozenset[str] = frozenset()
    """Long-Term memories a processor wrote during the window (what `merge` may fold)."""
    words: Mapping[int, str] = field(default_factory=dict)
    """Search-only words of each cited notification (`context_id` -> words)."""
    lines_after: datetime | None = None
    """When an added event (a diary line) of this day may be applied: once the day's
    Temporary memories are about to leave (`DayInput`, DEFER_DAYS after the day)."""

    def detail_for(self, text: str, sources: tuple[str, ...]) -> str | None:
        """The search-only words of the notifications `sources` cites that `text` does not
        already hold, in order, each once, at most DETAIL_LIMIT_BYTES; None when none."""
        have = {w.casefold() for w in text.split()}
        out: list[str] = []
        size = 0
        for source in sources:
            kind, _, ref = source.partition(":")
            if kind != "context" or not ref.isdigit():
                continue
            for word in self.words.get(int(ref), "").split():
                key = word.casefold()
                if key in have:
                    continue
                if size + len(word.encode("utf-8")) + 1 > DETAIL_LIMIT_BYTES:
                    return _secret_free(" ".join(out))
                have.add(key)
                out.append(word)
                size += len(word.encode("utf-8")) + 1
        return _secret_free(" ".join(out))

    def cites(self, source: str) -> bool:
        kind, _, ref = source.partition(":")
        if kind == "context":
            return ref.isdigit() and int(ref) in self.context_ids
        if kind == "memory":
            return ref in self.temporary_ids
        return False


def _secret_free(words: str) -> str | None:
    """`words` with any secret span redacted away; None when nothing is left or a secret
    remains that no span covers."""
    if not words:
        return None
    if contains_secret(words):
        words = " ".join(w for w in redact(words).split() if "[" not in w and "]" not in w)
        if not words or contains_secret(words):
            return None
    return words


@dataclass(slots=True)
class PageResult:
    candidates: list[Candidate] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    error: str | None = None
    """Set when the page as a whole is unusable (then `candidates` is empty)."""


def _clean_text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or len(text) > TEXT_LIMIT_CHARS:
        return None
    return text


def _one(raw: Any, scope: DayScope, dropped: Counter[str]) -> Candidate | None:
    if not isinstance(raw, dict):
        dropped["not_an_object"] += 1
        return None
    action = raw.get("action")
    if action not in ACTIONS:
        dropped["unknown_action"] += 1
        return None
    raw_sources = raw.get("sources")
    if not isinstance(raw_sources, list):
        dropped["no_provenance"] += 1
        return None
    cited = [s.strip() for s in raw_sources if isinstance(s, str) and scope.cites(s.strip())]
    memory_id = raw.get("memory_id")
    if action == "promote":
        if not isinstance(memory_id, str) or memory_id not in scope.temporary_ids:
            dropped["unknown_target"] += 1
            return None
        cited.append(f"memory:{memory_id}")
    sources = tuple(sorted(dict.fromkeys(cited), key=_source_order))[:SOURCES_PER_CANDIDATE]
    if not sources:
        dropped["no_provenance"] += 1
        return None
    if action == "promote":
        made = Candidate("promote", sources, memory_id=memory_id)
    elif action == "reinforce":
        if not isinstance(memory_id, str) or memory_id not in scope.related_ids:
            dropped["unknown_target"] += 1
            return None
        made = Candidate("reinforce", sources, memory_id=memory_id)
    else:
        text = _clean_text(raw.get("text"))
        if text is None:
            dropped["invalid_text"] += 1
            return None
        subject_raw = raw.get("subject")
        subject = normalize_subject(subject_raw) if isinstance(subject_raw, str) else None
        if contains_secret(text) or (subject is not None and contains_secret(subject)):
            dropped["secret"] += 1
            return None
        until = parse_until(raw.get("until"))
        until_text = None if until is None else until.isoformat()
        detail = scope.detail_for(text, sources)
        if action in ("amend", "merge"):
            if not isinstance(memory_id, str) or memory_id not in scope.related_ids:
                dropped["unknown_target"] += 1
                return None
            from_id = raw.get("from_id")
            if action == "merge" and (not isinstance(from_id, str) or from_id not in
                                      scope.merge_ids or from_id == memory_id):
                dropped["unknown_target"] += 1
                return None
            made = Candidate(action, sources, memory_id=memory_id, text=text, subject=subject,
                             from_id=from_id if action == "merge" else None, detail=detail,
                             until=until_text)
        else:
            kind = raw.get("kind", "fact")
            if kind not in {k.value for k in PERSONAL_KINDS}:
                dropped["invalid_kind"] += 1
                return None
            after = scope.lines_after if kind == "event" else None
            made = Candidate("add", sources, kind=kind, text=text, subject=subject,
                             detail=detail, until=until_text,
                             after=None if after is None else after.isoformat())
    return made.sealed()


def _source_order(source: str) -> tuple[int, int, str]:
    """Notifications first, by context id, then memories."""
    kind, _, ref = source.partition(":")
    if kind == "context" and ref.isdigit():
        return (0, int(ref), "")
    return (1, 0, source)


def validate_page(data: Any, scope: DayScope, *, max_candidates: int = 32) -> PageResult:
    """Validate a model page against the day's scope (see the module docstring)."""
    result = PageResult()
    if not isinstance(data, dict) or not isinstance(data.get("candidates"), list):
        result.error = "page_malformed"
        return result
    seen: set[str] = set()
    for raw in data["candidates"]:
        if len(result.candidates) >= max_candidates:
            result.dropped["candidate_limit"] += 1
            continue
        made = _one(raw, scope, result.dropped)
        if made is None:
            continue
        if made.digest in seen:
            result.dropped["duplicate_candidate"] += 1
            continue
        seen.add(made.digest)
        result.candidates.append(made)
    return result
