"""Child process of the kill -9 loop: the real asyncio intake path on real files.

Usage: python -m tests.notifications_context.killee ROOT RUN SEED

Publishes event i with key "k<i>" where i continues from the last durable
context id (so key == context id exactly, unless something was lost or
duplicated), consumes, commits some pending batches, moves its clock a day now
and then and cleans processed shards; it writes a checkpoint every 20 records.
After every acknowledged call it prints
"ack <last_context_id>" or "mem <memory_cursor>" (flushed) so the parent knows
what was acknowledged before it sent SIGKILL.
"""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import timedelta

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notification_log import checkpoint as log_checkpoint
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from tests.notifications_context.helpers import T0, event


async def main(root: str, run: int, seed: int) -> None:
    # Checkpoint often, so kills also land while sidecars and checkpoints are written.
    log_checkpoint.CHECKPOINT_EVERY = 20
    rng = random.Random(seed)
    clock = FakeClock(T0 + timedelta(days=run))
    ring = EventRing(capacity=4096)
    ctx = await NotificationContext.open(root, ring, clock=clock)
    print(f"ready {ctx.last_context_id} {ctx.memory_cursor}", flush=True)
    i = ctx.last_context_id + 1
    loops = 0
    while True:
        loops += 1
        for _ in range(rng.randrange(1, 40)):
            ring.publish(event(i))
            i += 1
        await ctx.consume(limit=100)
        print(f"ack {ctx.last_context_id}", flush=True)
        if rng.random() < 0.7:
            batch = await ctx.read_pending(limit=rng.randrange(1, 30))
            if batch:
                await ctx.commit_processed(batch)
                print(f"mem {ctx.memory_cursor}", flush=True)
        if loops % 25 == 0:
            clock.set_wall(clock.now() + timedelta(hours=8))
            await ctx.cleanup_processed_before(clock.now().date())


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
