"""The sweep's proposal schema and its validation against one day's input.

The model (or the deterministic fallback) answers one JSON object per window:
`{"candidates": [...]}` where each candidate is one of

- `{"action": "promote", "memory_id": <a Temporary memory of the day>, "sources": [...]}`
- `{"action": "add", "kind": ..., "text": ..., "subject": ..., "sources": [...]}`
- `{"action": "amend", "memory_id": <a related Long-Term memory>, "text": ..., "sources": [...]}`

`validate_page` keeps only candidates that cite the day: every source must be a
`context:<id>` of the window's processed notifications or a `memory:<id>` of the
window's Temporary memories; foreign sources are removed, and a candidate left with
none is dropped (`no_provenance`). Each kept candidate is normalized and carries a
digest of its canonical JSON, the key of its receipt. Dropped candidates are only
counted by reason code: no text is kept about them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson

from companion_memory.core.errors import InvalidInputError
from companion_memory.memory.records import PERSONAL_KINDS, TEXT_LIMIT_CHARS, normalize_text
from companion_memory.memory.secrets import contains_secret

SCHEMA_VERSION = 1
"""Version of the staged page format; a stage with an older version is attested empty."""

SUBJECT_LIMIT_CHARS = 80
SOURCES_PER_CANDIDATE = 8
ACTIONS = ("promote", "add", "amend")

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
    "You consolidate one completed day of a personal memory. ITEMS are the day's "
    "notifications (type notification, with context_id) and Temporary memories (type "
    "temporary, with memory_id). Propose at most a few candidates: 'promote' a Temporary "
    "memory that is durable and worth keeping long-term (reinforced during the day is a good "
    "sign); 'add' a durable fact, preference, rule or procedure the day clearly shows, with "
    "a short subject naming what it is about; 'amend' a RELATED MEMORY only when the day "
    "corrects it. Every candidate must cite sources from the ITEMS as 'context:<id>' or "
    "'memory:<id>'. Never copy codes, passwords or other secrets. Propose nothing when the "
    "day holds nothing durable."
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

    def body(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "memory_id": self.memory_id,
            "kind": self.kind,
            "text": self.text,
            "subject": self.subject,
            "sources": list(self.sources),
        }

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
        )
        digest = candidate_digest(made)
        if digest != data.get("digest"):
            raise InvalidInputError("staged candidate digest does not match")
        return cls(made.action, made.sources, made.memory_id, made.kind, made.text,
                   made.subject, digest)


def candidate_digest(candidate: Candidate) -> str:
    return hashlib.sha256(canonical(candidate.body()).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class DayScope:
    """What a candidate of this window may cite and touch."""

    context_ids: frozenset[int]
    temporary_ids: frozenset[str]
    related_ids: frozenset[str]

    def cites(self, source: str) -> bool:
        kind, _, ref = source.partition(":")
        if kind == "context":
            return ref.isdigit() and int(ref) in self.context_ids
        if kind == "memory":
            return ref in self.temporary_ids
        return False


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
    sources = tuple(sorted(dict.fromkeys(cited)))[:SOURCES_PER_CANDIDATE]
    if not sources:
        dropped["no_provenance"] += 1
        return None
    if action == "promote":
        made = Candidate("promote", sources, memory_id=memory_id)
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
        if action == "amend":
            if not isinstance(memory_id, str) or memory_id not in scope.related_ids:
                dropped["unknown_target"] += 1
                return None
            made = Candidate("amend", sources, memory_id=memory_id, text=text, subject=subject)
        else:
            kind = raw.get("kind", "fact")
            if kind not in {k.value for k in PERSONAL_KINDS}:
                dropped["invalid_kind"] += 1
                return None
            made = Candidate("add", sources, kind=kind, text=text, subject=subject)
    return Candidate(made.action, made.sources, made.memory_id, made.kind, made.text,
                     made.subject, candidate_digest(made))


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
