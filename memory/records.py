"""What is remembered: `MemoryRecord`, `MemoryIntent` and their vocabularies.

These types are shared by the store (which executes intents) and the agent's
processors (which produce them). Validation happens at construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum, StrEnum
from typing import Any

from companion_memory.core.errors import (
    CompanionMemoryError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
)
from companion_memory.memory.secrets import find_secret

DETAIL_LIMIT_BYTES = 8192
"""A memory's search-only detail: the title, subtitle and 4 KiB body of its sources."""
TEXT_LIMIT_CHARS = 500
"""A memory is a distilled statement, not a copied body."""

SOURCES_LIMIT = 32
ORIGIN_LIMIT_CHARS = 1024
"""A memory's app id and sender (a notification's own fields are at most 1 KiB)."""


class Tier(StrEnum):
    TEMPORARY = "temporary"
    LONG_TERM = "long_term"
    DEVICE = "device"


class Kind(StrEnum):
    # Temporary and Long-Term
    PREFERENCE = "preference"
    RULE = "rule"
    FACT = "fact"
    EVENT = "event"
    PROCEDURE = "procedure"
    # Device tier
    DEVICE_PROCEDURE = "device_procedure"
    DEVICE_LOCATION = "device_location"
    DEVICE_REQUIREMENT = "device_requirement"
    DEVICE_QUIRK = "device_quirk"


PERSONAL_KINDS = frozenset(
    {Kind.PREFERENCE, Kind.RULE, Kind.FACT, Kind.EVENT, Kind.PROCEDURE}
)
DEVICE_KINDS = frozenset(
    {Kind.DEVICE_PROCEDURE, Kind.DEVICE_LOCATION, Kind.DEVICE_REQUIREMENT, Kind.DEVICE_QUIRK}
)


class Authority(StrEnum):
    """Who stands behind a memory; see `AUTHORITY_RANK`."""

    DIRECT_USER_STATEMENT = "direct_user_statement"
    AGENT_CONCLUSION = "agent_conclusion"
    INFERENCE = "inference"


class AuthorityRank(IntEnum):
    INFERENCE = 1
    AGENT_CONCLUSION = 2
    DIRECT_USER_STATEMENT = 3


AUTHORITY_RANK: dict[Authority, int] = {
    Authority.INFERENCE: AuthorityRank.INFERENCE,
    Authority.AGENT_CONCLUSION: AuthorityRank.AGENT_CONCLUSION,
    Authority.DIRECT_USER_STATEMENT: AuthorityRank.DIRECT_USER_STATEMENT,
}


class Status(StrEnum):
    ACTIVE = "active"
    DELETED = "deleted"
    SUPERSEDED = "superseded"


class SourceKind(StrEnum):
    CONTEXT = "context"  # a notification's context_id
    EPISODE = "episode"  # an episode_id
    MEMORY = "memory"  # another memory_id
    AGENT = "agent"  # save_memory from the agent (a conversation/turn reference)


@dataclass(frozen=True, slots=True)
class SourceRef:
    kind: SourceKind
    ref: str

    def to_str(self) -> str:
        return f"{self.kind.value}:{self.ref}"

    @classmethod
    def parse(cls, text: str) -> SourceRef:
        kind, sep, ref = text.partition(":")
        if not sep or not ref:
            raise InvalidMemoryError("sources", "each source must look like 'context:42'")
        try:
            return cls(SourceKind(kind), ref)
        except ValueError:
            allowed = ", ".join(k.value for k in SourceKind)
            raise InvalidMemoryError(
                "sources", f"unknown source kind (allowed: {allowed})"
            ) from None


class MemoryStoreError(CompanionMemoryError):
    """Base of memory-store errors."""

    code = "memory_error"


class InvalidMemoryError(MemoryStoreError, InvalidInputError):
    """A record or intent failed validation; `field` names what was wrong."""

    code = "invalid_memory"

    def __init__(self, field_name: str, reason: str) -> None:
        self.field = field_name
        super().__init__(f"{field_name}: {reason}")


class MemoryNotFoundError(MemoryStoreError, NotFoundError):
    code = "memory_not_found"

    def __init__(self, memory_id: str) -> None:
        self.memory_id = memory_id
        super().__init__(f"memory {memory_id} does not exist")


class RevisionConflictError(MemoryStoreError, ConflictError):
    """Compare-and-set failed: the record changed since the caller read it."""

    code = "revision_conflict"

    def __init__(self, memory_id: str, expected: int, actual: int) -> None:
        self.memory_id = memory_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"memory {memory_id} is at revision {actual}, not {expected}; re-read and retry"
        )


class AuthorityError(MemoryStoreError, InvalidInputError):
    """A lower-authority intent tried to amend a higher-authority record."""

    code = "authority_too_low"


