"""Incremental reassembly of ANCS Data Source responses.

A Data Source response carries no total length: it is `command | UID (or app id
NUL) | {attribute id u8, length u16, value}...` in the order of the request, cut
into MTU-sized notifications at arbitrary byte positions (even inside a length
field). The reassembler knows the one outstanding request, checks the command and
the UID / app identifier against it, bounds every attribute and the total, and
refuses bytes after the last attribute. It is a pure state machine modelled on
Nordic's `ancs_attr_parser.c`; `feed()` is synchronous and cheap so the link's
notification callback can call it directly.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from companion_memory.ble.ancs.codec import (
    LENGTH_PREFIXED_ATTRIBUTES,
    AncsCodecError,
    AttributeSpec,
    CommandID,
    encode_get_app_attributes,
    encode_get_notification_attributes,
)
from companion_memory.core.errors import InvalidInputError

DEFAULT_ATTRIBUTE_LIMIT = 1024
"""Bytes allowed for an attribute requested without a maximum length (app id, date...)."""

_UID = struct.Struct("<I")
_ATTR_HEADER = struct.Struct("<BH")


@dataclass(frozen=True, slots=True)
class AttributeRequest:
    """The one outstanding Get Notification / Get App Attributes command."""

    command: CommandID
    attributes: tuple[AttributeSpec, ...]
    uid: int | None = None
    app_id: str | None = None
    default_limit: int = DEFAULT_ATTRIBUTE_LIMIT

    @classmethod
    def notification(cls, uid: int, attributes: Sequence[AttributeSpec]) -> AttributeRequest:
        request = cls(CommandID.GET_NOTIFICATION_ATTRIBUTES, tuple(attributes), uid=uid)
        request.encode()  # validates
        return request

    @classmethod
    def app(cls, app_id: str, attribute_ids: Sequence[int]) -> AttributeRequest:
        request = cls(
            CommandID.GET_APP_ATTRIBUTES,
            tuple(AttributeSpec(a) for a in attribute_ids),
            app_id=app_id,
        )
        request.encode()
        return request

    def encode(self) -> bytes:
        """The Control Point bytes of this request."""
        if self.command == CommandID.GET_NOTIFICATION_ATTRIBUTES:
            if self.uid is None:
                raise InvalidInputError("a notification attribute request needs a uid")
            return encode_get_notification_attributes(self.uid, self.attributes)
        if self.command == CommandID.GET_APP_ATTRIBUTES:
            if self.app_id is None:
                raise InvalidInputError("an app attribute request needs an app id")
            return encode_get_app_attributes(self.app_id, [a.attribute_id for a in self.attributes])
        raise InvalidInputError(
            "only Get Notification / App Attributes have a Data Source response")

    def response_header(self) -> bytes:
        """The bytes every response to this request must start with."""
        if self.command == CommandID.GET_NOTIFICATION_ATTRIBUTES:
            assert self.uid is not None  # encode() validated
            return bytes((self.command,)) + _UID.pack(self.uid)
        assert self.app_id is not None
        return bytes((self.command,)) + self.app_id.encode("utf-8") + b"\x00"

    def limit_for(self, spec: AttributeSpec) -> int:
        if spec.attribute_id in LENGTH_PREFIXED_ATTRIBUTES and spec.max_length is not None:
            return spec.max_length
        return self.default_limit

    @property
    def max_total(self) -> int:
        """The most bytes a well-formed response can have."""
        return len(self.response_header()) + sum(3 + self.limit_for(a) for a in self.attributes)


@dataclass(frozen=True, slots=True)
class AttributeResponse:
    """A complete response: raw attribute values by id, in request order."""

    request: AttributeRequest
    values: dict[int, bytes]

    def get(self, attribute_id: int) -> bytes:
        return self.values.get(attribute_id, b"")


class DataSourceReassembler:
    """Completes one `AttributeResponse` from Data Source fragments.

    `feed()` returns None until the response is complete, then the response; it
    raises `AncsCodecError` on a wrong command, another UID or app, an unexpected
    attribute id, an attribute longer than requested, a response past its bound,
    or bytes after the last attribute. After an error or completion it refuses
    further data (the caller starts a new reassembler for the next request).
    """

    __slots__ = (
        "_buf",
        "_done",
        "_failed",
        "_header",
        "_header_seen",
        "_index",
        "_pending_id",
        "_pending_len",
        "_received",
        "_request",
        "_values",
    )

    def __init__(self, request: AttributeRequest) -> None:
        self._request = request
        self._header = request.response_header()
        self._header_seen = 0
        self._buf = bytearray()
        self._index = 0
        self._pending_id = -1
        self._pending_len = -1
        self._values: dict[int, bytes] = {}
        self._received = 0
        self._done = False
        self._failed = False

    @property
    def request(self) -> AttributeRequest:
        return self._request

    @property
    def done(self) -> bool:
        return self._done

    @property
    def received(self) -> int:
        return self._received

    def _fail(self, code: str, reason: str) -> AncsCodecError:
        self._failed = True
        self._buf.clear()
        return AncsCodecError(code, reason)

    def feed(self, fragment: bytes | bytearray | memoryview) -> AttributeResponse | None:
        if self._done or self._failed:
            raise AncsCodecError(
                "ancs_trailing_bytes",
                "data arrived after the response was complete or refused",
            )
        n = len(fragment)
        self._received += n
        if self._received > self._request.max_total:
            raise self._fail(
                "ancs_response_too_long",
                f"the response is past its bound of {self._request.max_total} bytes",
            )
        data = bytes(fragment)
        pos = 0
        header = self._header
        if self._header_seen < len(header):
            take = min(len(header) - self._header_seen, n)
            expected = header[self._header_seen : self._header_seen + take]
            got = data[:take]
            if got != expected:
                first_bad = next(i for i in range(take) if got[i] != expected[i])
                offset = self._header_seen + first_bad
                if offset == 0:
                    raise self._fail(
                        "ancs_wrong_command",
                        f"the response is for command {got[first_bad]}, "
                        f"the outstanding request is command {header[0]}",
                    )
                by_uid = self._request.command == CommandID.GET_NOTIFICATION_ATTRIBUTES
                what = "UID" if by_uid else "app"
                raise self._fail(
                    "ancs_wrong_uid" if what == "UID" else "ancs_wrong_app",
                    f"the response names another {what} than the outstanding request",
                )
            self._header_seen += take
            pos = take
            if self._header_seen < len(header):
                return None
        buf = self._buf
        if self._pending_len >= 0 and len(buf) + (n - pos) < self._pending_len:
            buf += data[pos:]  # the middle of a long value: keep collecting
            return None
        if buf:
            buf += data[pos:]
            data = bytes(buf)
            buf.clear()
            pos = 0
        end = len(data)
        attributes = self._request.attributes
        while True:
            if self._index >= len(attributes):
                if pos < end:
                    raise self._fail(
                        "ancs_trailing_bytes",
                        f"{end - pos} bytes follow the last requested attribute",
                    )
                self._done = True
                return AttributeResponse(self._request, self._values)
            spec = attributes[self._index]
            if self._pending_len < 0:
                if end - pos < 3:
                    buf += data[pos:]
                    return None
                attr_id, length = _ATTR_HEADER.unpack_from(data, pos)
                pos += 3
                if attr_id != spec.attribute_id:
                    raise self._fail(
                        "ancs_unexpected_attribute",
                        f"attribute {attr_id} arrived where attribute {spec.attribute_id} "
                        "was requested (responses keep the request order)",
                    )
                limit = self._request.limit_for(spec)
                if length > limit:
                    raise self._fail(
                        "ancs_attribute_too_long",
                        f"attribute {attr_id} has {length} bytes, at most {limit} are allowed",
                    )
                self._pending_id = attr_id
                self._pending_len = length
            if end - pos < self._pending_len:
                buf += data[pos:]
                return None
            self._values[self._pending_id] = data[pos : pos + self._pending_len]
            pos += self._pending_len
            self._pending_len = -1
            self._index += 1


def decode_attribute_response(request: AttributeRequest, data: bytes) -> AttributeResponse:
    """Decode a whole response at once; a short one raises `ancs_incomplete_response`."""
    reassembler = DataSourceReassembler(request)
    response = reassembler.feed(data)
    if response is None:
        raise AncsCodecError(
            "ancs_incomplete_response",
            f"the response ends after {len(data)} bytes, before its last attribute",
        )
    return response


def encode_attribute_response(request: AttributeRequest, values: dict[int, bytes]) -> bytes:
    """The Data Source bytes a phone sends for `request` (used by emulators and tests)."""
    out = bytearray(request.response_header())
    for spec in request.attributes:
        value = values.get(spec.attribute_id, b"")
        if spec.max_length is not None and spec.attribute_id in LENGTH_PREFIXED_ATTRIBUTES:
            value = value[: spec.max_length]
        out += _ATTR_HEADER.pack(spec.attribute_id, len(value)) + value
    return bytes(out)
