"""One ANCS subscription over a `PhoneLink`, ending in `EventRing.publish()`.

`AncsSession.run()` subscribes to the Data Source first and the Notification
Source second (the phone may send PreExisting notifications right away), then
works through Notification Source packets one at a time: for an added or
modified notification it asks for the attributes (one Control Point command
outstanding, with a timeout), normalizes them to a `NotificationEvent` and
publishes it; a removed notification becomes a `removed` event for its key.
App display names are fetched once per app and cached for the session.

`message_limit` is the body cap (`intake.body_limit_bytes`): the Message attribute
is requested with that maximum length, and a longer Message from a phone that
ignores it is cut to the cap at a UTF-8 character boundary and flagged `truncated`.

Bad input never ends the session: a refused command (0xA0-0xA3), a timeout, a
malformed or foreign response, invalid UTF-8 or a bad date is counted under its
error code and the session goes on with the next notification. `run()` returns
when the link closes; cancelling it cancels the in-flight command and returns
the subscriptions on a best-effort basis.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from companion_memory.ble.ancs.codec import (
    CONTROL_POINT_UUID,
    DATA_SOURCE_UUID,
    NOTIFICATION_SOURCE_UUID,
    AncsCodecError,
    AncsCommandError,
    AppAttributeID,
    EventID,
    NotificationSourcePacket,
    decode_text,
    parse_notification_source,
)
from companion_memory.ble.ancs.normalize import (
    AncsContentIndex,
    NotificationAttributes,
    category_name,
    decode_notification_attributes,
    load_zone,
    notification_attribute_specs,
    parse_ancs_date,
)
from companion_memory.ble.ancs.reassembler import (
    AttributeRequest,
    AttributeResponse,
    DataSourceReassembler,
)
from companion_memory.ble.errors import AttWriteError, CommandTimeoutError, LinkClosedError
from companion_memory.ble.events import BODY_LIMIT_BYTES, EventKind, NotificationEvent
from companion_memory.ble.link import PhoneLink
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.errors import CompanionMemoryError, InvalidInputError

COMMAND_TIMEOUT_S = 5.0
"""How long one Control Point command may take until its response is complete; iOS
answers in well under a second, a silent phone must not stall the queue."""

QUEUE_LIMIT = 512
"""Notification Source packets waiting for their attributes; more are dropped and counted."""

_log = logging.getLogger("companion_memory.ble.ancs")


@dataclass
class AncsSessionStats:
    """Counts only (no content)."""

    packets: int = 0
    handled: int = 0
    published: int = 0
    duplicates: int = 0
    removed: int = 0
    unknown_uid: int = 0
    ignored_events: int = 0
    queue_dropped: int = 0
    stray_fragments: int = 0
    app_names: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, object]:
        data = dataclasses.asdict(self)
        data["errors"] = dict(self.errors)
        return data


@dataclass(frozen=True, slots=True)
class _Known:
    key: str
    digest: str
    app_id: str
    category: str
    posted_at: datetime


class AncsSession:
    """One subscription to ANCS on one connection (UIDs are valid only here)."""

    def __init__(
        self,
        link: PhoneLink,
        ring: EventRing,
        *,
        zone: str | ZoneInfo,
        clock: Clock | None = None,
        index: AncsContentIndex | None = None,
        command_timeout: float = COMMAND_TIMEOUT_S,
        message_limit: int = BODY_LIMIT_BYTES,
        fetch_app_names: bool = True,
        queue_limit: int = QUEUE_LIMIT,
        logger: logging.Logger | None = None,
    ) -> None:
        if command_timeout <= 0:
            raise InvalidInputError("command_timeout must be positive (seconds)")
        if (isinstance(message_limit, bool) or not isinstance(message_limit, int)
                or not 1 <= message_limit <= BODY_LIMIT_BYTES):
            # ANCS allows 65535, but a body is never kept past BODY_LIMIT_BYTES.
            raise InvalidInputError(f"message_limit (the body cap) is 1..{BODY_LIMIT_BYTES} bytes")
        if queue_limit < 1:
            raise InvalidInputError("queue_limit must be at least 1")
        self._link = link
        self._ring = ring
        if isinstance(zone, str):
            if not zone.strip():
                raise InvalidInputError("zone is an IANA zone name such as Europe/Berlin")
            self._zone_name, self._zone = zone, None
        else:
            self._zone_name, self._zone = zone.key, zone
        self._clock = clock or SystemClock()
        self.index = index if index is not None else AncsContentIndex()
        self._timeout = command_timeout
        self._message_limit = message_limit
        self._specs = notification_attribute_specs(message_limit)
        self._fetch_app_names = fetch_app_names
        self._queue_limit = queue_limit
        self._log = logger or _log
        self._queue: asyncio.Queue[NotificationSourcePacket | None] = asyncio.Queue()
        self._pending: tuple[DataSourceReassembler, asyncio.Future[AttributeResponse]] | None = (
            None
        )
        self._known: dict[int, _Known] = {}
        self.app_names: dict[str, str] = {}
        self.stats = AncsSessionStats()
        self._progress = asyncio.Event()
        self._subscribed = asyncio.Event()

    @property
    def link(self) -> PhoneLink:
        return self._link

    @property
    def idle(self) -> bool:
        """No Notification Source packet waits and no attribute command is in flight."""
        return self._queue.empty() and self._pending is None

    # -- link callbacks (synchronous, never block) ---------------------------------

    def on_notification_source(self, data: bytes) -> None:
        self.stats.packets += 1
        try:
            packet = parse_notification_source(data)
        except AncsCodecError as exc:
            self.stats.errors[exc.code] += 1
            self._mark_handled()
            return
        if self._queue.qsize() >= self._queue_limit:
            self.stats.queue_dropped += 1
            self._mark_handled()
            return
        self._queue.put_nowait(packet)

    def _mark_handled(self) -> None:
        self.stats.handled += 1
        self._progress.set()

    def on_data_source(self, data: bytes) -> None:
        pending = self._pending
        if pending is None or pending[1].done():
            self.stats.stray_fragments += 1
            return
        reassembler, future = pending
        try:
            response = reassembler.feed(data)
        except AncsCodecError as exc:
            future.set_exception(exc)
            return
        if response is not None:
            future.set_result(response)

    # -- lifecycle -----------------------------------------------------------------

    async def run(self) -> AncsSessionStats:
        """Serve the subscription until the link closes; returns the counts."""
        if self._zone is None:  # reading the zone file is blocking I/O
            self._zone = await asyncio.to_thread(load_zone, self._zone_name)
        watcher = asyncio.ensure_future(self._watch_close())
        try:
            await self._link.start_notify(DATA_SOURCE_UUID, self.on_data_source)
            await self._link.start_notify(NOTIFICATION_SOURCE_UUID, self.on_notification_source)
            self._subscribed.set()
            while True:
                packet = await self._queue.get()
                if packet is None:
                    break
                try:
                    await self._handle(packet)
                except LinkClosedError:
                    break
                except CompanionMemoryError as exc:
                    self.stats.errors[exc.code] += 1
                    self._log.info("ancs uid=%d skipped: %s", packet.uid, exc.code)
                finally:
                    self._mark_handled()
        except LinkClosedError:
            pass
        finally:
            watcher.cancel()
            self._pending = None
            if self._link.is_connected:
                for uuid in (NOTIFICATION_SOURCE_UUID, DATA_SOURCE_UUID):
                    with contextlib.suppress(CompanionMemoryError):
                        await self._link.stop_notify(uuid)
        return self.stats

    async def wait_subscribed(self) -> None:
        """Return once both subscriptions are in place."""
        await self._subscribed.wait()

    async def wait_handled(self, count: int) -> None:
        """Return once `count` Notification Source packets were handled (or dropped)."""
        while self.stats.handled < count:
            self._progress.clear()
            await self._progress.wait()

    async def _watch_close(self) -> None:
        await self._link.wait_closed()
        self._queue.put_nowait(None)
        pending = self._pending
        if pending is not None and not pending[1].done():
            pending[1].set_exception(LinkClosedError("the phone disconnected mid-command"))

    # -- commands ------------------------------------------------------------------

    async def _command(self, request: AttributeRequest) -> AttributeResponse:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[AttributeResponse] = loop.create_future()
        self._pending = (DataSourceReassembler(request), future)
        try:
            try:
                await self._link.write(CONTROL_POINT_UUID, request.encode(), response=True)
            except AttWriteError as exc:
                raise AncsCommandError(exc.att_code) from exc
            if not future.done():
                sleeper = asyncio.ensure_future(self._clock.sleep(self._timeout))
                try:
                    await asyncio.wait((future, sleeper), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    sleeper.cancel()
                if not future.done():
                    raise CommandTimeoutError(
                        f"the phone did not complete the response in {self._timeout} s "
                        f"({self._pending[0].received if self._pending else 0} bytes came)"
                    )
            return future.result()
        finally:
            self._pending = None
            if not future.done():
                future.cancel()

    async def _handle(self, packet: NotificationSourcePacket) -> None:
        if packet.event_id == EventID.REMOVED:
            self._handle_removed(packet)
            return
        if packet.event_id not in (EventID.ADDED, EventID.MODIFIED):
            self.stats.ignored_events += 1
            return
        request = AttributeRequest.notification(packet.uid, self._specs)
        response = await self._command(request)
        attrs = decode_notification_attributes(response, self._message_limit)
        self._publish_update(packet, attrs)
        if self._fetch_app_names and attrs.app_id not in self.app_names:
            await self._fetch_app_name(attrs.app_id)

    async def _fetch_app_name(self, app_id: str) -> None:
        self.app_names[app_id] = ""  # even a failed lookup is not retried this session
        try:
            response = await self._command(
                AttributeRequest.app(app_id, [AppAttributeID.DISPLAY_NAME])
            )
            self.app_names[app_id] = decode_text(
                response.get(AppAttributeID.DISPLAY_NAME), attribute_id=AppAttributeID.DISPLAY_NAME
            )
            self.stats.app_names += 1
        except (AncsCommandError, AncsCodecError, CommandTimeoutError, ValueError) as exc:
            code = getattr(exc, "code", "ancs_bad_app_id")
            self.stats.errors[f"app_name_{code}"] += 1

    def _publish_update(
        self, packet: NotificationSourcePacket, attrs: NotificationAttributes
    ) -> None:
        digest = attrs.content_digest()
        known_key = self.index.lookup(digest)
        previous = self._known.get(packet.uid)
        category = category_name(packet.category_id)
        if known_key is not None:
            # Same content already published (PreExisting after a reconnect, or a
            # modify that changed nothing we keep): map the UID, publish nothing.
            self.stats.duplicates += 1
            if previous is None or previous.key == known_key:
                self._known[packet.uid] = _Known(
                    known_key, digest, attrs.app_id, category,
                    previous.posted_at if previous else self._clock.now(),
                )
            return
        assert self._zone is not None  # loaded by run()
        posted_at = parse_ancs_date(attrs.date_raw, self._zone) or self._clock.now()
        if previous is not None:
            key, kind = previous.key, EventKind.MODIFIED
        else:
            key, kind = AncsContentIndex.new_key(digest), EventKind.ADDED
        event = NotificationEvent.create(
            kind=kind,
            key=key,
            app_id=attrs.app_id,
            title=attrs.title,
            subtitle=attrs.subtitle,
            body=attrs.message,
            category=category,
            posted_at=posted_at,
            source="ancs",
        )
        if attrs.truncated and not event.truncated:
            event = dataclasses.replace(event, truncated=True)
        self.index.remember(digest, key)
        self._known[packet.uid] = _Known(key, digest, attrs.app_id, category, posted_at)
        if self._ring.publish(event) is None:
            self.stats.duplicates += 1
        else:
            self.stats.published += 1

    def _handle_removed(self, packet: NotificationSourcePacket) -> None:
        known = self._known.pop(packet.uid, None)
        if known is None:
            self.stats.unknown_uid += 1
            return
        self.index.forget(known.digest)
        event = NotificationEvent.create(
            kind=EventKind.REMOVED,
            key=known.key,
            app_id=known.app_id,
            category=known.category,
            posted_at=self._clock.now(),
            source="ancs",
        )
        if self._ring.publish(event) is not None:
            self.stats.removed += 1
        else:
            self.stats.duplicates += 1
