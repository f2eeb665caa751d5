"""The iPhone side of ANCS as a pure model: notifications, commands, responses.

`AncsPhoneModel` keeps the phone's notification centre, turns scripted
add/modify/remove into Notification Source packets, answers Control Point
commands the way iOS does (attribute values cut at the requested maximum, a
0xA2 for an unknown UID, 0xA0/0xA1 for unknown/malformed commands) and cuts a
Data Source response into (ATT_MTU - 3)-byte notifications. Transports (the
bumble GATT server, `FakePhoneLink` in tests, the benchmark) wrap it. No I/O.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from companion_memory.ble.ancs.codec import (
    LENGTH_PREFIXED_ATTRIBUTES,
    AppAttributeID,
    CategoryID,
    CommandID,
    EventFlags,
    EventID,
    NotificationAttributeID,
    NotificationSourcePacket,
)
from companion_memory.ble.errors import AttWriteError
from companion_memory.ble.events import NotificationEvent

A = NotificationAttributeID
ERROR_UNKNOWN_COMMAND = 0xA0
ERROR_INVALID_COMMAND = 0xA1
ERROR_INVALID_PARAMETER = 0xA2
ERROR_ACTION_FAILED = 0xA3


@dataclass(frozen=True, slots=True)
class PhoneNotification:
    """One notification in the emulated phone's notification centre."""

    uid: int
    app_id: str
    title: str = ""
    subtitle: str = ""
    message: str = ""
    date: str = ""  # yyyyMMdd'T'HHmmSS, phone-local
    category: int = CategoryID.OTHER
    raw: tuple[tuple[int, bytes], ...] = ()
    """Scripted raw attribute bytes (e.g. invalid UTF-8) that replace the text ones."""

    def attribute(self, attribute_id: int) -> bytes:
        for raw_id, raw_value in self.raw:
            if raw_id == attribute_id:
                return bytes(raw_value)
        text: str = {
            int(A.APP_IDENTIFIER): self.app_id,
            A.TITLE: self.title,
            A.SUBTITLE: self.subtitle,
            A.MESSAGE: self.message,
            A.MESSAGE_SIZE: str(len(self.message.encode("utf-8"))),
            A.DATE: self.date,
        }.get(attribute_id, "")
        return text.encode("utf-8")


def ancs_date(when: datetime, zone: str) -> str:
    """A UTC datetime as the phone's local `yyyyMMdd'T'HHmmSS`."""
    return when.astimezone(ZoneInfo(zone)).strftime("%Y%m%dT%H%M%S")


def category_id_for(name: str) -> int:
    """The CategoryID for a category name (`social`, `email`, a number); 0 otherwise."""
    if name.isdigit():
        return min(int(name), 255)
    try:
        return int(CategoryID[name.upper()])
    except KeyError:
        return int(CategoryID.OTHER)


def fragment(data: bytes, mtu: int) -> list[bytes]:
    """Cut `data` into notifications of at most (mtu - 3) bytes, as iOS does."""
    if mtu < 23:
        raise ValueError("the ATT MTU is at least 23")
    size = mtu - 3
    return [data[i : i + size] for i in range(0, len(data), size)] or [b""]


