"""The one registry of the memory database's migrations, in the one order they run.

`open_database` (memory.database) applies every migration of `MIGRATIONS` that the
file has not recorded, in this order, each in one transaction together with its row
in `schema_migrations`. The modules that own tables keep their DDL as plain text
(`memory.schema`, `memory.episode_ledger`, `memory.sweep_ledger`,
`memory.work_ledger`) and never import this module: the registry imports them, one
way only.

Naming: `NNNN_<area>_<change>`.
- `NNNN` is the migration's position in `MIGRATIONS`, four digits, from 0001 with no
  gap; a new migration is appended with the next number, never inserted.
- `<area>` names the tables it changes and the module that owns them: `memory`
  (memory.schema: memories, their index, tombstones, rejections, receipts, cursors),
  `episode_ledger` (memory.episode_ledger), `sweep_ledger` (memory.sweep_ledger),
  `work_ledger` (memory.work_ledger: the attempts and poisoned units of every scenario;
  its carry-over, 0016, also drops the two attempt tables it replaced).
- `<change>` is lowercase words joined by `_`.
A name is never changed once released: it is what a database file records. (Before
the first release, 0.1.0, two migrations were renamed into this scheme; no released
version recorded their earlier names, so none is kept.) `check_registry` enforces all
of this when the module is imported.

Timestamps: the `applied_at` of a migration's record is UTC ISO-8601 text with
microseconds and offset, `2026-12-01T14:29:46.123456+00:00` (`applied_stamp`), as
every record written so far. A timestamp column that a migration creates is an
integer of microseconds since the Unix epoch (UTC) named `*_us` (`memory.rows.to_us`),
as in four of the six migrations that created timestamp columns so far
(0001, 0004, 0005, 0015); the two ledgers' `*_at` text columns predate this and stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from companion_memory.core.errors import InvalidInputError
from companion_memory.memory import (
    batch_attempts,
    episode_ledger,
    history,
    schema,
    sweep_ledger,
    vectors,
    work_ledger,
)


@dataclass(frozen=True, slots=True)
class Migration:
    """`name` is unique and never reused; `sql` is a script of DDL statements."""

    name: str
    sql: str


AREAS = ("memory", "episode_ledger", "sweep_ledger", "work_ledger")
"""The `<area>` part of a migration name (see the module docstring)."""

_NAME = re.compile(r"(\d{4})_(" + "|".join(AREAS) + r")_([a-z0-9]+(?:_[a-z0-9]+)*)")

MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_memory_core", schema.CORE),
    Migration("0002_memory_vocab", schema.VOCAB),
    Migration("0003_memory_search_text", schema.SEARCH_TEXT),
    Migration("0004_memory_detail_stems", schema.DETAIL_STEMS),
    Migration("0005_memory_rejection_fingerprints", schema.REJECTION_FINGERPRINTS),
    Migration("0006_episode_ledger_create", episode_ledger.DDL),
    Migration("0007_sweep_ledger_create", sweep_ledger.DDL),
    Migration("0008_memory_fts_own_content", schema.FTS_OWN_CONTENT),
    Migration("0009_memory_vectors", vectors.DDL),
    Migration("0010_memory_fts_cjk_tokens", schema.FTS_CJK_TOKENS),
    Migration("0011_memory_origin_columns", schema.ORIGIN_COLUMNS),
    Migration("0012_memory_history", history.DDL),
    Migration("0013_memory_notification_decisions", schema.NOTIFICATION_DECISIONS),
    Migration("0014_memory_notification_attempts", batch_attempts.DDL),
    Migration("0015_work_ledger_create", work_ledger.DDL),
    Migration("0016_work_ledger_carry_over", work_ledger.CARRY_OVER),
    Migration("0017_episode_ledger_drop_attempts", episode_ledger.DROP_ATTEMPTS),
    Migration("0018_memory_fts_full_reverse_glossary", schema.FTS_FULL_REVERSE_GLOSSARY),
)
"""Every migration, in the order they run on a new file."""


def check_registry(migrations: Sequence[Migration]) -> None:
    """Raise ValueError unless `migrations` follow the naming rules of this module:
    `NNNN_<area>_<change>` numbered 0001.. in order (so no name is used twice)."""
    for position, migration in enumerate(migrations, start=1):
        match = _NAME.fullmatch(migration.name)
        if match is None:
            raise InvalidInputError(
                f"migration name {migration.name!r} does not follow NNNN_<area>_<change> "
                f"(area one of: {', '.join(AREAS)}; change: lowercase words joined by _)"
            )
        if int(match.group(1)) != position:
            raise InvalidInputError(
                f"migration {migration.name!r} is at position {position}; its number must "
                f"be {position:04d} (numbers follow the registry order, no gaps)"
            )


check_registry(MIGRATIONS)


def all_migrations() -> list[Migration]:
    """Every migration, in the order they must run (a copy of `MIGRATIONS`)."""
    return list(MIGRATIONS)


def of_area(area: str) -> list[Migration]:
    """The migrations of one `<area>`, in order."""
    if area not in AREAS:
        raise InvalidInputError(
            f"unknown migration area {area!r}; known: {', '.join(AREAS)}",
            code="unknown_migration_area",
        )
    return [m for m in MIGRATIONS if _area(m.name) == area]


def _area(name: str) -> str | None:
    match = _NAME.fullmatch(name)
    return match.group(2) if match else None


def applied_stamp(now: datetime) -> str:
    """The `applied_at` text of a migration record applied at `now` (see module doc)."""
    return now.astimezone(UTC).isoformat(timespec="microseconds")
