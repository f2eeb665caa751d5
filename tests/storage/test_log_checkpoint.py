"""JsonlLog.recover(checkpoint=...) sees exactly what a whole scan sees, reading
only what changed; a checkpoint that does not match the disk is not trusted."""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path
from typing import Any

from companion_memory.storage.fs import RealFileSystem
from companion_memory.storage.jsonl_log import JsonlLog, RecoveryReport, encode_line

D1, D2, D3 = date(2026, 3, 1), date(2026, 3, 2), date(2026, 3, 3)


def lines(first: int, n: int) -> list[dict[str, object]]:
    return [{"context_id": first + i, "app_id": f"app{i % 3}", "body": "x" * (i % 7)}
            for i in range(n)]


def build(directory: Path) -> list[dict[str, Any]]:
    log = JsonlLog(RealFileSystem(), str(directory))
    log.recover()
    log.append_batch(lines(1, 70), D1)
    log.append_batch(lines(71, 50), D2)
    log.append_batch(lines(121, 45), D3)
    return log.checkpoint()


def view(directory: Path, checkpoint: list[dict[str, Any]] | None
         ) -> tuple[RecoveryReport, dict[str, Any]]:
    log = JsonlLog(RealFileSystem(), str(directory))
    report = log.recover(checkpoint=checkpoint)
    reads = {after: [ln["context_id"] for ln in log.read_after(after, 7)]
             for after in range(0, 170, 3)}
    return report, {
        "shards": [(os.path.basename(i.path), i.first_id, i.last_id, i.size_bytes, i.records)
                   for i in log.shards()],
        "last": log.last_line(), "last_id": log.last_id,
        "reads": reads, "day2": log.read_shard(D2),
        "torn": [(t.offset, t.first_id, t.last_id) for t in report.torn],
        "corrupt": [(c.offset, c.first_id, c.last_id) for c in report.corrupt],
    }


def same_as_whole_scan(directory: Path, checkpoint: list[dict[str, Any]]) -> RecoveryReport:
    plain = directory.with_name(directory.name + "-plain")
    shutil.rmtree(plain, ignore_errors=True)
    shutil.copytree(directory, plain)
    report, seen = view(directory, checkpoint)
    assert seen == view(plain, None)[1]
    return report


def test_an_unchanged_log_is_taken_from_the_checkpoint_as_a_whole_scan_sees_it(
    tmp_path: Path,
) -> None:
    checkpoint = build(tmp_path)
    assert [e["name"] for e in checkpoint] == ["2026-03-01.jsonl", "2026-03-02.jsonl",
                                               "2026-03-03.jsonl"]
    report = same_as_whole_scan(tmp_path, checkpoint)
    assert report.bytes_read == 0
    assert report.from_checkpoint == {"2026-03-01.jsonl": 70, "2026-03-02.jsonl": 50,
                                      "2026-03-03.jsonl": 45}


def test_a_grown_shard_is_scanned_from_its_checkpointed_end(tmp_path: Path) -> None:
    checkpoint = build(tmp_path)
    shard = tmp_path / "2026-03-03.jsonl"
    before = shard.stat().st_size
    with shard.open("ab") as out:
        out.write(b"".join(encode_line(ln) for ln in lines(166, 4)) + b'{"context_id":17')
    grown = shard.stat().st_size
    report = same_as_whole_scan(tmp_path, checkpoint)  # the same torn tail, same offset
    assert report.bytes_read == grown - before
    assert [(t.first_id, t.last_id) for t in report.torn] == [(170, 170)]


def test_a_shrunk_replaced_or_new_shard_is_scanned_whole(tmp_path: Path) -> None:
    checkpoint = build(tmp_path)
    day2 = tmp_path / "2026-03-02.jsonl"
    data = day2.read_bytes()
    day2.write_bytes(data[: data.rfind(b"\n", 0, len(data) - 1) + 1])  # shrunk by a line
    report = same_as_whole_scan(tmp_path, checkpoint)
    assert report.from_checkpoint == {"2026-03-01.jsonl": 70}
    build(tmp_path / "b")
    replacement = tmp_path / "b" / "2026-03-01.jsonl"
    os.replace(replacement, tmp_path / "2026-03-01.jsonl")  # same bytes, another file
    report, _ = view(tmp_path, checkpoint)
    assert report.from_checkpoint == {}


def test_shards_deleted_at_the_front_are_skipped(tmp_path: Path) -> None:
    checkpoint = build(tmp_path)
    (tmp_path / "2026-03-01.jsonl").unlink()
    report = same_as_whole_scan(tmp_path, checkpoint)
    assert report.bytes_read == 0 and set(report.from_checkpoint) == {
        "2026-03-02.jsonl", "2026-03-03.jsonl"}


def test_a_shard_ending_in_damage_ends_the_checkpoint(tmp_path: Path) -> None:
    build(tmp_path)
    day2 = tmp_path / "2026-03-02.jsonl"
    data = bytearray(day2.read_bytes())
    data[-20] ^= 0x01  # the last record of day 2, complete but failing its crc
    day2.write_bytes(bytes(data))
    log = JsonlLog(RealFileSystem(), str(tmp_path))
    report = log.recover()
    assert [(c.first_id, c.last_id) for c in report.corrupt] == [(120, 120)]
    assert [e["name"] for e in log.checkpoint()] == ["2026-03-01.jsonl"]
