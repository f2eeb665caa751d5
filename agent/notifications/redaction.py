"""Secret spans in notification text and their redaction.

The detector lives in `memory.secrets`, so that the memory store can refuse a
statement holding a secret with exactly the rules that redact it here; this module
keeps the names the notification code has always imported.
"""

from __future__ import annotations

from companion_memory.memory.secrets import (
    AUTH_MESSAGE_WORDS,
    REDACTED,
    auth_message,
    redact,
    secret_spans,
)

__all__ = ["AUTH_MESSAGE_WORDS", "REDACTED", "auth_message", "redact", "secret_spans"]