class RejectedContentError(MemoryStoreError, InvalidInputError):
    """The owner rejected a memory with this text before; it is not written again."""

    code = "rejected_by_owner"


class SecretInStatementError(MemoryStoreError, InvalidInputError):
    """A memory's text, subject or search detail holds a secret (a one-time code, a
    password, a card number, an IBAN, a key): the store never keeps one. `field` names
    the part, `kind` the kind of secret; neither the message nor the error carries the
    text."""

    code = "secret_in_statement"

    def __init__(self, field_name: str, kind: str) -> None:
        self.field = field_name
        self.kind = kind
        super().__init__(
            f"{field_name}: holds a secret ({kind}); a memory never stores one-time codes, "
            "passwords, card numbers, IBANs or keys - redact the value and retry"
        )


def refuse_secrets(**fields: str | None) -> None:
    """Raise `SecretInStatementError` for the first field holding a secret."""
    for name, value in fields.items():
        if value:
            kind = find_secret(value)
            if kind is not None:
                raise SecretInStatementError(name, kind)


class CursorConflictError(MemoryStoreError, ConflictError):
    """A cursor advance did not start where the stored cursor is."""

    code = "cursor_conflict"


def normalize_text(text: str) -> str:
    """Lower case, single spaces, no surrounding punctuation: the duplicate key."""
    folded = " ".join(text.casefold().split())
    return folded.strip(" .,!?;:")


def validate_text(text: Any) -> str:
    if not isinstance(text, str):
        raise InvalidMemoryError("text", "must be a string")
    stripped = text.strip()
    if not stripped:
        raise InvalidMemoryError("text", "must not be empty")
    if len(stripped) > TEXT_LIMIT_CHARS:
        raise InvalidMemoryError(
            "text", f"is {len(stripped)} characters; at most {TEXT_LIMIT_CHARS} are allowed"
        )
    return stripped


def validate_sources(sources: Any) -> tuple[SourceRef, ...]:
    if not sources:
        raise InvalidMemoryError("sources", "at least one source is required (provenance)")
    if len(sources) > SOURCES_LIMIT:
        raise InvalidMemoryError("sources", f"at most {SOURCES_LIMIT} sources are allowed")
    out: list[SourceRef] = []
    for item in sources:
        if isinstance(item, SourceRef):
            out.append(item)
        elif isinstance(item, str):
            out.append(SourceRef.parse(item))
        else:
            raise InvalidMemoryError("sources", "each source must be a SourceRef or 'kind:ref'")
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One stored memory. Temporary and Long-Term share this retrievable format."""

    memory_id: str
    revision: int
    tier: Tier
    kind: Kind
    text: str
    authority: Authority
    sources: tuple[SourceRef, ...]
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None
    reinforced: int = 0
    status: Status = Status.ACTIVE
    subject: str | None = None
    superseded_by: str | None = None
    auto: bool = True
    """Created by a processor (auto-expiring Long-Term) rather than the agent or owner."""
    occurred_at: datetime | None = None
    """When its content happened or arrived: the posting time of its newest source
    notification for a notification's memory, else its creation time (what `since` and
    `until` filter on). None only on a record built by hand."""
    app_id: str | None = None
    """The app of its source notification (a notification's memory), else None."""
    sender: str | None = None
    """The sender as the phone names it, for a memory of a message notification."""

    def is_live(self, now: datetime) -> bool:
        if self.status is not Status.ACTIVE:
            return False
        return self.expires_at is None or self.expires_at > now

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "revision": self.revision,
            "tier": self.tier.value,
            "kind": self.kind.value,
            "text": self.text,
            "authority": self.authority.value,
            "sources": [s.to_str() for s in self.sources],
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "expires_at": self.expires_at.isoformat() if self.expires_at else None,
            "reinforced": self.reinforced,
            "status": self.status.value,
            "subject": self.subject,
            "superseded_by": self.superseded_by,
            "auto": self.auto,
            "occurred_at": self.occurred_at.isoformat() if self.occurred_at else None,
            "app_id": self.app_id,
            "sender": self.sender,
        }


