"""The one exception base of companion-memory.

Every error the library raises derives from `CompanionMemoryError`. Each carries a
stable machine-readable `code` and a human `reason`. Messages name what failed,
why, and what is allowed; they never carry notification titles, bodies or memory
text (callers must not put such content into `reason`).
"""

from __future__ import annotations


class CompanionMemoryError(Exception):
    """Base of every error raised by companion-memory.

    `code` is a short snake_case identifier that scripts may match on; `reason`
    is the one-line explanation shown to people.
    """

    code: str = "companion_memory_error"

    def __init__(self, reason: str, *, code: str | None = None) -> None:
        if code is not None:
            self.code = code
        self.reason = reason
        super().__init__(reason)

    def __str__(self) -> str:
        return self.reason
