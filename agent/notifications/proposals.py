"""The notification proposal schema and its validation.

The model answers `{"p": [{"c": <context_id>, "a": <action>, ...}]}` with short
keys to keep completions small:

- `c` the notification's context id (provenance; must be an analyzed item of the batch)
- `a` one of ignore, add, update, reinforce, remove, promote
- `id`, `rev` the target memory and its current revision (update/reinforce/remove/promote)
- `t` the distilled statement (add/update), `k` its kind, `au` its authority,
  `tier` temporary (default) or long_term (add only)
- `end` (optional, add/update of a Temporary event) when the event is over, as an RFC
  3339 time with an offset: the memory expires then instead of after the fixed TTL. An
  unreadable `end`, or one without an offset, is ignored (the TTL applies)

Validation has two outcomes per problem. Blocking problems (malformed answer,
an id outside the notification's related set, a stale revision) invalidate the
batch: nothing is applied and the cursor stays, so the batch is retried whole.
Dropped problems (no provenance, a second action for a notification,
text out of bounds or holding a secret, an owner-rejected text, too low an
authority) remove just that proposal and are counted by reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from companion_memory.agent.notifications.dates import aware_time
from companion_memory.memory.records import (
    AUTHORITY_RANK,
    PERSONAL_KINDS,
    Authority,
    Kind,
    MemoryRecord,
    Tier,
    normalize_text,
)
from companion_memory.memory.secrets import contains_secret

ACTIONS = ("ignore", "add", "update", "reinforce", "remove", "promote")
TARGETED = frozenset({"update", "reinforce", "remove", "promote"})
TEXT_MIN_CHARS = 3
TEXT_MAX_CHARS = 280
"""A memory is one distilled statement; longer answers are copied bodies."""
ALLOWED_AUTHORITIES = (Authority.INFERENCE, Authority.AGENT_CONCLUSION)
"""A notification is third-party text: it never carries the owner's direct statement."""
BLOCKING = frozenset({"malformed", "unknown_memory", "stale_revision"})

PROPOSAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "p": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "c": {"type": "integer"},
                    "a": {"enum": list(ACTIONS)},
                    "id": {"type": "string"},
                    "rev": {"type": "integer"},
                    "t": {"type": "string", "maxLength": TEXT_MAX_CHARS},
                    "k": {"enum": sorted(k.value for k in PERSONAL_KINDS)},
                    "au": {"enum": [a.value for a in ALLOWED_AUTHORITIES]},
                    "tier": {"enum": [Tier.TEMPORARY.value, Tier.LONG_TERM.value]},
                    "end": {"type": "string"},
                },
                "required": ["c", "a"],
            },
        }
    },
    "required": ["p"],
}

@dataclass(frozen=True, slots=True)
class ItemContext:
    """What validation needs about one analyzed notification of the batch."""

    context_id: int
    source_ids: tuple[int, ...]
    """Every context id coalesced into this item (all become the memory's sources)."""
    related: Mapping[str, MemoryRecord]


@dataclass(frozen=True, slots=True)
class Proposal:
    context_id: int
    action: str
    memory_id: str | None = None
    revision: int | None = None
    text: str | None = None
    kind: Kind = Kind.EVENT
    authority: Authority = Authority.INFERENCE
    tier: Tier = Tier.TEMPORARY
    event_end: datetime | None = None
    """When the event the memory is about is over (a Temporary memory expires then)."""


@dataclass(slots=True)
class Validation:
    accepted: dict[int, Proposal] = field(default_factory=dict)
    proposals: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    blocking: Counter[str] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return not self.blocking

    def reject(self, reason: str) -> None:
        self.rejected[reason] += 1
        if reason in BLOCKING:
            self.blocking[reason] += 1


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value.strip())
    return None