class AncsPhoneModel:
    """The notification centre and ANCS command handling of an emulated iPhone."""

    def __init__(self, *, app_names: dict[str, str] | None = None, first_uid: int = 1) -> None:
        self.notifications: dict[int, PhoneNotification] = {}
        self.app_names = dict(app_names or {})
        self._next_uid = first_uid
        self.refuse_next: int | None = None
        """When set, the next Get Notification Attributes is refused with this ATT code."""
        self.commands: list[int] = []

    # -- scripting -----------------------------------------------------------------

    def add(
        self,
        app_id: str,
        *,
        title: str = "",
        subtitle: str = "",
        message: str = "",
        date: str = "",
        category: int = CategoryID.OTHER,
        flags: int = 0,
    ) -> tuple[int, bytes]:
        """Post a notification; returns its UID and the Notification Source packet."""
        uid = self._next_uid
        self._next_uid += 1
        self.app_names.setdefault(app_id, app_id.rsplit(".", 1)[-1])
        self.notifications[uid] = PhoneNotification(
            uid, app_id, title, subtitle, message, date, category
        )
        return uid, self._packet(EventID.ADDED, EventFlags(flags), uid)

    def add_event(self, event: NotificationEvent, zone: str) -> tuple[int, bytes]:
        """Post a `NotificationEvent`'s content as the phone would show it."""
        return self.add(
            event.app_id,
            title=event.title,
            subtitle=event.subtitle,
            message=event.body,
            date=ancs_date(event.posted_at, zone),
            category=category_id_for(event.category),
        )

    def modify(self, uid: int, **changes: str) -> bytes:
        self.notifications[uid] = replace(self.notifications[uid], **changes)  # type: ignore[arg-type]
        return self._packet(EventID.MODIFIED, EventFlags(0), uid)

    def remove(self, uid: int) -> bytes:
        notification = self.notifications.pop(uid)
        return self._packet(EventID.REMOVED, EventFlags(0), uid, notification.category)

    def renumber(self) -> None:
        """A new subscription: iOS hands out fresh UIDs for the same notifications."""
        old = sorted(self.notifications.values(), key=lambda n: n.uid)
        self.notifications = {}
        for n in old:
            uid = self._next_uid
            self._next_uid += 1
            self.notifications[uid] = replace(n, uid=uid)

    def pre_existing_packets(self) -> list[bytes]:
        """What the phone sends right after a (re)subscription."""
        return [
            self._packet(EventID.ADDED, EventFlags.PRE_EXISTING, uid)
            for uid in sorted(self.notifications)
        ]

    def _packet(
        self, event_id: EventID, flags: EventFlags, uid: int, category: int | None = None
    ) -> bytes:
        if category is None:
            category = self.notifications[uid].category
        count = sum(1 for n in self.notifications.values() if n.category == category)
        return NotificationSourcePacket(event_id, flags, category, min(count, 255), uid).encode()

    # -- the Control Point ---------------------------------------------------------

    def handle_control_point(self, data: bytes) -> bytes | None:
        """Answer one command: the whole Data Source response, or None (actions).

        Raises `AttWriteError` with 0xA0..0xA3 as iOS would.
        """
        if not data:
            raise AttWriteError(ERROR_INVALID_COMMAND)
        command = data[0]
        self.commands.append(command)
        if command == CommandID.GET_NOTIFICATION_ATTRIBUTES:
            return self._notification_attributes(data)
        if command == CommandID.GET_APP_ATTRIBUTES:
            return self._app_attributes(data)
        if command == CommandID.PERFORM_NOTIFICATION_ACTION:
            if len(data) != 6 or data[5] > 1:
                raise AttWriteError(ERROR_INVALID_COMMAND)
            if struct.unpack_from("<I", data, 1)[0] not in self.notifications:
                raise AttWriteError(ERROR_INVALID_PARAMETER)
            return None
        raise AttWriteError(ERROR_UNKNOWN_COMMAND)

    def _notification_attributes(self, data: bytes) -> bytes:
        if len(data) < 6:
            raise AttWriteError(ERROR_INVALID_COMMAND)
        if self.refuse_next is not None:
            code, self.refuse_next = self.refuse_next, None
            raise AttWriteError(code)
        uid = struct.unpack_from("<I", data, 1)[0]
        notification = self.notifications.get(uid)
        if notification is None:
            raise AttWriteError(ERROR_INVALID_PARAMETER)
        out = bytearray(data[:5])
        pos = 5
        while pos < len(data):
            attribute_id = data[pos]
            pos += 1
            value = notification.attribute(attribute_id)
            if attribute_id in LENGTH_PREFIXED_ATTRIBUTES:
                if pos + 2 > len(data):
                    raise AttWriteError(ERROR_INVALID_COMMAND)
                value = value[: struct.unpack_from("<H", data, pos)[0]]
                pos += 2
            out += struct.pack("<BH", attribute_id, len(value)) + value
        return bytes(out)

    def _app_attributes(self, data: bytes) -> bytes:
        end = data.find(b"\x00", 1)
        if end < 2:
            raise AttWriteError(ERROR_INVALID_COMMAND)
        app_id = data[1:end].decode("utf-8", errors="replace")
        if app_id not in self.app_names:
            raise AttWriteError(ERROR_INVALID_PARAMETER)
        out = bytearray(data[: end + 1])
        for attribute_id in data[end + 1 :]:
            value = (
                self.app_names[app_id].encode("utf-8")
                if attribute_id == AppAttributeID.DISPLAY_NAME
                else b""
            )
            out += struct.pack("<BH", attribute_id, len(value)) + value
        return bytes(out)
