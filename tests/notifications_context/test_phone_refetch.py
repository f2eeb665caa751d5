"""After a crash, what the phone still shows comes back, and the log keeps each one once.

A process takes notifications from an emulated phone into its ring; its writer makes
some durable; then the process dies before the writer's next commit (the writer is
stopped without its last flush, the context never closed). A new process on the same
root connects again: the iPhone lists what it shows (ANCS PreExisting), the Android
companion app answers the wearable's "resend active" record, and after the new
writer's commit the log holds every notification still on the phone exactly once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notifications import RingWriter
from companion_memory.ble.ancs.codec import NOTIFICATION_SOURCE_UUID
from companion_memory.ble.android.session import AndroidSession
from companion_memory.ble.emulator.bumble_android import EmulatedAndroidPhone
from companion_memory.ble.emulator.bumble_link import BumbleTestbed
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.link import PhoneLink
from companion_memory.ble.ring import EventRing
from companion_memory.ble.settings import LinkSettings
from companion_memory.core.clock import FakeClock
from companion_memory.device.link import PhoneLinkService
from tests.notifications_context.helpers import T0

TRANSPORT_S = 60
"""A generous bound for the emulated BLE transport: it fails a hang by name, never a
slow machine."""

ANCS = LinkSettings(kind="ancs", advertise=False, backoff_initial_s=0.1, backoff_max_s=0.2)


async def wait_for(predicate: Callable[[], bool], what: str) -> None:
    for _ in range(3000):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{what} not reached within 30 s")


class Process:
    """What one agent process holds: a ring, the context on the root, the writer."""

    def __init__(self, ring: EventRing, ctx: NotificationContext, writer: RingWriter) -> None:
        self.ring, self.ctx, self.writer = ring, ctx, writer

    @classmethod
    async def start(cls, root: Path) -> Process:
        ring = EventRing()
        ctx = await NotificationContext.open(root, ring, clock=FakeClock(T0))
        writer = RingWriter(ctx, ring, clock=FakeClock(T0), loss_window_s=60.0)
        await writer.start()
        return cls(ring, ctx, writer)

    async def crash(self) -> None:
        """The process dies: no last flush, no close."""
        await self.writer.stop(flush=False)

    async def keys(self) -> list[str]:
        records = await self.ctx.read_pending(100)
        return [r.event.key for r in records]


class Iphone:
    """An emulated iPhone on the fake link; each connect() is a new subscription."""

    def __init__(self) -> None:
        self.model = AncsPhoneModel(app_names={"net.whatsapp.WhatsApp": "WhatsApp"})
        self.links: list[FakeIphoneLink] = []

    async def connect(self) -> PhoneLink:
        if self.links:
            self.model.renumber()
        link = FakeIphoneLink(self.model, mtu=23)
        self.links.append(link)
        asyncio.get_running_loop().create_task(self._after_subscribe(link))
        return link

    async def _after_subscribe(self, link: FakeIphoneLink) -> None:
        await wait_for(lambda: NOTIFICATION_SOURCE_UUID.lower() in link.subscribed, "subscribe")
        for packet in self.model.pre_existing_packets():
            link.send_source(packet)

    def post(self, n: int) -> None:
        _, packet = self.model.add("net.whatsapp.WhatsApp", title="Anna",
                                   message=f"Message number {n}", date="20260314T183000")
        self.links[-1].send_source(packet)


async def test_an_iphone_lists_again_what_a_crash_took(tmp_path: Path) -> None:
    phone = Iphone()
    first = await Process.start(tmp_path)
    link = PhoneLinkService(ANCS, first.ring, zone="Europe/Berlin", clock=FakeClock(T0),
                            connect=phone.connect)
    await link.start()
    await wait_for(lambda: bool(phone.links)
                   and NOTIFICATION_SOURCE_UUID.lower() in phone.links[0].subscribed, "link")
    for n in (1, 2):
        phone.post(n)
    await wait_for(lambda: first.ring.statistics().published == 2, "two published")
    assert (await first.writer.flush()).persisted == 2
    phone.post(3)  # arrives, but the process dies before the writer commits it
    await wait_for(lambda: first.ring.statistics().published == 3, "third published")
    await link.stop()
    await first.crash()

    second = await Process.start(tmp_path)
    link = PhoneLinkService(ANCS, second.ring, zone="Europe/Berlin", clock=FakeClock(T0),
                            connect=phone.connect)
    await link.start()
    # PreExisting: the phone lists all three; the two the log holds are dropped
    await wait_for(lambda: second.ring.statistics().published
                   + second.ring.statistics().duplicates == 3, "the listing")
    await link.stop()
    assert (await second.writer.flush()).persisted == 1
    keys = await second.keys()
    assert len(keys) == len(set(keys)) == 3
    await second.writer.stop()
    await second.ctx.close()


def android_event(n: int, kind: str = "added") -> NotificationEvent:
    return NotificationEvent.create(kind=kind, key=f"0|com.whatsapp|{n}", app_id="com.whatsapp",
                                    title="Ana", body=f"Message number {n}" if kind != "removed"
                                    else "", category="msg", posted_at=T0)


async def test_the_android_companion_resends_what_it_shows_after_a_crash(
    tmp_path: Path,
) -> None:
    testbed = BumbleTestbed()
    await testbed.power_on()
    phone = EmulatedAndroidPhone(testbed.phone)
    try:
        first = await Process.start(tmp_path)
        session = AndroidSession(await testbed.connect(mtu=64), first.ring)
        task = asyncio.create_task(session.run())
        await asyncio.wait_for(session.wait_subscribed(), TRANSPORT_S)
        # The phone has seen the subscription and answered the session's resend request
        # (nothing to re-send yet), so what follows is only what it sends now.
        await wait_for(lambda: bool(phone._connections()) and phone.resend_requests == 1
                       and not phone._tasks, "the phone's view of the subscription")
        for n in (1, 2):
            await phone.send(android_event(n))
        await phone.send(android_event(4))
        await phone.send(android_event(4, "removed"))  # dismissed: not shown any more
        await asyncio.wait_for(session.wait_messages(4), TRANSPORT_S)
        assert (await first.writer.flush()).persisted == 4
        await phone.send(android_event(3))  # acknowledged, then the process dies
        await asyncio.wait_for(session.wait_messages(5), TRANSPORT_S)
        await wait_for(lambda: not phone.unacked, "the phone's acknowledgements")
        await first.crash()
        await phone.disconnect()
        await asyncio.wait_for(task, TRANSPORT_S)

        second = await Process.start(tmp_path)
        session2 = AndroidSession(await testbed.connect(mtu=64), second.ring)
        task2 = asyncio.create_task(session2.run())
        # the session asks; the phone re-sends the three it still shows (1, 2, 3)
        await asyncio.wait_for(session2.wait_messages(3), TRANSPORT_S)
        assert phone.resend_requests == 2 and session2.stats.resend_requests == 1
        assert session2.stats.duplicates == 2 and session2.stats.published == 1
        assert (await second.writer.flush()).persisted == 1
        await phone.disconnect()
        await asyncio.wait_for(task2, TRANSPORT_S)
    finally:
        await testbed.close()
    keys = await second.keys()
    assert sorted(keys) == sorted([
        "0|com.whatsapp|1", "0|com.whatsapp|2", "0|com.whatsapp|4", "0|com.whatsapp|4",
        "0|com.whatsapp|3",
    ])
    await second.writer.stop()
    await second.ctx.close()
