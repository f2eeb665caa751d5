"""Shared builders for the notification-context tests."""

from __future__ import annotations

from datetime import UTC, datetime

from companion_memory.ble.events import EventKind, NotificationEvent

T0 = datetime(2026, 3, 1, 22, 0, tzinfo=UTC)


def event(i: int, *, app: str = "com.example.chat") -> NotificationEvent:
    return NotificationEvent.create(
        kind=EventKind.ADDED,
        key=f"k{i}",
        app_id=app,
        title=f"title {i}",
        body=f"body number {i}",
        posted_at=T0,
    )
