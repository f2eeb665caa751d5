"""The notification scenario's extractors: a batch of analyzed items in, proposals out.

`NotificationProcessor` builds a `NotificationBatch` (each item the triage kept, with its
related memories) and calls its `NotificationExtractor`; it gets a `NotificationExtraction`
back: the accepted `Proposal` per context id, the counts the round report carries, and a
failure code when the answer as a whole is unusable (the batch is then retried).

- `RulesNotificationExtractor`: the deterministic statement of each item
  (`agent.notifications.fallback`), called directly on the items; validated like any
  proposal (`proposals.validate_proposals`), no model and no JSON text.
- `ModelNotificationExtractor`: the per-batch contract (`agent.notifications.contract`),
  one call per `items_per_call` items through `MemoryMergeEngine`; an entry that is
  missing, unusable or holds a secret gets the rules' statement for that item alone
  (counted as `fallback_statement`), so one bad entry never loses an item.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import Any

from companion_memory.agent.extraction import MODEL, RULES, Extractor, Usage
from companion_memory.agent.model.merge import MemoryMergeEngine, bound_rejections
from companion_memory.agent.model.provider import Message
from companion_memory.agent.notifications.contract import (
    EXAMPLE_ANSWER,
    EXAMPLE_USER,
    SYSTEM_PROMPT,
    BatchItem,
    ItemAnswer,
    batch_schema,
    output_budget,
    read_answer,
    render_items,
)
from companion_memory.agent.notifications.fallback import app_label, notification_fallback
from companion_memory.agent.notifications.proposals import (
    ItemContext,
    Proposal,
    validate_proposals,
)
from companion_memory.ble.events import NotificationEvent, format_rfc3339
from companion_memory.core.errors import InvalidInputError
from companion_memory.memory.recall import query_terms
from companion_memory.memory.records import AUTHORITY_RANK, Authority, Kind, MemoryRecord, Tier
from companion_memory.memory.secrets import contains_secret

SCENARIO = "notifications"

MIN_SHARED_TERMS = 2
"""A related memory is shown to the model only when its statement shares this many
search terms with the notification (the notification's own earlier memory always is).
The lookup ORs the rarest terms, so a memory sharing one uncommon word comes back too;
a small model copies such an unrelated line into its statement, and every line costs
prompt tokens."""


@dataclass(frozen=True, slots=True)
class NotificationItem:
    """One analyzed notification (after triage) and what it may act on."""

    context_id: int
    """The context id of its newest event (the one whose content counts)."""
    source_ids: tuple[int, ...]
    """Every context id coalesced into it."""
    event: NotificationEvent
    related: Mapping[str, MemoryRecord]
    """The memories it may change, by id (its own memory first, when it has one)."""
    own: MemoryRecord | None = None
    """The memory an earlier event of the same notification made."""

    def context(self) -> ItemContext:
        return ItemContext(self.context_id, self.source_ids, self.related)


@dataclass(frozen=True, slots=True)
class NotificationBatch:
    items: tuple[NotificationItem, ...]
    rejections: tuple[str, ...] = ()
    """The owner's recent rejections, as redacted gists (a model is told to avoid them)."""
    zone: tzinfo = UTC
    """The owner's zone: local dates and times of the items."""


@dataclass(slots=True)
class NotificationExtraction:
    """Validated proposals by context id, the counts for the report, and `failure`: the
    reason code when the answer as a whole was unusable (nothing is applied)."""

    accepted: dict[int, Proposal] = field(default_factory=dict)
    proposals: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    extra: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    failure: str | None = None


NotificationExtractor = Extractor[NotificationBatch, NotificationExtraction]
"""What the processor calls: the rules or the model (`agent.extraction.Extractor`)."""


# -- the rules ---------------------------------------------------------------------------


def rules_item(item: NotificationItem, zone: tzinfo) -> dict[str, Any]:
    """The item as the rules read it (`fallback.notification_fallback`)."""
    event = item.event
    data: dict[str, Any] = {"c": item.context_id, "app": event.app_id}
    for key, value in (("title", event.title), ("sub", event.subtitle), ("body", event.body),
                       ("cat", event.category)):
        if value:
            data[key] = value
    data["at"] = format_rfc3339(event.posted_at)
    data["local"] = event.posted_at.astimezone(zone).isoformat(timespec="seconds")
    return data


def rules_related(items: Sequence[NotificationItem]) -> list[dict[str, Any]]:
    """Each related memory once, with the items (`for`) it is related to."""
    lines: dict[str, dict[str, Any]] = {}
    for item in items:
        for record in item.related.values():
            line = lines.get(record.memory_id)
            if line is None:
                line = lines[record.memory_id] = {
                    "id": record.memory_id, "rev": record.revision, "tier": record.tier.value,
                    "kind": record.kind.value, "au": record.authority.value,
                    "text": record.text, "for": [],
                }
            line["for"].append(item.context_id)
    return list(lines.values())


def rules_input(items: Sequence[NotificationItem], zone: tzinfo) -> dict[str, Any]:
    """The batch as the rules (and a provider double in tests) read it."""
    return {"items": [rules_item(item, zone) for item in items],
            "related": rules_related(items)}


class RulesNotificationExtractor:
    """The deterministic statements (see the module docstring); no model."""

    name = RULES

    async def extract(self, batch: NotificationBatch, /) -> NotificationExtraction:
        return self.extract_now(batch.items, batch.zone)

    @staticmethod
    def extract_now(items: Sequence[NotificationItem], zone: tzinfo) -> NotificationExtraction:
        """The rules' proposals for `items`, synchronously (they make no call)."""
        result = NotificationExtraction()
        answer = notification_fallback(rules_input(items, zone))
        validation = validate_proposals(answer, {i.context_id: i.context() for i in items})
        result.proposals.update(validation.proposals)
        result.rejected.update(validation.rejected)
        if not validation.ok:
            result.failure = next(iter(validation.blocking))
            return result
        result.accepted.update(validation.accepted)
        return result


# -- the model ---------------------------------------------------------------------------

_CONTRACT_KINDS = {"event": Kind.EVENT, "task": Kind.EVENT, "fact": Kind.FACT,
                   "preference": Kind.PREFERENCE}


class ModelNotificationExtractor:
    """The per-batch contract through `MemoryMergeEngine` (see the module docstring).

    `items_per_call` bounds the items of one call (None: the whole batch in one), so
    that every answer the grammar allows fits the output budget."""

    name = MODEL

    def __init__(self, engine: MemoryMergeEngine, *, items_per_call: int | None = None) -> None:
        if items_per_call is not None and (not isinstance(items_per_call, int)
                                           or isinstance(items_per_call, bool)
                                           or items_per_call < 1):
            raise InvalidInputError(
                f"items_per_call must be None or an integer >= 1, not {items_per_call!r}")
        self.engine = engine
        self.items_per_call = items_per_call

    async def extract(self, batch: NotificationBatch, /) -> NotificationExtraction:
        """One call per chunk; raises `ModelError` when a call fails."""
        result = NotificationExtraction()
        items = list(batch.items)
        step = self.items_per_call or len(items) or 1
        for start in range(0, len(items), step):
            chunk = items[start:start + step]
            shown = [contract_item(item) for item in chunk]
            raw = await self.engine.extract_messages(
                scenario=SCENARIO,
                messages=contract_messages(shown, list(batch.rejections), batch.zone),
                schema=batch_schema(shown),
                payload=rules_input(chunk, batch.zone),
                max_output_tokens=output_budget(shown),
            )
            result.usage.count(raw)
            if raw.data is None:
                code = raw.error or "invalid_json"
                result.rejected[code] += 1
                result.failure = code
                return result
            answers = read_answer(raw.data, shown, batch.zone)
            for item, answer in zip(chunk, answers, strict=True):
                proposal = self._proposal(item, answer, batch.zone, result)
                if proposal is not None:
                    result.accepted[item.context_id] = proposal
        return result

    @staticmethod
    def _proposal(item: NotificationItem, answer: ItemAnswer | None, zone: tzinfo,
                  result: NotificationExtraction) -> Proposal | None:
        """The model's entry as a proposal; the rules' statement for this item alone when
        the entry is missing, unusable, holds a secret or may not change its target."""
        problem = None
        if answer is None:
            problem = "unusable_entry"
        elif answer.text is not None and contains_secret(answer.text):
            problem = "contains_secret"
        elif answer.target is not None and answer.action in ("update", "remove") and \
                AUTHORITY_RANK[Authority.INFERENCE] < AUTHORITY_RANK[answer.target.authority]:
            problem = "authority_too_low"
        if problem is not None or answer is None:  # (answer is None: problem is set)
            result.rejected[problem or "unusable_entry"] += 1
            rules = RulesNotificationExtractor.extract_now([item], zone)
            proposal = rules.accepted.get(item.context_id)
            if proposal is not None:
                result.extra["fallback_statement"] += 1
            return proposal
        result.proposals[answer.action] += 1
        kind = _CONTRACT_KINDS[answer.kind]
        lasting = answer.action == "add" and kind in (Kind.FACT, Kind.PREFERENCE)
        end = None
        posted = item.event.posted_at.astimezone(zone).date()
        if answer.when is not None and kind is Kind.EVENT and answer.when >= posted:
            # (a date before the notification is a misread one: the default TTL applies)
            end = datetime.combine(answer.when + timedelta(days=1), time.min, zone)
        target = answer.target
        return Proposal(
            context_id=item.context_id, action=answer.action,
            memory_id=target.memory_id if target is not None else None,
            revision=target.revision if target is not None else None,
            text=answer.text, kind=target.kind if target is not None else kind,
            tier=Tier.LONG_TERM if lasting else Tier.TEMPORARY, event_end=end,
        )


def contract_item(item: NotificationItem) -> BatchItem:
    """The item as the contract shows it (render_items shows the same anchor's source),
    with the related memories that are about the same thing."""
    event = item.event
    mine = item.own
    own_terms = set(query_terms(" ".join((event.title, event.subtitle, event.body))))
    shown = tuple(
        r for r in item.related.values()
        if (mine is not None and r.memory_id == mine.memory_id)
        or len(own_terms.intersection(query_terms(r.text))) >= MIN_SHARED_TERMS
    )
    return BatchItem(item.context_id, event.posted_at, app_label(event.app_id), event.title,
                     event.subtitle, event.body, shown)


def contract_messages(
    batch: list[BatchItem], rejections: list[str], zone: tzinfo
) -> tuple[Message, ...]:
    """System rules, one worked example (a fixed prefix: the KV cache reuses it), then
    the owner's rejections (as redacted gists) and this batch's items."""
    parts: list[str] = []
    bounded = bound_rejections(rejections)
    if bounded:
        parts.append("The owner rejected these; never write them again:")
        parts.extend(f'- "{text}"' for text in bounded)
    parts.append(render_items(batch, zone))
    return (
        Message("system", SYSTEM_PROMPT),
        Message("user", EXAMPLE_USER),
        Message("assistant", EXAMPLE_ANSWER),
        Message("user", "\n".join(parts)),
    )
