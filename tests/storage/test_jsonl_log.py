"""JsonlLog on real files: format, batches, torn tails, corruption, range reads."""

from __future__ import annotations

import json
import os
import zlib
from datetime import date
from pathlib import Path

import pytest

from companion_memory.storage.fs import RealFileSystem
from companion_memory.storage.jsonl_log import (
    CorruptLogError,
    JsonlLog,
    LogNeedsRecoveryError,
    LogOrderError,
    decode_line,
    encode_line,
)

D1 = date(2026, 3, 1)
D2 = date(2026, 3, 2)
D3 = date(2026, 3, 3)


def lines(first: int, n: int) -> list[dict[str, object]]:
    return [{"context_id": first + i, "app_id": f"app{i % 3}", "body": "x" * (i % 7)}
            for i in range(n)]


def opened(tmp_path: Path) -> JsonlLog:
    log = JsonlLog(RealFileSystem(), str(tmp_path / "events"))
    log.recover()
    return log


def test_line_format_is_plain_json_with_crc_of_body(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 3), D1)
    raw = (tmp_path / "events" / "2026-03-01.jsonl").read_bytes()
    rows = raw.splitlines()
    assert len(rows) == 3
    for row in rows:
        obj = json.loads(row)
        crc = obj.pop("crc")
        canonical = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
        assert zlib.crc32(canonical) == crc
    assert [json.loads(r)["context_id"] for r in rows] == [1, 2, 3]


def test_decode_rejects_tampered_lines() -> None:
    good = encode_line({"context_id": 5, "body": "hello"})[:-1]
    assert decode_line(good) is not None
    assert decode_line(good.replace(b"hello", b"hellp")) is None
    assert decode_line(good[:-3]) is None
    assert decode_line(b"\x00\x00\x00") is None
    with pytest.raises(ValueError):
        encode_line({"context_id": 1, "crc": 3})


def test_batches_shards_and_range_reads(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 50), D1)
    log.append_batch(lines(51, 70), D2)
    log.append_batch(lines(121, 5), D3)
    assert [s.day for s in log.shards()] == [D1, D2, D3]
    assert [(s.first_id, s.last_id, s.records) for s in log.shards()] == [
        (1, 50, 50), (51, 120, 70), (121, 125, 5)
    ]
    got = log.read_after(45, 10)
    assert [r["context_id"] for r in got] == list(range(46, 56))
    assert [r["context_id"] for r in log.read_after(0, 500)] == list(range(1, 126))
    assert log.read_after(125, 10) == []
    assert log.last_line() is not None and log.last_line()["context_id"] == 125  # type: ignore[index]
    reopened = opened(tmp_path)
    assert [r["context_id"] for r in reopened.read_after(99, 3)] == [100, 101, 102]
    assert reopened.last_id == 125


def test_append_refuses_gaps_and_clock_going_back_stays_in_newest_shard(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 2), D2)
    with pytest.raises(LogOrderError):
        log.append_batch(lines(2, 1), D2)
    with pytest.raises(LogOrderError):
        log.append_batch([{"context_id": 3}, {"context_id": 5}], D2)
    log.append_batch(lines(3, 1), D1)
    assert [(s.day, s.last_id) for s in log.shards()] == [(D2, 3)]


def test_torn_tail_of_newest_shard_is_cut(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 10), D1)
    log.append_batch(lines(11, 10), D2)
    shard = tmp_path / "events" / "2026-03-02.jsonl"
    whole = shard.read_bytes()
    with shard.open("ab") as handle:
        handle.write(encode_line({"context_id": 21})[:-9])
    report = JsonlLog(RealFileSystem(), str(tmp_path / "events")).recover()
    assert len(report.torn) == 1 and report.torn[0].offset == len(whole)
    assert report.corrupt == []
    assert shard.read_bytes() == whole
    again = JsonlLog(RealFileSystem(), str(tmp_path / "events"))
    assert again.recover().torn == []


