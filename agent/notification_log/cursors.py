"""The cursors every part of the notification context shares.

One `Cursors` object is owned by the `NotificationContext` and handed to each
part (intake writer, pending queue, recovery, retention, history reads); a part
changes a cursor only where its docstring says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion_memory.agent.notification_log.types import SourceCursor


@dataclass(slots=True)
class Cursors:
    source: SourceCursor
    """The last ring item made durable (recovery derives it, intake advances it)."""
    last_context_id: int = 0
    """The highest context id ever given out or reserved (never reused)."""
    memory_cursor: int = 0
    """The last processed context id (the pending queue advances it)."""
