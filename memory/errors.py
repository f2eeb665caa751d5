"""Errors of the SQLite store beyond the record/intent errors in `memory.records`."""

from __future__ import annotations

from companion_memory.core.errors import (
    ConflictError,
    InvalidInputError,
    StateError,
    StorageFailureError,
    UnavailableError,
)
from companion_memory.memory.records import MemoryStoreError


class DatabaseRefusedError(MemoryStoreError, InvalidInputError):
    """The file is not a companion-memory database, or was written by a newer version.

    The file is left exactly as it was found.
    """

    code = "database_refused"

    def __init__(self, path: str, why: str) -> None:
        self.path = path
        self.why = why
        super().__init__(f"refusing to open {path}: {why}; the file was not modified")


class MemoryInactiveError(MemoryStoreError, StateError):
    """An intent named a record that is deleted, superseded or expired."""

    code = "memory_inactive"

    def __init__(self, memory_id: str, status: str) -> None:
        self.memory_id = memory_id
        self.status = status
        super().__init__(
            f"memory {memory_id} is {status}; only active records can be changed "
            "(create a new memory instead)"
        )


class EmptyQueryError(MemoryStoreError, InvalidInputError):
    """A recall query had no searchable words (empty, punctuation or stopwords only)."""

    code = "empty_query"

    def __init__(self) -> None:
        super().__init__(
            "the query has no searchable words (it is empty or only stopwords/punctuation); "
            "name what to look for, e.g. 'dentist appointment'"
        )


class StoreClosedError(MemoryStoreError, StateError):
    """The store was used before `open()` finished or after `close()`."""

    code = "store_closed"

    def __init__(self) -> None:
        super().__init__("the memory store is closed; open it with MemoryStore.open(path)")


class StoreBusyError(MemoryStoreError, ConflictError):
    """Another writer held the database past the busy timeout."""

    code = "store_busy"

    def __init__(self, timeout_ms: int) -> None:
        super().__init__(
            f"the memory database stayed locked by another writer for {timeout_ms} ms; "
            "retry later"
        )


class StoreCorruptError(MemoryStoreError, StorageFailureError):
    """SQLite reported the database, or its full-text index, as malformed.

    Nothing was written by the failed call. When SQLite's own integrity check passes,
    only the full-text index is damaged: it holds nothing the memories do not, and
    `MemoryStore.repair_index()` (the `doctor --repair` command) derives it again
    without losing any memory (`MemoryStore.check()` tells which)."""

    code = "store_corrupt"

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(
            f"the memory database reports {what} as malformed; run `companion-memory "
            "doctor` to check it and `doctor --repair` to rebuild the search index from "
            "the memories"
        )


class UnsupportedSqliteError(MemoryStoreError, UnavailableError):
    """Python's sqlite3 is linked to an SQLite this release does not support (too old,
    or built without FTS5). Nothing was opened or written."""

    code = "sqlite_unsupported"

    def __init__(self, found: str, needed: str) -> None:
        self.found = found
        super().__init__(
            f"Python's sqlite3 module uses SQLite {found}; companion-memory needs {needed}; "
            "use a Python linked to a newer SQLite (Debian 12 and later ship 3.40+)"
        )