def test_garbage_only_newest_shard_is_removed(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 3), D1)
    (tmp_path / "events" / "2026-03-02.jsonl").write_bytes(b"\x00" * 40)
    (tmp_path / "events" / "2026-03-03.jsonl").write_bytes(b"")
    log2 = JsonlLog(RealFileSystem(), str(tmp_path / "events"))
    report = log2.recover()
    assert sorted(os.listdir(tmp_path / "events")) == ["2026-03-01.jsonl"]
    assert report.last_id == 3 and len(report.removed_empty) == 2


def test_mid_shard_corruption_is_reported_never_dropped(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 5), D1)
    log.append_batch(lines(6, 5), D2)
    shard = tmp_path / "events" / "2026-03-01.jsonl"
    raw = bytearray(shard.read_bytes())
    third = raw.index(b'"context_id":3')
    raw[third + 20] ^= 0x01  # flip a bit inside line 3
    shard.write_bytes(bytes(raw))
    before = shard.read_bytes()
    log2 = JsonlLog(RealFileSystem(), str(tmp_path / "events"))
    with pytest.raises(CorruptLogError):
        log2.recover(strict=True)
    report = log2.recover()
    assert report.torn == []
    assert [(c.first_id, c.last_id, c.lines) for c in report.corrupt] == [(3, 3, 1)]
    assert shard.read_bytes() == before  # left on disk, untouched
    assert [r["context_id"] for r in log2.read_after(0, 100)] == [1, 2, 4, 5, 6, 7, 8, 9, 10]


def test_corruption_found_after_recovery_raises_on_read(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 5), D1)
    shard = tmp_path / "events" / "2026-03-01.jsonl"
    raw = bytearray(shard.read_bytes())
    raw[5] = ord("#")
    shard.write_bytes(bytes(raw))
    with pytest.raises(CorruptLogError):
        log.read_after(0, 10)


def test_invalid_tail_of_older_shard_is_corruption_not_cut(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 3), D1)
    log.append_batch(lines(4, 3), D2)
    old = tmp_path / "events" / "2026-03-01.jsonl"
    with old.open("ab") as handle:
        handle.write(b'{"context_id":')
    size = old.stat().st_size
    report = JsonlLog(RealFileSystem(), str(tmp_path / "events")).recover()
    assert report.torn == [] and len(report.corrupt) == 1
    assert old.stat().st_size == size


def test_failed_append_needs_recovery_and_is_cut_back(tmp_path: Path) -> None:
    class FailingFsync(RealFileSystem):
        fail = True

        def fsync(self, path: str) -> None:
            if self.fail:
                from companion_memory.storage.fs import StorageIOError

                raise StorageIOError("fsync", path, OSError(5, "EIO"))
            super().fsync(path)

    fs = FailingFsync()
    log = JsonlLog(fs, str(tmp_path / "events"))
    fs.fail = False
    log.recover()
    log.append_batch(lines(1, 2), D1)
    fs.fail = True
    from companion_memory.storage.fs import StorageIOError

    with pytest.raises(StorageIOError):
        log.append_batch(lines(3, 2), D1)
    with pytest.raises(LogNeedsRecoveryError):
        log.read_after(0, 10)
    fs.fail = False
    report = log.recover()
    assert report.repaired_after_failure and report.last_id == 2
    log.append_batch(lines(3, 2), D1)
    assert [r["context_id"] for r in log.read_after(0, 10)] == [1, 2, 3, 4]


def test_delete_shard_frees_bytes(tmp_path: Path) -> None:
    log = opened(tmp_path)
    log.append_batch(lines(1, 4), D1)
    log.append_batch(lines(5, 4), D2)
    size = (tmp_path / "events" / "2026-03-01.jsonl").stat().st_size
    assert log.delete_shard(D1) == size
    assert log.delete_shard(D1) == 0
    assert [s.day for s in log.shards()] == [D2]
    assert [r["context_id"] for r in log.read_after(0, 10)] == [5, 6, 7, 8]
