"""What recall and listing may be narrowed to besides the tiers: when a memory's content
happened or arrived, the app and the sender of its source notification, its kinds.

`MemoryFilter.build` checks a host's arguments (a naive datetime, an empty window, an
unknown kind are refused with the argument's name and what is allowed) and `sql`
gives the SQL condition that keyword recall, the dense leg of hybrid recall and the
listing add to their own statements, so a filtered query ranks or lists only the
memories that match and `limit` of them come back when that many exist (never "the
top ten, then filtered").

Time is `occurred_us` (migration 0011): the posting time of the newest source
notification of a notification's memory, else the memory's creation time. `since` is
inclusive, `until` exclusive. `sender` matches the stored sender exactly, ignoring the
case of ASCII letters and surrounding spaces; `app_id` matches exactly.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from companion_memory.memory.records import (
    ORIGIN_LIMIT_CHARS,
    InvalidMemoryError,
    Kind,
)
from companion_memory.memory.rows import to_us

__all__ = ["MemoryFilter"]


def _aware(name: str, value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidMemoryError(
            name, f"must be a timezone-aware datetime or None, not {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidMemoryError(
            name, "must be a timezone-aware datetime (e.g. datetime(2026, 3, 12, "
            "tzinfo=UTC) or one with a ZoneInfo); a naive datetime is refused because its "
            "zone is unknown")
    return to_us(value)


def _name(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > ORIGIN_LIMIT_CHARS:
        raise InvalidMemoryError(
            name, f"must be None or a non-empty string of at most {ORIGIN_LIMIT_CHARS} "
            "characters")
    return " ".join(value.split())


def _kinds(value: object) -> tuple[Kind, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Collection):
        raise InvalidMemoryError("kinds", "must be None or a collection of Kind values")
    out: list[Kind] = []
    for item in value:
        try:
            out.append(Kind(item))
        except ValueError:
            allowed = ", ".join(k.value for k in Kind)
            raise InvalidMemoryError("kinds", f"unknown kind (allowed: {allowed})") from None
    if not out:
        raise InvalidMemoryError("kinds", "must name at least one kind (None: every kind)")
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """A checked filter; `None` fields do not filter. Build it with `build`."""

    since_us: int | None = None
    until_us: int | None = None
    app_id: str | None = None
    sender: str | None = None
    kinds: tuple[Kind, ...] | None = None

    @classmethod
    def build(
        cls,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        app_id: str | None = None,
        sender: str | None = None,
        kinds: Collection[Kind] | None = None,
    ) -> MemoryFilter:
        since_us, until_us = _aware("since", since), _aware("until", until)
        if since_us is not None and until_us is not None and since_us >= until_us:
            raise InvalidMemoryError("until", "must be later than since (since is inclusive, "
                                     "until exclusive)")
        return cls(since_us, until_us, _name("app_id", app_id), _name("sender", sender),
                   _kinds(kinds))

    @property
    def active(self) -> bool:
        """Whether anything is filtered."""
        return any(v is not None for v in (self.since_us, self.until_us, self.app_id,
                                           self.sender, self.kinds))

    @property
    def by_time(self) -> bool:
        return self.since_us is not None or self.until_us is not None

    def sql(self, alias: str = "") -> tuple[str, tuple[object, ...]]:
        """(" AND ..." condition on the `memories` row named `alias`, its parameters);
        ("", ()) when nothing is filtered."""
        col = f"{alias}." if alias else ""
        parts: list[str] = []
        params: list[object] = []
        if self.since_us is not None:
            parts.append(f"{col}occurred_us >= ?")
            params.append(self.since_us)
        if self.until_us is not None:
            parts.append(f"{col}occurred_us < ?")
            params.append(self.until_us)
        if self.app_id is not None:
            parts.append(f"{col}app_id = ?")
            params.append(self.app_id)
        if self.sender is not None:
            parts.append(f"{col}sender = ? COLLATE NOCASE")
            params.append(self.sender)
        if self.kinds is not None:
            parts.append(f"{col}kind IN ({', '.join('?' for _ in self.kinds)})")
            params.extend(k.value for k in self.kinds)
        if not parts:
            return "", ()
        return " AND " + " AND ".join(parts), tuple(params)


NO_FILTER = MemoryFilter()
