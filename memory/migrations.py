"""Named schema migrations of the memory database.

Each migration runs in one transaction together with the row that records it.
Modules that own tables (the store, the episode ledger, the sweep ledger) each
declare a `MIGRATIONS` list; `all_migrations()` orders them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Migration:
    """`name` is unique and never reused; `sql` is a script of DDL statements."""

    name: str
    sql: str


def all_migrations() -> list[Migration]:
    """Every migration, in the order they must run: store core, episode ledger, sweep ledger."""
    from companion_memory.memory import episode_ledger, schema, sweep_ledger

    ordered = [*schema.MIGRATIONS, *episode_ledger.MIGRATIONS, *sweep_ledger.MIGRATIONS]
    names = [m.name for m in ordered]
    if len(set(names)) != len(names):
        raise RuntimeError("duplicate migration name")
    return ordered
