"""Child process of the busy-agent kill -9 loop: a whole `Runtime` on real files, the
real clock and the real worker, with the agent in the foreground the whole time.

Usage: python -m tests.notifications_context.busy_killee ROOT LEDGER RUN SEED WINDOW

Publishes bursts of notifications (keys "r<RUN>-<i>") at random moments while holding
the foreground, so no idle window ever runs and only the ring writer can persist them.
After each burst it appends "<key> <time.monotonic() just before its publish>" per
event to LEDGER and fsyncs it, so the parent knows what was published, and when, on
the system-wide monotonic clock it reads itself just before sending SIGKILL.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time

from companion_memory.ble.events import EventKind, NotificationEvent
from companion_memory.device.config import parse_config
from companion_memory.device.runtime import Runtime
from tests.notifications_context.helpers import T0


def note(key: str) -> NotificationEvent:
    return NotificationEvent.create(kind=EventKind.ADDED, key=key, app_id="com.example.chat",
                                    title=f"title {key}", body=f"body {key}", posted_at=T0)


async def main(root: str, ledger: str, run: int, seed: int, window: float) -> None:
    rng = random.Random(seed)
    config = parse_config({"intake": {"loss_window_s": window}})
    fd = os.open(ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    async with Runtime(config, root=root) as runtime:
        with runtime.foreground():
            print("ready", flush=True)
            i = 0
            while True:
                lines = []
                for _ in range(rng.randrange(1, 25)):
                    key = f"r{run}-{i}"
                    at = time.monotonic()
                    runtime.publish(note(key))
                    lines.append(f"{key} {at!r}\n")
                    i += 1
                # The ledger is the test's own record, not the product's: written on the
                # loop on purpose (a busy agent blocks its loop now and then too).
                os.write(fd, "".join(lines).encode())
                os.fsync(fd)
                await asyncio.sleep(rng.uniform(0.0, 0.06))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                     float(sys.argv[5])))
