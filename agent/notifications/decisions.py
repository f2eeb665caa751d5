"""The decision trail's names as the notification processor uses them.

The trail itself (table `notification_decisions`, the `NotificationDecision` record and
the functions that write and read it) lives in `memory.decisions`, reached through
`MemoryStore.record_decisions` / `MemoryStore.decisions`; this module keeps the names
importable where agent code and hosts found them.
"""

from __future__ import annotations

from companion_memory.memory.decisions import DROPPED, KEPT, NotificationDecision

__all__ = ["DROPPED", "KEPT", "NotificationDecision"]
