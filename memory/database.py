"""Opening the memory database: identity checks, pragmas and named migrations.

`open_database(path)` is synchronous and runs on the store's owned thread. A file
that is not a companion-memory database, or that records a migration this code
does not know (a newer schema), is refused with `DatabaseRefusedError` before
anything is written to it.

Durability: WAL with `synchronous=FULL`. NORMAL would stay consistent, but its
last commits can roll back after a power cut; an owner's `forget` or an agent's
`save_memory` that was acknowledged must not come back. Writers commit batches,
so FULL costs one WAL fsync per batch (about 6.3k single-row
transactions/s measured on this class of machine), far above what the processors need.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import stat
import time
from datetime import UTC, datetime
from pathlib import Path

from companion_memory.core.errors import InvalidInputError, StorageFailureError
from companion_memory.memory import fts_index
from companion_memory.memory.errors import DatabaseRefusedError, UnsupportedSqliteError
from companion_memory.memory.migrations import Migration, all_migrations, applied_stamp
from companion_memory.memory.records import MemoryStoreError
from companion_memory.memory.rejections import register as register_rejections
from companion_memory.memory.schema import APPLICATION_ID, MIGRATIONS_TABLE
from companion_memory.memory.search_text import register as register_search_text

_log = logging.getLogger(__name__)

MIN_SQLITE = (3, 40, 0)
"""The oldest SQLite this release supports: the oldest the test suite and the year-long
soak run on (3.40.1, Debian 12's). FTS5 must be compiled in."""

BUSY_TIMEOUT_MS = 5_000
"""How long a writer waits for another process's write lock before StoreBusyError."""

SQLITE_HEADER = b"SQLite format 3\x00"
_SIDE_FILES = ("", "-wal", "-shm", "-journal")


class StoreDiskFullError(MemoryStoreError, StorageFailureError):
    """SQLite could not write because the disk (or its quota) is full.

    Nothing is corrupt: the transaction rolled back and the file is as it was;
    free space and retry."""

    code = "disk_full"

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path}: the disk is full (SQLite could not write); the database "
                         "is unchanged; free space and retry")


