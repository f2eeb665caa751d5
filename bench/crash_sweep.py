"""The large power-loss / EIO / ENOSPC sweep over every I/O step of the intake workload.

The workload ends with intake through the `RingWriter` (its commits are crash
points like every other step). The normal test suite runs the same simulator
(tests/notifications_context/powerloss.py) with 6 images per step and a crash
during recovery at every second step; this script runs more images, a nested
crash at every step and several seeds, and prints how many disk images were
checked. Exits 1 at the first invariant violation.

    .venv/bin/python bench/crash_sweep.py --images 16 --seeds 3
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.notifications_context.powerloss import InvariantError, sweep


async def run(images: int, seeds: int) -> int:
    total_images = total_nested = total_eio = 0
    started = time.perf_counter()
    for seed in range(seeds):
        try:
            stats, steps = await sweep(images=images, seed=seed, nested_every=1)
        except InvariantError as err:
            print(f"seed {seed}: INVARIANT VIOLATED: {err}")
            return 1
        total_images += stats.images
        total_nested += stats.nested
        total_eio += stats.eio
        print(f"seed {seed}: {steps} I/O steps, {stats.images} power-loss images, "
              f"{stats.nested} crash-during-recovery images, {stats.eio} EIO/ENOSPC faults: ok")
    elapsed = time.perf_counter() - started
    print(f"total: {total_images + total_nested} disk images and {total_eio} I/O errors checked, "
          f"0 invariant violations, {elapsed:.1f} s")
    return 0


def main() -> None:
    # The ring writer logs each injected write failure it retries; the sweep injects
    # hundreds on purpose.
    logging.getLogger("companion_memory.notifications.writer").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=16)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    raise SystemExit(asyncio.run(run(args.images, args.seeds)))


if __name__ == "__main__":
    main()
