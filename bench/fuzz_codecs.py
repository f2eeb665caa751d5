"""Long fuzz run of the BLE codecs (the tests run a short hypothesis version).

Feeds seeded random inputs to the Notification Source parser, the Data Source
reassembler (random bytes, valid responses truncated, cut anywhere, with another
UID, oversized lengths, invalid UTF-8, trailing bytes) and the Android frame
assembler. Every input must end in a result or a typed `CodecError`; anything
else is a bug and stops the run. Prints the counts per outcome.

    .venv/bin/python bench/fuzz_codecs.py --iterations 200000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import struct
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion_memory.ble.ancs.codec import decode_text, parse_notification_source
from companion_memory.ble.ancs.normalize import (
    decode_notification_attributes,
    notification_attribute_specs,
)
from companion_memory.ble.ancs.reassembler import (
    AttributeRequest,
    DataSourceReassembler,
    encode_attribute_response,
)
from companion_memory.ble.android.protocol import FrameAssembler, decode_payload, encode_payload
from companion_memory.ble.errors import CodecError

SPECS = notification_attribute_specs(512)


def _valid(rng: random.Random, uid: int) -> bytes:
    request = AttributeRequest.notification(uid, SPECS)
    def text() -> bytes:
        n = rng.randint(0, 40)
        return rng.randbytes(n) if rng.random() < 0.3 else bytes(rng.choices(b"ab xyz", k=n))

    values = {s.attribute_id: text() for s in SPECS}
    values[0] = b"com.example"
    values[4] = str(len(values[3])).encode()
    values[5] = b"20260310T183000" if rng.random() < 0.8 else text()
    return encode_attribute_response(request, values)


def _mutate(rng: random.Random, data: bytes, uid: int) -> bytes:
    kind = rng.randrange(7)
    if kind == 0:
        return rng.randbytes(rng.randint(0, 80))
    if kind == 1:
        return data[: rng.randint(0, len(data))]
    if kind == 2:
        return data[:1] + struct.pack("<I", (uid + 1) & 0xFFFFFFFF) + data[5:]
    if kind == 3:  # a length pointing past the end / over the bound
        at = 5 + 1
        return data[:at] + struct.pack("<H", rng.randint(0, 0xFFFF)) + data[at + 2 :]
    if kind == 4:
        return data + rng.randbytes(rng.randint(1, 5))
    if kind == 5:  # flip a byte
        i = rng.randrange(len(data))
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]
    return data


def run(iterations: int, seed: int) -> Counter[str]:
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    for _ in range(iterations):
        try:
            parse_notification_source(rng.randbytes(rng.choice((7, 8, 8, 9))))
            outcomes["ns_ok"] += 1
        except CodecError as exc:
            outcomes[exc.code] += 1
        uid = rng.randrange(2**32)
        data = _mutate(rng, _valid(rng, uid), uid)
        request = AttributeRequest.notification(uid, SPECS)
        reassembler = DataSourceReassembler(request)
        cuts = sorted(rng.sample(range(1, max(2, len(data))), k=min(3, max(0, len(data) - 2))))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        try:
            result = None
            for piece in pieces:
                result = reassembler.feed(piece)
            if result is None:
                outcomes["ds_incomplete"] += 1
            else:
                decode_notification_attributes(result, 512)
                outcomes["ds_ok"] += 1
        except CodecError as exc:
            outcomes[exc.code] += 1
        try:
            decode_text(rng.randbytes(rng.randint(0, 12)), attribute_id=1)
            outcomes["utf8_ok"] += 1
        except CodecError as exc:
            outcomes[exc.code] += 1
        assembler = FrameAssembler(max_message_bytes=256)
        frames = encode_payload(rng.randbytes(rng.randint(0, 300)), rng.randrange(65536), 23)
        if rng.random() < 0.5:
            frames[rng.randrange(len(frames))] = rng.randbytes(rng.randint(0, 24))
        try:
            for frame in frames:
                done = assembler.feed(frame)
                if done is not None:
                    decode_payload(done[1], done[0])
                    outcomes["android_ok"] += 1
        except CodecError as exc:
            outcomes[exc.code] += 1
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    t0 = time.perf_counter()
    outcomes = run(args.iterations, args.seed)
    elapsed = time.perf_counter() - t0
    for code, count in sorted(outcomes.items()):
        print(f"{code}: {count}")
    print(f"{args.iterations} iterations in {elapsed:.1f} s, no untyped exception")


if __name__ == "__main__":
    main()
