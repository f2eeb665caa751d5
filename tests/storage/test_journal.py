"""The append-only crc-lined journal: O(1) appends, the torn-last-line rule, damage refused."""

from __future__ import annotations

import pytest

from companion_memory.storage.atomic import CorruptStateError
from companion_memory.storage.faultfs import FaultFileSystem
from companion_memory.storage.journal import Journal, decode_record, encode_record

PATH = "/d/j.jsonl"


def journal(fs: FaultFileSystem) -> Journal:
    fs.makedirs("/d")
    j = Journal(fs, PATH)
    j.load()
    return j


def test_records_round_trip_and_each_append_is_one_write_and_one_fsync() -> None:
    fs = FaultFileSystem()
    j = journal(fs)
    j.append({"a": 1})
    start = fs.steps
    j.append({"a": 2, "b": "x"})
    assert [op for _, op, _ in fs.trace[start:]] == ["append", "fsync"]
    assert Journal(fs, PATH).load() == [{"a": 1}, {"a": 2, "b": "x"}]
    assert decode_record(encode_record({"a": 1})[:-1]) == {"a": 1}


def test_the_first_append_makes_the_new_file_durable_in_its_directory() -> None:
    fs = FaultFileSystem()
    j = journal(fs)
    fs.fsync_dir("/")
    fs.fsync_dir("/d")
    j.append({"a": 1})
    assert Journal(fs.crash_image(mode="synced"), PATH).load() == [{"a": 1}]


@pytest.mark.parametrize("tail", [b'{"a":3,"cr', b"\x00\x17garbage\nmore", b'{"a":3,"crc":1'])
def test_a_torn_last_line_is_cut(tail: bytes) -> None:
    fs = FaultFileSystem()
    j = journal(fs)
    j.append({"a": 1})
    j.append({"a": 2})
    whole = fs.files()[PATH]
    fs.append(PATH, tail)
    again = Journal(fs, PATH)
    assert again.load() == [{"a": 1}, {"a": 2}]
    assert again.torn_bytes == len(tail)
    assert fs.files()[PATH] == whole
    again.append({"a": 3})
    assert Journal(fs, PATH).load() == [{"a": 1}, {"a": 2}, {"a": 3}]


def test_read_only_load_ignores_a_torn_tail_without_cutting_it() -> None:
    fs = FaultFileSystem()
    j = journal(fs)
    j.append({"a": 1})
    fs.append(PATH, b'{"a":')
    before = fs.files()[PATH]
    assert Journal(fs, PATH).load(repair=False) == [{"a": 1}]
    assert fs.files()[PATH] == before


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_damaged_complete_record_is_refused_not_cut(where: str) -> None:
    fs = FaultFileSystem()
    j = journal(fs)
    j.append({"a": 1})
    j.append({"a": 2})
    data = bytearray(fs.files()[PATH])
    data[2 if where == "first" else len(data) - 10] ^= 0x01
    fs.write_file(PATH, bytes(data))
    with pytest.raises(CorruptStateError, match="fails its crc"):
        Journal(fs, PATH).load()
    assert fs.files()[PATH] == bytes(data)


def test_rewrite_replaces_the_whole_file() -> None:
    fs = FaultFileSystem()
    j = journal(fs)
    for i in range(5):
        j.append({"a": i})
    j.rewrite([{"a": 9}])
    j.append({"a": 10})
    assert Journal(fs, PATH).load() == [{"a": 9}, {"a": 10}]
