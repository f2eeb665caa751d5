"""One-shot commands never start the phone link, even with `link.kind` set: the daemon
owns it (a `feed` beside a running daemon must not advertise or connect a second time)."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.device.helpers import cli


def test_feed_and_once_do_not_advertise_or_connect(tmp_path: Path) -> None:
    config = tmp_path / "link.toml"
    config.write_text('[link]\nkind = "ancs"\naddress = "AA:BB:CC:DD:EE:FF"\n')
    feed = tmp_path / "one.jsonl"
    feed.write_bytes(orjson.dumps({"kind": "added", "key": "k1", "app_id": "a.b", "title": "T",
                                   "body": "hello there",
                                   "posted_at": "2026-03-01T10:00:00Z"}) + b"\n")
    root = tmp_path / "root"
    for args in (["feed", str(feed)], ["once"]):
        proc = cli("--config", str(config), *args, root=root)
        assert proc.returncode == 0, proc.stderr
        assert "phone" not in proc.stderr  # no connect attempt was logged
        status = cli("--config", str(config), "--json", "status", root=root)
        link = orjson.loads(status.stdout)["link"]
        assert link.get("kind") == "none" or link.get("state") == "stopped", link
        assert not link.get("connect_failures"), link
