"""`companion-memory doctor`: checks the memory database and its search index, and with
`--repair` derives the index again from the memories without losing one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson

from tests.device.helpers import as_json, cli, event


def _fed_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"\n".join([
        event("k1", "Dinner on Saturday at 7 at the Italian place?"),
        event("k2", "The dentist appointment moved to Friday 10:00", app="com.apple.mobilecal",
              title="Dentist"),
        event("k3", "Parcel from Otto arrives tomorrow between 9 and 12", app="de.dhl.paket",
              title="DHL"),
    ]))
    assert cli("feed", str(feed), root=root).returncode == 0
    assert cli("once", root=root).returncode == 0
    return root


def _drop_index_rows(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("DELETE FROM memories_fts WHERE rowid IN "
                     "(SELECT rowid FROM memories WHERE instr(text, 'dentist') > 0)")
    finally:
        conn.close()


def test_doctor_finds_a_damaged_index_and_repair_mends_it(tmp_path: Path) -> None:
    root = _fed_root(tmp_path)
    healthy = as_json(cli("doctor", "--json", root=root))["check"]
    assert healthy["ok"] and healthy["problems"] == [] and healthy["database_ok"]
    live = healthy["active_memories"]
    assert live >= 2 and healthy["indexed_memories"] == live
    assert as_json(cli("recall", "dentist", "--json", root=root))

    _drop_index_rows(root / "memory.sqlite3")
    # recall still finds the memory by meaning (its vector is intact); the words are gone
    found = as_json(cli("recall", "dentist", "--json", root=root))
    assert found and "dentist" in found[0]["text"].casefold()
    sick = cli("doctor", root=root)
    assert sick.returncode == 1
    assert "index_rows" in sick.stdout and "doctor --repair" in sick.stdout
    assert f"{live - 1} of {live} live memories indexed" in sick.stdout

    mended = cli("doctor", "--repair", "--json", root=root)
    assert mended.returncode == 0, mended.stderr
    data = orjson.loads(mended.stdout)
    assert data["check"]["problems"] == ["index_rows"]
    assert data["repaired"] == live and data["after"]["ok"]
    hits = as_json(cli("recall", "dentist", "--json", root=root))
    assert hits and "dentist" in hits[0]["text"].casefold()


def test_doctor_refuses_a_missing_root(tmp_path: Path) -> None:
    proc = cli("doctor", root=tmp_path / "nowhere")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "nowhere" in proc.stderr
