"""Timestamps at the edges of the calendar, through the console script.

An instant that overflows once moved to UTC, or that lies so near year 1 or
9999 that moving it into a local zone would overflow later, is one bad line
(feed) or one bad episode: it is refused alone, with its line number, and the
good input beside it is stored.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.device.helpers import EPISODE, as_json, cli, event

EDGE_TIMES = [
    "9999-12-31T23:00:00-05:00",  # year 10000 in UTC
    "0001-01-01T00:00:00+05:00",  # year 0 in UTC
    "9999-12-31T23:59:59Z",  # valid in UTC, past the year 9999 in any zone east of it
    "0001-01-01T00:00:00Z",  # valid in UTC, before the year 1 in any zone west of it
]
ALLOWED = "must lie from 1900-01-01T00:00:00Z up to (not including) 9000-01-01T00:00:00Z"


def _logged_keys(root: Path) -> list[str]:
    keys: list[str] = []
    for shard in sorted((root / "notifications" / "events").glob("*.jsonl")):
        keys += [orjson.loads(line)["key"] for line in shard.read_bytes().splitlines()]
    return keys


def test_feed_refuses_edge_times_line_by_line_and_keeps_the_good_lines(tmp_path: Path) -> None:
    root = tmp_path / "root"
    lines = [event("good-1", "Dinner at eight", at="2026-03-12T08:00:00Z")]
    lines += [event(f"edge-{i}", "Edge", at=at) for i, at in enumerate(EDGE_TIMES)]
    lines.append(event("good-2", "Bring the wine", at="2026-03-12T09:00:00+01:00"))
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"\n".join(lines) + b"\n")

    proc = cli("feed", str(feed), "--json", root=root)

    assert proc.returncode == 2, proc.stderr
    summary = orjson.loads(proc.stdout)
    assert summary["accepted"] == 2 and summary["persisted"] == 2
    assert [r["line"] for r in summary["rejections"]] == [2, 3, 4, 5]
    assert {r["reason"] for r in summary["rejections"]} == {f"posted_at: {ALLOWED}"}
    for number in (2, 3, 4, 5):
        assert f"feed line {number}: posted_at: {ALLOWED}" in proc.stderr
    assert "internal error" not in proc.stderr
    assert _logged_keys(root) == ["good-1", "good-2"]

    # The stored lines are processed normally afterwards, in a zone far from UTC too.
    (root / "config.toml").write_text('[sweep]\nenabled = true\nzone = "Pacific/Kiritimati"\n')
    report = as_json(cli("once", "--json", root=root))
    notifications = next(p for p in report["processors"] if p["processor"] == "notifications")
    assert notifications.get("error") is None and notifications["applied"] == 2, notifications


@pytest.mark.parametrize(
    ("field", "edge"),
    [("started_at", at) for at in EDGE_TIMES] + [("ended_at", at) for at in EDGE_TIMES[:2]],
)
def test_episode_with_an_edge_time_is_refused_with_the_field_named(
    tmp_path: Path, field: str, edge: str
) -> None:
    root = tmp_path / "root"
    bad = dict(EPISODE, episode_id="ep-edge")
    bad[field] = edge
    if field == "started_at":
        bad["ended_at"] = edge  # keep ended_at >= started_at, so only the edge is wrong

    proc = cli("episode", "-", root=root, stdin=orjson.dumps(bad))

    assert proc.returncode == 2, proc.stderr
    assert f"{field}: {ALLOWED}" in proc.stderr and "internal error" not in proc.stderr
    assert not list(root.rglob("ep-edge.json"))
    good = as_json(cli("episode", "-", "--json", root=root, stdin=orjson.dumps(EPISODE)))
    assert good["eligible"] is True and list(root.rglob("ep-wifi-1.json"))
