"""FaultFileSystem: sync tracking, crash images and injected faults."""

from __future__ import annotations

import random

import pytest

from companion_memory.storage.atomic import write_json_atomic
from companion_memory.storage.faultfs import FaultFileSystem, PowerLoss
from companion_memory.storage.fs import StorageIOError


def test_unsynced_append_may_be_partial_or_garbage_synced_bytes_survive() -> None:
    fs = FaultFileSystem()
    fs.makedirs("/d")
    fs.fsync_dir("/")
    fs.append("/d/f", b"AAAA")
    fs.fsync("/d/f")
    fs.fsync_dir("/d")
    fs.append("/d/f", b"BBBBBBBB")
    rng = random.Random(3)
    seen = {fs.crash_image(rng).files()["/d/f"] for _ in range(200)}
    assert all(image.startswith(b"AAAA") for image in seen)
    assert b"AAAA" in seen and b"AAAABBBBBBBB" in seen
    assert any(image[4:].strip(b"B") != b"" for image in seen)  # garbage shows up
    assert fs.crash_image(mode="synced").files() == {"/d/f": b"AAAA"}


def test_unsynced_directory_entries_are_kept_or_dropped() -> None:
    fs = FaultFileSystem()
    fs.makedirs("/d")
    fs.fsync_dir("/")
    fs.append("/d/new", b"x")
    fs.fsync("/d/new")  # data synced, entry not
    rng = random.Random(1)
    outcomes = {"/d/new" in fs.crash_image(rng).files() for _ in range(50)}
    assert outcomes == {True, False}
    fs.fsync_dir("/d")
    assert all("/d/new" in fs.crash_image(rng).files() for _ in range(20))


def test_atomic_replace_yields_old_or_new_never_a_mix() -> None:
    fs = FaultFileSystem()
    fs.makedirs("/s")
    fs.fsync_dir("/")
    write_json_atomic(fs, "/s/state.json", {"v": 1})
    fs.write_file("/s/state.json.tmp", b'{"v": 2}')
    fs.fsync("/s/state.json.tmp")
    fs.replace("/s/state.json.tmp", "/s/state.json")
    rng = random.Random(5)
    contents = {fs.crash_image(rng).files().get("/s/state.json") for _ in range(50)}
    assert contents == {b'{\n  "v": 1\n}', b'{"v": 2}'}


def test_power_cut_stops_everything_and_eio_is_one_shot() -> None:
    fs = FaultFileSystem()
    fs.makedirs("/d")
    fs.arm(fs.steps + 2, "power")
    fs.append("/d/a", b"1")
    with pytest.raises(PowerLoss):
        fs.fsync("/d/a")
    with pytest.raises(PowerLoss):
        fs.read_bytes("/d/a")
    eio = FaultFileSystem()
    eio.makedirs("/d")
    eio.fsync_dir("/")
    eio.append("/d/a", b"12")
    eio.fsync("/d/a")
    eio.fsync_dir("/d")
    eio.append("/d/a", b"34")
    eio.arm(eio.steps + 1, "eio")
    with pytest.raises(StorageIOError) as info:
        eio.fsync("/d/a")
    assert info.value.errno == 5
    assert eio.read_bytes("/d/a") == b"12"  # writeback failed: the dirty bytes are gone
    eio.append("/d/a", b"56")
    eio.fsync("/d/a")
    assert eio.crash_image(mode="synced").files()["/d/a"] == b"1256"
    full = FaultFileSystem()
    full.arm(1, "enospc")
    with pytest.raises(StorageIOError) as info:
        full.makedirs("/x")
    assert info.value.code == "disk_full"
