"""BLE intake benchmark: ANCS codec throughput and CPU time per notification.

1. Codec throughput: Notification Source parses/s and Data Source fragments/s
   through the reassembler for a realistic response (app id, title, subtitle,
   a 300-byte message, size, date) cut at MTU 23 and at MTU 185.
2. CPU per notification from the link callback to `EventRing.publish()`: an
   `AncsSession` over `FakeIphoneLink(immediate=True)` (the emulated iPhone
   answers inside the Control Point write, so only our code runs): Notification
   Source callback -> queue -> Get Notification Attributes -> reassembly ->
   UTF-8/date/normalize -> content de-dup -> publish. Baseline measured in the
   same run: `NotificationEvent.create` + `ring.publish` alone (the floor).
   process_time per batch; median and p95 over batches.

    .venv/bin/python bench/ble_codec.py --notifications 2000 --batches 10
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion_memory.ble.ancs.codec import parse_notification_source
from companion_memory.ble.ancs.normalize import notification_attribute_specs
from companion_memory.ble.ancs.reassembler import (
    AttributeRequest,
    DataSourceReassembler,
    encode_attribute_response,
)
from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel, fragment
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock

MESSAGE = ("Dinner at 7? Bring the blue folder and the tickets. " * 6)[:300]


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def codec_throughput(rounds: int) -> dict[str, float]:
    specs = notification_attribute_specs()
    request = AttributeRequest.notification(1234, specs)
    response = encode_attribute_response(request, {
        0: b"com.apple.MobileSMS", 1: b"Ana Souza", 2: b"", 3: MESSAGE.encode(),
        4: b"300", 5: b"20260310T183000",
    })
    out: dict[str, float] = {"response_bytes": len(response)}
    for mtu in (23, 185):
        pieces = fragment(response, mtu)
        t0 = time.perf_counter()
        for _ in range(rounds):
            r = DataSourceReassembler(request)
            for piece in pieces:
                r.feed(piece)
        elapsed = time.perf_counter() - t0
        out[f"ds_fragments_per_s_mtu{mtu}"] = rounds * len(pieces) / elapsed
        out[f"responses_per_s_mtu{mtu}"] = rounds / elapsed
        out[f"fragments_mtu{mtu}"] = len(pieces)
    packet = bytes([0, 0, 4, 1, 0x10, 0x20, 0, 0])
    t0 = time.perf_counter()
    for _ in range(rounds * 10):
        parse_notification_source(packet)
    out["ns_packets_per_s"] = rounds * 10 / (time.perf_counter() - t0)
    return out


async def session_cpu(n: int, batches: int, mtu: int) -> tuple[list[float], list[float]]:
    per_note: list[float] = []
    floor: list[float] = []
    for _ in range(batches):
        ring = EventRing(capacity=n + 10, replay_window=4096)
        model = AncsPhoneModel()
        link = FakeIphoneLink(model, mtu=mtu, immediate=True)
        session = AncsSession(link, ring, zone="Europe/Berlin", clock=FakeClock())
        task = asyncio.create_task(session.run())
        await session.wait_subscribed()
        packets = [
            model.add("com.apple.MobileSMS", title=f"Ana {i}", message=MESSAGE,
                      date="20260310T183000", category=4)[1]
            for i in range(n)
        ]
        await asyncio.sleep(0)
        t0 = time.process_time()
        for start in range(0, n, 256):  # the session queue holds 512
            for packet in packets[start : start + 256]:
                link.send_source(packet)
            await session.wait_handled(min(n, start + 256))
        per_note.append((time.process_time() - t0) / n * 1e6)
        assert session.stats.published == n, session.stats.to_dict()
        link.drop()
        await task

        ring2 = EventRing(capacity=n + 10, replay_window=4096)
        posted = datetime(2026, 3, 10, 17, 30, tzinfo=UTC)
        t0 = time.process_time()
        for i in range(n):
            ring2.publish(NotificationEvent.create(
                kind="added", key=f"k{i}", app_id="com.apple.MobileSMS", title=f"Ana {i}",
                body=MESSAGE, category="social", posted_at=posted, source="ancs"))
        floor.append((time.process_time() - t0) / n * 1e6)
    return per_note, floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notifications", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--codec-rounds", type=int, default=20000)
    args = parser.parse_args()
    codec = codec_throughput(args.codec_rounds)
    for key, value in codec.items():
        print(f"{key}: {value:,.0f}")
    for mtu in (23, 185):
        per_note, floor = asyncio.run(session_cpu(args.notifications, args.batches, mtu))
        print(
            f"MTU {mtu}: callback->publish CPU per notification: median "
            f"{statistics.median(per_note):.1f} us, p95 {_p95(per_note):.1f} us; "
            f"floor (create+publish) median {statistics.median(floor):.1f} us; "
            f"ratio {statistics.median(per_note) / statistics.median(floor):.1f}x"
        )


if __name__ == "__main__":
    main()
