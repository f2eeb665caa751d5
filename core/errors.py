"""The exception tree of companion-memory.

Every error the library raises derives from `CompanionMemoryError` and from exactly
one category base below it, so a host can catch by what went wrong rather than by
which module raised it:

- `InvalidInputError` (also a `ValueError`): the caller passed something not
  allowed. CLI exit 2.
- `NotFoundError` (also a `LookupError`): the named thing does not exist. Exit 2.
- `ConflictError`: someone else changed or holds it; reread or retry. Exit 2.
- `StateError` (also a `RuntimeError`): closed, not opened, or not allowed now.
  Exit 2.
- `UnavailableError`: a model, the phone or a budget is not there now. Exit 1.
- `StorageFailureError`: the disk or a file under the root failed. Exit 1.

Each error carries a stable machine-readable `code` and a human `reason`. Messages
name what failed, why, and what is allowed; they never carry notification titles,
bodies or memory text (callers must not put such content into `reason`). Where an
error converts a lower-level exception at an I/O boundary (a file, SQLite, HTTP,
BLE, llama.cpp) it chains it (`raise ... from exc`), so the debug log keeps the
cause; `from None` is kept only where the lower error could quote content (a
parse of a notification, an episode, a model's output or a stored line).
"""

from __future__ import annotations

from typing import ClassVar


class CompanionMemoryError(Exception):
    """Base of every error raised by companion-memory.

    `code` is a short snake_case identifier that scripts may match on; `reason`
    is the one-line explanation shown to people; `category` names the category
    base (see the module docstring).
    """

    code: str = "companion_memory_error"
    category: ClassVar[str] = "internal"

    def __init__(self, reason: str, *, code: str | None = None) -> None:
        if code is not None:
            self.code = code
        self.reason = reason
        super().__init__(reason)

    def __str__(self) -> str:
        return self.reason


class InvalidInputError(CompanionMemoryError, ValueError):
    """The caller passed a value, file or setting that is not allowed."""

    code = "invalid_input"
    category = "invalid_input"


class NotFoundError(CompanionMemoryError, LookupError):
    """The named thing (a memory, a model, a file) does not exist."""

    code = "not_found"
    category = "not_found"


class ConflictError(CompanionMemoryError):
    """Another writer changed or holds what the call needed; reread or retry."""

    code = "conflict"
    category = "conflict"


class StateError(CompanionMemoryError, RuntimeError):
    """The object is closed, not opened yet, or the call is not allowed in its state."""

    code = "wrong_state"
    category = "wrong_state"


class UnavailableError(CompanionMemoryError):
    """A model, the phone or a budget is not available now; later may work."""

    code = "unavailable"
    category = "unavailable"


class StorageFailureError(CompanionMemoryError):
    """The disk, or a file under the data root, failed or holds damaged data."""

    code = "storage_failure"
    category = "storage_failure"


CATEGORIES: tuple[type[CompanionMemoryError], ...] = (
    InvalidInputError, NotFoundError, ConflictError, StateError, UnavailableError,
    StorageFailureError,
)
"""Every category base, in the order of the list above."""
