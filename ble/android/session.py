"""One Android companion connection over a `PhoneLink`, ending in `EventRing.publish()`.

The Event callback is synchronous: it joins frames, decodes the message,
publishes it and queues the acknowledgement; `run()` writes the queued
acknowledgements to the Control characteristic one at a time. A bad frame or
message is nacked (when its seq is known), counted, and the session goes on.
Each body is cut to `body_limit_bytes` (at a UTF-8 character boundary, flagged
`truncated`) before it is published: the configured intake cap. Once subscribed,
the session first writes a "resend active" record (type 3): the phone sends again
the newest message of every notification it still shows, so what a crash took
before it was durable comes back (the ANCS PreExisting listing's counterpart);
the ring's replay window and the log drop what is already held. A phone that
refuses the record (an older app) is counted, and the session goes on. `run()` returns
when the link closes; cancelling it drops unsent acks (the
phone re-sends unacknowledged messages, and the ring's replay window drops
what was already published).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import Counter
from dataclasses import dataclass, field

from companion_memory.ble.android.protocol import (
    CONTROL_CHARACTERISTIC_UUID,
    EVENT_CHARACTERISTIC_UUID,
    AckStatus,
    AndroidCodecError,
    ControlType,
    FrameAssembler,
    decode_payload,
    encode_control,
)
from companion_memory.ble.errors import LinkClosedError
from companion_memory.ble.events import BODY_LIMIT_BYTES, cap_body
from companion_memory.ble.link import PhoneLink
from companion_memory.ble.ring import EventRing
from companion_memory.core.errors import CompanionMemoryError, InvalidInputError

_log = logging.getLogger("companion_memory.ble.android")


@dataclass
class AndroidSessionStats:
    frames: int = 0
    messages: int = 0
    published: int = 0
    duplicates: int = 0
    acks_sent: int = 0
    nacks_sent: int = 0
    resend_requests: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, object]:
        data = dataclasses.asdict(self)
        data["errors"] = dict(self.errors)
        return data


class AndroidSession:
    """Serves one subscription to the companion service."""

    def __init__(
        self, link: PhoneLink, ring: EventRing, *, logger: logging.Logger | None = None,
        body_limit_bytes: int = BODY_LIMIT_BYTES,
    ) -> None:
        if (isinstance(body_limit_bytes, bool) or not isinstance(body_limit_bytes, int)
                or not 1 <= body_limit_bytes <= BODY_LIMIT_BYTES):
            raise InvalidInputError(f"body_limit_bytes is 1..{BODY_LIMIT_BYTES} bytes")
        self._body_limit = body_limit_bytes
        self._link = link
        self._ring = ring
        self._assembler = FrameAssembler()
        self._acks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._log = logger or _log
        self._progress = asyncio.Event()
        self._subscribed = asyncio.Event()
        self.stats = AndroidSessionStats()

    def on_event_frame(self, frame: bytes) -> None:
        self.stats.frames += 1
        try:
            done = self._assembler.feed(frame)
            if done is None:
                return
            seq, payload = done
            self.stats.messages += 1
            event = cap_body(decode_payload(payload, seq), self._body_limit)
        except AndroidCodecError as exc:
            self.stats.errors[exc.code] += 1
            if exc.seq is not None:
                self._acks.put_nowait(encode_control(ControlType.NACK, exc.seq, exc.status))
                self.stats.nacks_sent += 1
            self._progress.set()
            return
        if self._ring.publish(event) is None:
            self.stats.duplicates += 1
            status = AckStatus.DUPLICATE
        else:
            self.stats.published += 1
            status = AckStatus.PUBLISHED
        self._acks.put_nowait(encode_control(ControlType.ACK, seq, status))
        self.stats.acks_sent += 1
        self._progress.set()

    async def wait_subscribed(self) -> None:
        await self._subscribed.wait()

    async def wait_messages(self, count: int) -> None:
        """Return once `count` acknowledgements (acks or nacks) were queued."""
        while self.stats.acks_sent + self.stats.nacks_sent < count:
            self._progress.clear()
            await self._progress.wait()

    async def run(self) -> AndroidSessionStats:
        """Serve until the link closes; returns the counts."""
        watcher = asyncio.ensure_future(self._watch_close())
        try:
            await self._link.start_notify(EVENT_CHARACTERISTIC_UUID, self.on_event_frame)
            self._subscribed.set()
            self._request_active()
            while (record := await self._acks.get()) is not None:
                try:
                    await self._link.write(CONTROL_CHARACTERISTIC_UUID, record, response=True)
                except LinkClosedError:
                    break
                except CompanionMemoryError as exc:
                    self.stats.errors[f"ack_{exc.code}"] += 1
                    self._log.info("android ack not written: %s", exc.code)
        except LinkClosedError:
            pass
        finally:
            watcher.cancel()
            if self._link.is_connected:
                with contextlib.suppress(CompanionMemoryError):
                    await self._link.stop_notify(EVENT_CHARACTERISTIC_UUID)
        return self.stats

    def _request_active(self) -> None:
        """Queue the "resend active" record ahead of every acknowledgement."""
        record = encode_control(ControlType.RESEND_ACTIVE, 0, AckStatus.PUBLISHED)
        pending: list[bytes | None] = []
        while not self._acks.empty():
            pending.append(self._acks.get_nowait())
        self._acks.put_nowait(record)
        for item in pending:
            self._acks.put_nowait(item)
        self.stats.resend_requests += 1

    async def _watch_close(self) -> None:
        await self._link.wait_closed()
        self._acks.put_nowait(None)
