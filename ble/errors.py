"""The typed errors of the phone link (codecs, sessions, transports).

Messages name what was wrong and what is allowed; they never carry notification
text, only ids, lengths and codes.
"""

from __future__ import annotations

from companion_memory.core.errors import UnavailableError


class PhoneLinkError(UnavailableError):
    """Base of every BLE intake error."""

    code = "phone_link_error"


class CodecError(PhoneLinkError):
    """Bytes from the phone did not follow the protocol (malformed, truncated, too long)."""

    code = "codec_error"


class LinkClosedError(PhoneLinkError):
    """The link to the phone is gone (disconnected or closed); reconnect to go on."""

    code = "link_closed"


class AttWriteError(PhoneLinkError):
    """A GATT write was answered with an ATT error; `att_code` is the error byte."""

    code = "att_write_error"

    def __init__(self, att_code: int, reason: str | None = None) -> None:
        self.att_code = att_code
        super().__init__(reason or f"the phone answered the write with ATT error 0x{att_code:02X}")


class CommandTimeoutError(PhoneLinkError):
    """The phone did not complete a command in time; the session goes on with the next one."""

    code = "command_timeout"