def is_disk_full(exc: BaseException) -> bool:
    """True for SQLite's SQLITE_FULL (any extended code of it)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.Error) and isinstance(code, int) and \
        code & 0xFF == sqlite3.SQLITE_FULL


def _inspect_file(path: Path) -> bool:
    """True when the file is new (absent or empty); refuses a non-SQLite file, and a
    database or side file (-wal, -shm, -journal) that is a symbolic link or special
    file: SQLite would write through it."""
    for suffix in _SIDE_FILES:
        side = Path(str(path) + suffix)
        try:
            mode = os.lstat(side).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode):
            raise DatabaseRefusedError(str(side), "it is a symbolic link, never written through")
        if stat.S_ISDIR(mode) and suffix:
            raise DatabaseRefusedError(str(side), "it is a directory")
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise DatabaseRefusedError(str(side), "it is not a regular file")
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return True
    except IsADirectoryError as err:
        raise DatabaseRefusedError(str(path), "it is a directory") from err
    if not header:
        return True
    if header != SQLITE_HEADER:
        raise DatabaseRefusedError(str(path), "it is not an SQLite database")
    return False


def _check_identity(conn: sqlite3.Connection, path: str, known: list[Migration]) -> None:
    """Refuse foreign or newer databases; runs only reads."""
    try:
        # One read transaction: another process may be initialising the file, and the id
        # and the tables must be read from the same moment of it.
        conn.execute("BEGIN")
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            tables = {
                row[0]
                for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        finally:
            conn.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        if is_disk_full(exc):
            raise StoreDiskFullError(path) from exc
        raise DatabaseRefusedError(path, f"it cannot be read as SQLite ({exc})") from exc
    if app_id == 0 and not tables:
        return  # an empty SQLite file: ours to initialise
    if app_id != APPLICATION_ID:
        raise DatabaseRefusedError(
            path, f"it belongs to another application (application_id {app_id:#x})"
        )
    if MIGRATIONS_TABLE not in tables:
        raise DatabaseRefusedError(path, "it has no migration record")
    applied = [row[0] for row in conn.execute(f"SELECT name FROM {MIGRATIONS_TABLE}")]
    names = {m.name for m in known}
    unknown = sorted(n for n in applied if n not in names)
    if unknown:
        raise DatabaseRefusedError(
            path,
            f"it was written by a newer version (unknown migrations: {', '.join(unknown)}); "
            "upgrade companion-memory",
        )


def _apply_migrations(conn: sqlite3.Connection, migrations: list[Migration]) -> list[str]:
    """Apply each missing migration in its own transaction with its record row."""
    ran: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} "
            "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL) WITHOUT ROWID"
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    for migration in migrations:
        try:
            # The write lock first, then the check, then the DDL: a second process opening
            # a fresh store waits here and finds the migration applied, instead of running
            # its DDL against tables that already exist.
            conn.execute("BEGIN IMMEDIATE")
            done = conn.execute(
                f"SELECT 1 FROM {MIGRATIONS_TABLE} WHERE name = ?", (migration.name,)
            ).fetchone()
            if done is not None:
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(
                f"INSERT INTO {MIGRATIONS_TABLE} (name, applied_at) VALUES (?, ?)",
                (migration.name, applied_stamp(datetime.now(UTC))),
            )
            conn.execute("COMMIT")
            ran.append(migration.name)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return ran


def _set_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. While another opener of a fresh file holds its first write
    transaction, the switch fails at once with "database is locked" (SQLite does not
    wait on the busy handler for it): try again for up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _statements(script: str) -> list[str]:
    """A DDL script's statements, one by one (a trigger body's inner `;` included), so they
    run inside a transaction that `executescript` would have committed."""
    out: list[str] = []
    chunk = ""
    for piece in script.split(";"):
        chunk += piece + ";"
        if sqlite3.complete_statement(chunk):
            if chunk.strip(" \t\r\n;"):
                out.append(chunk.strip())
            chunk = ""
    if chunk.strip(" \t\r\n;"):
        raise InvalidInputError("a migration script ends inside a statement")
    return out


def _pending(conn: sqlite3.Connection, migrations: list[Migration]) -> list[Migration]:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if MIGRATIONS_TABLE not in tables:
        return list(migrations)
    applied = {r[0] for r in conn.execute(f"SELECT name FROM {MIGRATIONS_TABLE}")}
    return [m for m in migrations if m.name not in applied]


@functools.cache
def _linked_fts5() -> bool:
    probe = sqlite3.connect(":memory:")
    try:
        return any(row[0] == "ENABLE_FTS5" for row in probe.execute("PRAGMA compile_options"))
    finally:
        probe.close()


def check_sqlite(version: tuple[int, int, int] | None = None,
                 has_fts5: bool | None = None) -> None:
    """Refuse an SQLite older than `MIN_SQLITE` or without FTS5 (`UnsupportedSqliteError`,
    before any file is opened); the arguments stand in for the linked library's."""
    found = version or sqlite3.sqlite_version_info
    needed = ".".join(map(str, MIN_SQLITE)) + " or newer with FTS5"
    if found < MIN_SQLITE:
        raise UnsupportedSqliteError(".".join(map(str, found)), needed)
    if not (_linked_fts5() if has_fts5 is None else has_fts5):
        raise UnsupportedSqliteError(".".join(map(str, found)) + " without FTS5", needed)


def _mend_index(conn: sqlite3.Connection, before_migrations: bool) -> None:
    """An index that cannot be opened or searched (a structure record grown by repeated
    'optimize' in releases before 0008) is mended in one write transaction. Before
    migrations, which replace the index, its structure record is only reset so that it
    can be dropped (`fts_index.reset_structure`); after them the index is derived again
    from the memories (`fts_index.repair`): it holds nothing they do not."""
    if fts_index.readable(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        mended = not fts_index.readable(conn)  # another opener may have mended it
        if mended and before_migrations:
            fts_index.reset_structure(conn)
        elif mended:
            fts_index.repair(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if mended:
        _log.warning("memory index unreadable at open: %s", "structure reset before "
                     "migrating" if before_migrations else "rebuilt from the memories")


def open_database(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the memory database at `path`.

    Blocking; call it on the store's thread. Raises DatabaseRefusedError without
    writing anything when the file is not ours or is from a newer schema.
    """
    file = Path(path)
    known = all_migrations()
    check_sqlite()
    _inspect_file(file)
    conn = sqlite3.connect(str(file), isolation_level=None, check_same_thread=True)
    register_search_text(conn)  # the FTS triggers call it
    register_rejections(conn)  # the rejection migration calls it
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _check_identity(conn, str(file), known)
        pending = _pending(conn, known)
        if pending and conn.execute("PRAGMA page_count").fetchone()[0] == 0:
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # only effective on a new file
        _set_wal(conn)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        # Freed space is zeroed: a forgotten memory's text must not survive in free pages.
        conn.execute("PRAGMA secure_delete = ON")
        if pending:
            _mend_index(conn, before_migrations=True)
            _apply_migrations(conn, pending)
            _check_identity(conn, str(file), known)
        _mend_index(conn, before_migrations=False)
    except sqlite3.Error as exc:
        conn.close()
        if is_disk_full(exc):
            raise StoreDiskFullError(str(file)) from exc
        raise
    except BaseException:
        conn.close()
        raise
    return conn
