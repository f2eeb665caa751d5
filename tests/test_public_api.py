"""Every name a package exports in `__all__` imports, packages depend one way, and
everything is imported through the one name the package installs."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGES = ["core", "ble", "storage", "memory", "agent", "device"]
ROOT = Path(__file__).resolve().parent.parent
NAME = "companion_memory"

# Who may import whom: device -> agent -> (memory, storage, ble) -> core.
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
    module = importlib.import_module(f"{NAME}.{package}")
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
                parts = target.split(".")
                if parts[0] in ALLOWED:  # a bare `memory`, `agent`...: a host's may win
                    offenders.append(f"{path.relative_to(ROOT)} imports bare {target}")
                    continue
                if parts[0] != NAME or len(parts) < 2:
                    continue
                top = parts[1]
                if top in ALLOWED and top != package and top not in ALLOWED[package]:
                    offenders.append(f"{path.relative_to(ROOT)} imports {target}")
    assert offenders == []


def test_the_public_api_is_importable_from_the_one_name() -> None:
    module = importlib.import_module(NAME)
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_no_test_or_bench_imports_a_bare_product_module() -> None:
    offenders: list[str] = []
    for folder in ("tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                else:
                    continue
                offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names
                              if n.split(".")[0] in ALLOWED]
    assert offenders == []
