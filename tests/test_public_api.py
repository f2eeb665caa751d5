"""Every name a package exports in `__all__` imports, and packages depend one way."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGES = ["core", "ble", "storage", "memory", "agent", "device"]
ROOT = Path(__file__).resolve().parent.parent

# Who may import whom (DESIGN.md "Packages"): device -> agent -> (memory, storage, ble) -> core.
ALLOWED = {
    "core": set(),
    "ble": {"core"},
    "storage": {"core"},
    "memory": {"core"},
    "agent": {"core", "ble", "storage", "memory"},
    "device": {"core", "ble", "storage", "memory", "agent"},
}


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_import(package: str) -> None:
    module = importlib.import_module(package)
    names = getattr(module, "__all__", None)
    assert isinstance(names, list), f"{package} has no __all__"
    for name in names:
        assert hasattr(module, name), f"{package}.__all__ names {name!r} but it is missing"


@pytest.mark.parametrize("package", PACKAGES)
def test_dependencies_point_one_way(package: str) -> None:
    offenders: list[str] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module]
            for target in targets:
                top = target.split(".")[0]
                if top in ALLOWED and top != package and top not in ALLOWED[package]:
                    offenders.append(f"{path.relative_to(ROOT)} imports {target}")
    assert offenders == []
