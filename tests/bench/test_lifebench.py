"""The LifeBench year harness on its bundled copy, so the instrument cannot rot.

Figures (recall, latency, wall time) are printed by `bench/lifebench.py`, never
asserted here. This checks that the bundled copy is what its NOTICE says, that a short
slice runs through the public Runtime with no processor error and a sound store, that
memories' sources map back to the LifeBench records they came from, that bad input is
a clear error, and that the SQLite swap brings another SQLite in a child process.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from blockbuster import BlockBuster

from bench import sqlite_swap
from bench.lifebench import (
    BUNDLED,
    ZONE,
    DataError,
    Source,
    UserData,
    main,
    month_end,
    parse_push,
    parse_questions,
    parse_sms,
    run_user,
    schedule,
    slice_days,
)

REPO = Path(__file__).resolve().parents[2]


def test_the_bundled_copy_holds_one_users_notifications_and_its_licence() -> None:
    source = Source("bundled")
    assert source.users() == ["fenghaoran"]
    data = source.load("fenghaoran")
    push = [n for n in data.notices if n.key.startswith("push:")]
    sms = [n for n in data.notices if n.key.startswith("sms:")]
    assert (len(push), len(sms)) == (3037, 678)
    assert all(n.app_id == "com.apple.MobileSMS" and n.title for n in sms)
    assert [n.posted_at for n in data.notices] == sorted(n.posted_at for n in data.notices)
    assert len(data.questions) == 207
    assert all(k.split(":", 1)[0] in ("push", "sms") for q in data.questions
               for k in q.evidence)
    assert (BUNDLED / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert "Apache License" in (BUNDLED / "NOTICE").read_text()
    size = sum(p.stat().st_size for p in BUNDLED.rglob("*") if p.is_file())
    assert size < 1_000_000


def test_asks_are_fresh_one_hour_after_the_evidence_and_at_the_end_of_the_month() -> None:
    zone = ZoneInfo(ZONE)
    assert month_end("2025-12", zone) == datetime(2025, 12, 31, 15, 59, 59, tzinfo=UTC)
    assert month_end("2025-02", zone) == datetime(2025, 2, 28, 15, 59, 59, tzinfo=UTC)
    assert month_end("2025-08-31", zone) == datetime(2025, 8, 31, 15, 59, 59, tzinfo=UTC)
    push = parse_push([{"phone_id": 7, "datetime": "2025-03-01 09:00:00", "source": "Keep",
                        "title": "Run", "content": "5 km"}], zone, "push")
    sms, sent = parse_sms([
        {"phone_id": "7", "datetime": "2025-03-02 10:00:00", "contactName": "Anna",
         "message_type": "Receive", "message_content": "See you at 8"},
        {"phone_id": "8", "datetime": "2025-03-02 10:05:00", "contactName": "Anna",
         "message_type": "Send", "message_content": "ok"},
    ], zone, "sms")
    assert sent == 1 and [n.key for n in push + sms] == ["push:7", "sms:7"]
    questions = parse_questions([
        {"question": "when?", "ask_time": "2025-03",
         "evidence": [{"type": "sms", "id": 7}, {"type": "push", "phone_id": "7"},
                      {"type": "sms", "id": "8"}, {"type": "photo", "id": "1"}]},
        {"question": "sent only?", "ask_time": "2025-03", "evidence": [{"type": "sms",
                                                                         "id": "8"}]},
    ], "qa")
    assert questions[0].evidence == {"sms:7", "push:7", "sms:8"}
    asks, skipped = schedule(UserData("u", tuple(push + sms), tuple(questions)))
    assert skipped == {"evidence_not_fed": 1}  # a sent SMS is no notification
    fresh, end = asks
    assert fresh.when == "fresh" and fresh.at == sms[0].posted_at + timedelta(hours=1)
    assert fresh.cited == end.cited == {"sms:7", "push:7"}
    assert end.when == "month_end" and end.at == month_end("2025-03", zone)


def test_bad_input_is_a_clear_error_naming_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zone = ZoneInfo(ZONE)
    with pytest.raises(DataError, match=r"qa\[0\]: ask_time must be a month"):
        parse_questions([{"question": "q", "ask_time": "March"}], "qa")
    with pytest.raises(DataError, match=r"push\[0\]: datetime 'yesterday' is not like"):
        parse_push([{"phone_id": 1, "datetime": "yesterday"}], zone, "push")
    with pytest.raises(DataError, match=r"sms\[0\]: a record needs a phone_id"):
        parse_sms([{"datetime": "2025-01-01 08:00:00", "message_type": "Receive"}],
                  zone, "sms")
    assert main(["--data", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["--data", "bundled", "--user", "nobody"]) == 2
    assert "--user nobody: not in bundled (users: fenghaoran)" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["--data", str(tmp_path / "empty")]) == 2
    assert "holds neither" in capsys.readouterr().err


@pytest.mark.timeout(300)
async def test_a_fortnight_runs_through_the_runtime_with_a_sound_store(
    blockbuster: BlockBuster,
) -> None:
    blockbuster.deactivate()  # the harness reads its data and temp folders on the loop
    start = datetime(2025, 1, 1, tzinfo=ZoneInfo(ZONE))
    data = slice_days(Source("bundled").load("fenghaoran"), 14, start)
    assert 100 < len(data.notices) < 400
    result = await run_user(data, progress=False)
    assert result["notifications"] == result["persisted"] == len(data.notices)
    assert result["rounds"] > 50
    assert result["failing_rounds"] == 0 and result["errors_by_code"] == {}
    assert result["gaps"] == {} and result["pending_at_end"] == 0
    assert result["integrity_check"] == "ok"
    assert set(result["fts5_integrity_check"].values()) == {"ok"}
    assert result["fts_readable"] == "ok"
    assert 0 < result["live_memories"] <= result["memories_added"]
    fresh = result["recall@10"]["fresh"]
    assert fresh["asked"] > 0
    for share in (fresh["product"], fresh["bm25"]):
        assert 0.0 <= share <= 1.0
    # the measure can succeed: some cited record comes back through a memory's sources
    assert fresh["product"] > 0
    assert result["ask_errors"] == {}
    timed = result["latency"]
    assert timed["year_old_store"]["n"] == timed["fresh_store"]["n"] == \
        timed["fresh_store_one_segment"]["n"] == result["recall@10"]["month_end"]["asked"]


@pytest.mark.skipif(not sqlite_swap.available(), reason="pysqlite3-binary is not installed")
def test_the_swap_runs_a_child_on_pysqlite3s_sqlite() -> None:
    with pytest.raises(sqlite_swap.SwapError, match="before the product is imported"):
        sqlite_swap.swap()  # the product is loaded in this process
    code = ("import sys; sys.path.insert(0, '.'); from bench.sqlite_swap import swap; "
            "swap(); import sqlite3, companion_memory.memory.database as d; "
            "print(sqlite3.__name__, d.sqlite3.__name__, sqlite3.sqlite_version)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    name, product, version = done.stdout.split()
    assert name == product == "pysqlite3.dbapi2"
    assert version == importlib.import_module("pysqlite3.dbapi2").sqlite_version
