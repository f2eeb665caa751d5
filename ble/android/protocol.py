"""The Android companion GATT protocol: UUIDs, chunked frames, messages, acks.

The companion app is the GATT server; the wearable subscribes to the Event
characteristic and writes acknowledgements to the Control characteristic.

Event frame (phone -> wearable, one notification):
    version u8 (=1) | seq u16 LE | chunk index u8 | chunk count u8 | payload bytes
A message is the UTF-8 JSON of a normalized event line, cut into `count` chunks
(at most ATT_MTU - 3 - 5 payload bytes each) that share `seq` and arrive in order.

Control record (wearable -> phone, write with response):
    version u8 (=1) | type u8 (1 ack, 2 nack) | seq u16 LE | status u8
Every completed message is answered with exactly one record. Pure code, no I/O;
malformed input raises `AndroidCodecError`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import orjson

from companion_memory.ble.errors import CodecError
from companion_memory.ble.events import InvalidEventError, NotificationEvent, format_rfc3339
from companion_memory.core.errors import InvalidInputError

COMPANION_SERVICE_UUID = "8e1f0001-6c1a-4a5e-9d2b-3c7a5e0b9a10"
EVENT_CHARACTERISTIC_UUID = "8e1f0002-6c1a-4a5e-9d2b-3c7a5e0b9a10"
CONTROL_CHARACTERISTIC_UUID = "8e1f0003-6c1a-4a5e-9d2b-3c7a5e0b9a10"

PROTOCOL_VERSION = 1
FRAME_HEADER = struct.Struct("<BHBB")
CONTROL_RECORD = struct.Struct("<BBHB")
MAX_MESSAGE_BYTES = 16 * 1024
"""A message (JSON) larger than this is refused: 4 KiB body + fields + JSON escaping."""


class ControlType(IntEnum):
    ACK = 1
    NACK = 2
    RESEND_ACTIVE = 3
    """The wearable asks for the newest message of every notification the phone still
    shows (seq and status 0): after a restart it gets back what it had not yet made
    durable; its log keeps each one once."""


class AckStatus(IntEnum):
    """The status byte: 0 published, 1 duplicate (already had it); nack reasons >= 16."""

    PUBLISHED = 0
    DUPLICATE = 1
    BAD_FRAME = 16
    BAD_JSON = 17
    INVALID_EVENT = 18
    TOO_LARGE = 19


class AndroidCodecError(CodecError):
    """A companion frame or message is malformed; `status` is the nack to send."""

    def __init__(self, code: str, reason: str, status: AckStatus, seq: int | None = None) -> None:
        super().__init__(reason, code=code)
        self.status = status
        self.seq = seq


def encode_message(event: NotificationEvent, seq: int, mtu: int = 23) -> list[bytes]:
    """The frames that carry `event` as message `seq` at the given ATT MTU."""
    if not 0 <= seq <= 0xFFFF:
        raise InvalidInputError("seq is a u16 (0..65535)")
    payload = orjson.dumps(
        {
            "kind": event.kind.value,
            "key": event.key,
            "app_id": event.app_id,
            "title": event.title,
            "subtitle": event.subtitle,
            "body": event.body,
            "category": event.category,
            "posted_at": format_rfc3339(event.posted_at),
        }
    )
    return encode_payload(payload, seq, mtu)


def encode_payload(payload: bytes, seq: int, mtu: int = 23) -> list[bytes]:
    size = mtu - 3 - FRAME_HEADER.size
    if size < 1:
        raise InvalidInputError("the ATT MTU is at least 23")
    chunks = [payload[i : i + size] for i in range(0, len(payload), size)] or [b""]
    if len(chunks) > 255:
        raise InvalidInputError("a message needs more than 255 chunks at this MTU")
    return [
        FRAME_HEADER.pack(PROTOCOL_VERSION, seq, i, len(chunks)) + chunk
        for i, chunk in enumerate(chunks)
    ]


def decode_payload(payload: bytes, seq: int) -> NotificationEvent:
    """Decode a complete message into a `NotificationEvent` (source `android`)."""
    try:
        data: Any = orjson.loads(payload)
    except orjson.JSONDecodeError:
        raise AndroidCodecError(
            "android_bad_json", "the message is not UTF-8 JSON", AckStatus.BAD_JSON, seq
        ) from None
    if isinstance(data, dict):
        data.setdefault("subtitle", "")
        data.setdefault("category", "")
    try:
        return NotificationEvent.from_dict(data, source="android")
    except InvalidEventError as exc:
        raise AndroidCodecError(
            "android_invalid_event", f"the message is not a valid event: {exc.field}",
            AckStatus.INVALID_EVENT, seq,
        ) from None


def encode_control(kind: ControlType, seq: int, status: AckStatus) -> bytes:
    return CONTROL_RECORD.pack(PROTOCOL_VERSION, kind, seq & 0xFFFF, status)


def parse_control(data: bytes) -> tuple[ControlType, int, int]:
    if len(data) != CONTROL_RECORD.size:
        raise AndroidCodecError(
            "android_bad_control", f"a control record is {CONTROL_RECORD.size} bytes",
            AckStatus.BAD_FRAME,
        )
    version, kind, seq, status = CONTROL_RECORD.unpack(data)
    if version != PROTOCOL_VERSION or kind not in (1, 2, 3):
        raise AndroidCodecError(
            "android_bad_control", "unknown control version or type", AckStatus.BAD_FRAME
        )
    return ControlType(kind), seq, status


@dataclass(slots=True)
class _Partial:
    seq: int
    count: int
    chunks: list[bytes]
    size: int


class FrameAssembler:
    """Joins Event frames into message payloads; `feed()` returns (seq, payload) or None.

    A frame of a new seq while another message is incomplete abandons the old one
    (counted in `abandoned`); chunks must arrive in order.
    """

    def __init__(self, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self._max = max_message_bytes
        self._partial: _Partial | None = None
        self.abandoned = 0

    def feed(self, frame: bytes) -> tuple[int, bytes] | None:
        if len(frame) < FRAME_HEADER.size:
            self._partial = None
            raise AndroidCodecError(
                "android_bad_frame", f"a frame has at least {FRAME_HEADER.size} header bytes",
                AckStatus.BAD_FRAME,
            )
        version, seq, index, count = FRAME_HEADER.unpack_from(frame)
        if version != PROTOCOL_VERSION or count == 0 or index >= count:
            self._partial = None
            raise AndroidCodecError(
                "android_bad_frame", "bad version, chunk index or chunk count",
                AckStatus.BAD_FRAME, seq,
            )
        body = bytes(frame[FRAME_HEADER.size :])
        partial = self._partial
        if partial is not None and (partial.seq != seq or partial.count != count):
            self.abandoned += 1
            partial = self._partial = None
        if partial is None:
            if index != 0:
                raise AndroidCodecError(
                    "android_bad_frame", "a message must start with chunk 0",
                    AckStatus.BAD_FRAME, seq,
                )
            partial = self._partial = _Partial(seq, count, [], 0)
        if index != len(partial.chunks):
            self._partial = None
            raise AndroidCodecError(
                "android_bad_frame", f"chunk {index} arrived, {len(partial.chunks)} was next",
                AckStatus.BAD_FRAME, seq,
            )
        partial.chunks.append(body)
        partial.size += len(body)
        if partial.size > self._max:
            self._partial = None
            raise AndroidCodecError(
                "android_too_large", f"the message is over {self._max} bytes",
                AckStatus.TOO_LARGE, seq,
            )
        if len(partial.chunks) < count:
            return None
        self._partial = None
        return seq, b"".join(partial.chunks)
