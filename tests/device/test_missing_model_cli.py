"""A missing model file: `config` says so (exit 2); intake and `once` keep working and
leave the notifications pending with the reason in the report and in status."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.device.helpers import as_json, cli, event


def test_missing_model_is_reported_but_intake_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "root"
    conf = tmp_path / "conf.toml"
    conf.write_text('[provider]\nkind = "llama"\n[provider.llama]\nmodel_path = "/nope/x.gguf"\n')
    proc = cli("--config", str(conf), "config", "--json", root=root)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("companion-memory: provider.llama.model_path")
    assert "/nope/x.gguf does not exist" in proc.stderr
    assert orjson.loads(proc.stdout)["problems"]
    lines = b"\n".join(event(f"k{i}", f"Dentist on Tuesday {i}") for i in range(3))
    assert cli("--config", str(conf), "feed", "-", root=root, stdin=lines).returncode == 0
    proc = cli("--config", str(conf), "once", "--json", root=root)
    assert proc.returncode == 0, proc.stderr
    notes = next(p for p in as_json(proc)["processors"] if p["processor"] == "notifications")
    assert notes["error"] == "model_unavailable" and notes["applied"] == 0
    status = as_json(cli("--config", str(conf), "status", "--json", root=root))
    assert status["pending"] == 3
