"""What `pip install .` puts into site-packages: one import name and nothing else.

A host agent has its own `agent`, `memory` or `device`; if we installed such names,
whichever came first on `sys.path` would silently win."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(300)
def test_the_wheel_installs_one_import_name(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps",
         "--quiet", "--wheel-dir", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=280,
    )
    if proc.returncode != 0 and "Could not find a version that satisfies" in proc.stderr:
        pytest.skip("pip cannot fetch the build backend (setuptools) from its index here")
    assert proc.returncode == 0, proc.stderr
    (wheel,) = tmp_path.glob("companion_memory-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"companion_memory", wheel.name.split("-py")[0] + ".dist-info"}, tops
    for package in ("core", "ble", "storage", "memory", "agent", "device"):
        assert f"companion_memory/{package}/__init__.py" in names
    assert "companion_memory/device/data/sample_day.jsonl" in names
    # PEP 561: without the marker a host's mypy ignores every annotation of the package
    assert "companion_memory/py.typed" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "companion_memory.device.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
