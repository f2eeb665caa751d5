"""`PhoneLinkRunner` (reconnect with back-off) on FakePhoneLink + FakeClock, and the
idempotent handlers of `BleakPhoneLink` on a recording stand-in for a BleakClient."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from companion_memory.ble.bleak_link import Backoff, BleakPhoneLink, PhoneLinkRunner
from companion_memory.ble.errors import AttWriteError, LinkClosedError, PhoneLinkError
from companion_memory.ble.link import FakePhoneLink, PhoneLink
from companion_memory.core.clock import FakeClock
from tests.ble.helpers import until

UUID = "9fbf120d-6301-42d9-8c58-25e699a21dbd"


class Phone:
    """Connect attempts: fail `fail` times, then hand out a fresh FakePhoneLink each time."""

    def __init__(self, clock: FakeClock, fail: int) -> None:
        self.clock = clock
        self.fail = fail
        self.attempts: list[float] = []  # monotonic time of each connect attempt
        self.links: list[FakePhoneLink] = []

    async def connect(self) -> PhoneLink:
        self.attempts.append(self.clock.monotonic())
        if len(self.attempts) <= self.fail:
            raise PhoneLinkError("no phone", code="phone_not_found")
        link = FakePhoneLink(peer=f"phone-{len(self.links)}")
        self.links.append(link)
        return link


class Sessions:
    """A serve() that subscribes twice (handlers must stay single) and waits for the drop."""

    def __init__(self) -> None:
        self.served: list[PhoneLink] = []
        self.received: list[bytes] = []

    async def serve(self, link: PhoneLink) -> None:
        self.served.append(link)
        await link.start_notify(UUID, self.received.append)
        await link.start_notify(UUID, self.received.append)
        await link.wait_closed()


async def _advance_until(clock: FakeClock, condition: Any, step: float = 0.5) -> None:
    for _ in range(2_000):
        if condition():
            return
        await clock.advance(step)
    raise AssertionError("condition never held")


async def test_backoff_grows_is_capped_and_resets_after_a_session() -> None:
    clock = FakeClock()
    phone, sessions = Phone(clock, fail=5), Sessions()
    runner = PhoneLinkRunner(phone.connect, sessions.serve, clock=clock,
                             backoff=Backoff(initial=1.0, maximum=4.0))
    task = asyncio.create_task(runner.run(max_sessions=2))
    await _advance_until(clock, lambda: len(phone.links) == 1)
    gaps = [b - a for a, b in zip(phone.attempts, phone.attempts[1:], strict=False)]
    assert gaps == [1.0, 2.0, 4.0, 4.0, 4.0]  # doubling, capped at 4 s
    assert runner.failures == {"phone_not_found": 5}

    # A session: one handler per uuid, data reaches it once; the drop ends the session.
    first = phone.links[0]
    await until(lambda: UUID in first.subscribed)
    assert first.notify(UUID, b"x") and sessions.received == [b"x"]
    first.drop()
    await until(lambda: clock.sleepers == 1)  # the session ended; the runner backs off
    dropped_at = clock.monotonic()
    await _advance_until(clock, lambda: len(phone.links) == 2)
    assert phone.attempts[-1] - dropped_at == 1.0  # back-off reset after a session
    second = phone.links[1]
    assert second is not first and sessions.served == [first, second]  # fresh link each time
    await until(lambda: UUID in second.subscribed)
    assert not first.notify(UUID, b"stale")  # the old link delivers nothing any more
    second.drop()
    await asyncio.wait_for(task, 5)
    assert runner.sessions == 2 and not first.is_connected and not second.is_connected


@pytest.mark.parametrize("state", ["backoff", "session"])
async def test_stop_ends_run_promptly(state: str) -> None:
    clock = FakeClock()
    phone = Phone(clock, fail=10**6 if state == "backoff" else 0)
    sessions = Sessions()
    runner = PhoneLinkRunner(phone.connect, sessions.serve, clock=clock)
    task = asyncio.create_task(runner.run())
    if state == "backoff":
        await until(lambda: clock.sleepers == 1)
    else:
        await until(lambda: bool(phone.links) and UUID in phone.links[0].subscribed)
    runner.stop()
    await asyncio.wait_for(task, 5)  # returns without the clock moving
    assert not task.cancelled() and task.exception() is None
    assert all(not link.is_connected for link in phone.links)
    assert clock.monotonic() == 0.0 and clock.sleepers == 0


async def test_a_session_error_is_counted_and_the_runner_reconnects() -> None:
    clock = FakeClock()
    phone = Phone(clock, fail=0)
    calls = 0

    async def serve(link: PhoneLink) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise LinkClosedError("dropped while subscribing")
        await link.wait_closed()

    runner = PhoneLinkRunner(phone.connect, serve, clock=clock)
    task = asyncio.create_task(runner.run(max_sessions=1))
    await _advance_until(clock, lambda: len(phone.links) == 2)
    assert runner.failures == {"link_closed": 1} and not phone.links[0].is_connected
    phone.links[1].drop()
    await asyncio.wait_for(task, 5)
    assert runner.sessions == 1


async def test_cancelling_run_closes_the_link_and_propagates() -> None:
    clock = FakeClock()
    phone, sessions = Phone(clock, fail=0), Sessions()
    runner = PhoneLinkRunner(phone.connect, sessions.serve, clock=clock)
    task = asyncio.create_task(runner.run())
    await until(lambda: bool(phone.links))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not phone.links[0].is_connected


def test_backoff_validates() -> None:
    with pytest.raises(ValueError, match="initial <= maximum"):
        Backoff(initial=5.0, maximum=1.0)
    with pytest.raises(ValueError, match="0 < initial"):
        Backoff(initial=0.0)


class RecordingClient:
    """Stands in for a connected bleak.BleakClient: records start/stop_notify calls."""

    address = "00:BB:00:00:00:02"

    def __init__(self) -> None:
        self.is_connected = True
        self.handlers: list[Any] = []
        self.stops: list[str] = []
        self.write_error: Exception | None = None
        self.drop_on_write = False

    async def start_notify(self, uuid: str, handler: Any) -> None:
        self.handlers.append(handler)

    async def stop_notify(self, uuid: str) -> None:
        self.stops.append(uuid)

    async def write_gatt_char(self, uuid: str, data: bytes, response: bool) -> None:
        if self.drop_on_write:
            self.is_connected = False
        if self.write_error is not None:
            raise self.write_error

    async def disconnect(self) -> None:
        self.is_connected = False


async def test_bleak_link_handlers_are_idempotent_and_errors_typed() -> None:
    from bleak.exc import BleakError, BleakGATTProtocolError

    client = RecordingClient()
    link = BleakPhoneLink(client)
    first: list[bytes] = []
    second: list[bytes] = []
    await link.start_notify(UUID, first.append)
    await link.start_notify(UUID, second.append)  # re-subscribe: replaces, never doubles
    assert len(client.handlers) == 1
    client.handlers[0](None, bytearray(b"\x01\x02"))
    assert first == [] and second == [b"\x01\x02"]
    await link.stop_notify(UUID)
    await link.stop_notify(UUID)
    assert client.stops == [UUID]

    client.write_error = BleakGATTProtocolError(0xA2)
    with pytest.raises(AttWriteError) as refused:
        await link.write(UUID, b"\x00")
    assert refused.value.att_code == 0xA2
    client.write_error, client.drop_on_write = BleakError("gone"), True  # lost mid-write
    with pytest.raises(LinkClosedError):
        await link.write(UUID, b"\x00")
    await asyncio.wait_for(link.wait_closed(), 5)


@pytest.mark.parametrize("error", [OSError(113, "No route to host"), TimeoutError(),
                                   RuntimeError("org.bluez.Error.Failed")])
async def test_any_failure_backs_off_and_retries_never_ending_the_link(
    error: Exception,
) -> None:
    clock = FakeClock()
    attempts = 0
    links: list[FakePhoneLink] = []

    async def connect() -> PhoneLink:
        nonlocal attempts
        attempts += 1
        if attempts <= 2:
            raise error  # what bleak or D-Bus may let through, not a PhoneLinkError
        links.append(FakePhoneLink(peer="phone"))
        return links[-1]

    session_failed = False

    async def serve(link: PhoneLink) -> None:
        nonlocal session_failed
        if not session_failed:
            session_failed = True
            raise error
        await link.wait_closed()

    runner = PhoneLinkRunner(connect, serve, clock=clock)
    assert runner.state == "stopped"
    task = asyncio.create_task(runner.run(max_sessions=1))
    await _advance_until(clock, lambda: len(links) == 2)
    code = f"unexpected_{type(error).__name__}"
    assert runner.failures == {code: 3}  # two connects and one session
    assert runner.last_error == code
    assert runner.state == "connected"
    links[1].drop()
    await asyncio.wait_for(task, 5)
    assert runner.sessions == 1 and runner.state == "stopped"