class IntentOp(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    REINFORCE = "reinforce"
    REMOVE = "remove"
    PROMOTE = "promote"
    SUPERSEDE = "supersede"


@dataclass(frozen=True, slots=True)
class MemoryIntent:
    """An explicit instruction to the store, executed as given (never reinterpreted).

    - create: `memory_id`, `tier`, `kind`, `text`, `authority`, `sources` required;
      no similarity search; `subject` optional.
    - update: `memory_id`, `expected_revision`, new `text` and `sources` (added to
      the record's), `authority` of the proposer.
    - reinforce: `memory_id`, `expected_revision`, `sources`, `authority`; extends expiry.
    - remove: `memory_id`, `expected_revision`, `authority`, `reason`.
    - promote: `memory_id` (a Temporary record), `expected_revision`, `receipt_id`.
    - supersede: `memory_id` (the older record), `expected_revision`, `superseded_by`.
    """

    op: IntentOp
    memory_id: str
    expected_revision: int | None = None
    tier: Tier | None = None
    kind: Kind | None = None
    text: str | None = None
    authority: Authority = Authority.INFERENCE
    sources: tuple[SourceRef, ...] = field(default_factory=tuple)
    subject: str | None = None
    reason: str | None = None
    superseded_by: str | None = None
    receipt_id: str | None = None
    auto: bool = True
    detail: str | None = None
    """create/update: search-only words (the sources' own text) indexed beside `text`;
    never shown or exported. None on update keeps the record's detail."""
    occurred_at: datetime | None = None
    """create: when the content happened or arrived (a notification's posting time; None:
    the write's time); update/reinforce: a newer source's time, kept when later than the
    record's."""
    app_id: str | None = None
    """create/update: the app of the source notification (None keeps it unset/unchanged)."""
    sender: str | None = None
    """create/update: the message's sender as the phone names it (None: unset/unchanged)."""
    event_end: datetime | None = None
    """create/update of a Temporary record: it expires when this event is over instead
    of after the Temporary TTL (with `detail_until`: not before the sooner of the TTL's
    end and `detail_until`). Of an automatic Long-Term record: it does not expire before
    the event is over."""
    detail_until: datetime | None = None
    """When `detail` is cleared (its sources leave the log). It never makes a record
    outlive its Temporary TTL: a Temporary record expires after the TTL (or as
    `event_end` says), with its detail; an update that brings it renews a Temporary
    record for the TTL from then."""

    def __post_init__(self) -> None:
        if not isinstance(self.memory_id, str) or not self.memory_id.strip():
            raise InvalidMemoryError("memory_id", "must be a non-empty string")
        if len(self.memory_id) > 128:
            raise InvalidMemoryError("memory_id", "must be at most 128 characters")
        op = self.op
        if op is IntentOp.CREATE:
            if self.tier is None:
                raise InvalidMemoryError("tier", "is required for create")
            if self.kind is None:
                raise InvalidMemoryError("kind", "is required for create")
            kinds = DEVICE_KINDS if self.tier is Tier.DEVICE else PERSONAL_KINDS
            if self.kind not in kinds:
                allowed = ", ".join(sorted(k.value for k in kinds))
                raise InvalidMemoryError(
                    "kind", f"{self.kind.value} is not allowed in tier {self.tier.value} "
                    f"(allowed: {allowed})"
                )
            object.__setattr__(self, "text", validate_text(self.text))
            object.__setattr__(self, "sources", validate_sources(self.sources))
        else:
            if self.expected_revision is None or self.expected_revision < 1:
                raise InvalidMemoryError(
                    "expected_revision", f"a positive revision is required for {op.value}"
                )
        if op is IntentOp.UPDATE:
            object.__setattr__(self, "text", validate_text(self.text))
            object.__setattr__(self, "sources", validate_sources(self.sources))
        if op is IntentOp.REINFORCE:
            object.__setattr__(self, "sources", validate_sources(self.sources))
        if self.detail is not None:
            if not isinstance(self.detail, str):
                raise InvalidMemoryError("detail", "must be a string")
            if len(self.detail.encode("utf-8")) > DETAIL_LIMIT_BYTES:
                raise InvalidMemoryError(
                    "detail", f"is longer than {DETAIL_LIMIT_BYTES} bytes (UTF-8)"
                )
        if self.subject is not None and not isinstance(self.subject, str):
            raise InvalidMemoryError("subject", "must be a string")
        for name in ("app_id", "sender"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()
                                      or len(value) > ORIGIN_LIMIT_CHARS):
                raise InvalidMemoryError(
                    name, f"must be None or a non-empty string of at most {ORIGIN_LIMIT_CHARS} "
                    "characters")
        refuse_secrets(text=self.text, subject=self.subject, detail=self.detail,
                       sender=self.sender)
        if self.occurred_at is not None and (
            not isinstance(self.occurred_at, datetime) or self.occurred_at.tzinfo is None
        ):
            raise InvalidMemoryError("occurred_at", "must be a timezone-aware datetime")
        if self.event_end is not None and (
            not isinstance(self.event_end, datetime) or self.event_end.tzinfo is None
        ):
            raise InvalidMemoryError("event_end", "must be a timezone-aware datetime")
        if self.detail_until is not None and (
            not isinstance(self.detail_until, datetime) or self.detail_until.tzinfo is None
        ):
            raise InvalidMemoryError("detail_until", "must be a timezone-aware datetime")
        if op is IntentOp.SUPERSEDE and not self.superseded_by:
            raise InvalidMemoryError("superseded_by", "is required for supersede")