def _text_problem(text: Any, rejected: Collection[str]) -> str | None:
    if not isinstance(text, str):
        return "text_bounds"
    stripped = " ".join(text.split())
    if not TEXT_MIN_CHARS <= len(stripped) <= TEXT_MAX_CHARS:
        return "text_bounds"
    if contains_secret(stripped):
        return "contains_secret"
    if normalize_text(stripped) in rejected:
        return "rejected_by_owner"
    return None


def _parse_entry(entry: Any, items: Mapping[int, ItemContext], result: Validation) -> None:
    if not isinstance(entry, dict):
        result.reject("malformed")
        return
    context_id = _as_int(entry.get("c"))
    action = entry.get("a")
    if context_id is None or action not in ACTIONS:
        result.reject("malformed")
        return
    result.proposals[str(action)] += 1
    if context_id not in items:
        result.reject("no_provenance")
        return
    if context_id in result.accepted:
        result.reject("multiple_actions")
        return
    result.accepted[context_id] = Proposal(context_id, str(action))


def validate_proposals(
    data: dict[str, Any] | None,
    items: Mapping[int, ItemContext],
    *,
    rejected_texts: Collection[str] = (),
) -> Validation:
    """Check the model's answer against the batch; see the module docstring.

    `rejected_texts` are normalized (`normalize_text`) owner-rejected texts.
    """
    result = Validation()
    entries = data.get("p") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        result.reject("malformed")
        return result
    raw: dict[int, dict[str, Any]] = {}
    for entry in entries:
        before = set(result.accepted)
        _parse_entry(entry, items, result)
        for cid in set(result.accepted) - before:
            raw[cid] = entry
    final: dict[int, Proposal] = {}
    for cid, shell in result.accepted.items():
        checked = _check(raw[cid], shell, items[cid], rejected_texts, result)
        if checked is not None:
            final[cid] = checked
    result.accepted = final
    return result


def _check(
    entry: dict[str, Any],
    shell: Proposal,
    item: ItemContext,
    rejected: Collection[str],
    result: Validation,
) -> Proposal | None:
    action = shell.action
    if action == "ignore":
        return shell
    try:
        authority = Authority(entry.get("au") or Authority.INFERENCE.value)
    except ValueError:
        result.reject("malformed")
        return None
    if authority not in ALLOWED_AUTHORITIES:
        result.reject("authority_not_allowed")
        return None
    target: MemoryRecord | None = None
    revision: int | None = None
    if action in TARGETED:
        memory_id = entry.get("id")
        revision = _as_int(entry.get("rev"))
        if not isinstance(memory_id, str) or memory_id not in item.related:
            result.reject("unknown_memory")
            return None
        target = item.related[memory_id]
        if revision != target.revision:
            result.reject("stale_revision")
            return None
        if action in ("update", "remove") and \
                AUTHORITY_RANK[authority] < AUTHORITY_RANK[target.authority]:
            result.reject("authority_too_low")
            return None
        if action == "promote" and target.tier is not Tier.TEMPORARY:
            result.reject("not_temporary")
            return None
    text: str | None = None
    kind = target.kind if target is not None else Kind.EVENT
    tier = Tier.TEMPORARY
    if action in ("add", "update"):
        problem = _text_problem(entry.get("t"), rejected)
        if problem is not None:
            result.reject(problem)
            return None
        text = " ".join(str(entry["t"]).split())
    if action == "add":
        try:
            kind = Kind(entry.get("k") or Kind.EVENT.value)
            tier = Tier(entry.get("tier") or Tier.TEMPORARY.value)
        except ValueError:
            result.reject("malformed")
            return None
        if kind not in PERSONAL_KINDS or tier not in (Tier.TEMPORARY, Tier.LONG_TERM):
            result.reject("invalid_kind")
            return None
    end = aware_time(entry.get("end")) if kind is Kind.EVENT and tier is Tier.TEMPORARY \
        and action in ("add", "update") else None
    return Proposal(
        context_id=shell.context_id,
        action=action,
        memory_id=target.memory_id if target is not None else None,
        revision=revision,
        text=text,
        kind=kind,
        authority=authority,
        tier=tier,
        event_end=end,
    )

