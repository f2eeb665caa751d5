"""The sweep package's import graph: modules import each other, never the package.

`agent.sweep`'s `__init__` imports the processor, so a submodule that imports the
package (or hides such an import in a function or behind TYPE_CHECKING) closes a
cycle; and the processor is composed of parts, not assembled from mixins.
"""

from __future__ import annotations

import ast
from pathlib import Path

import companion_memory.agent.sweep as sweep_package

PACKAGE = "companion_memory.agent.sweep"
SWEEP_DIR = Path(sweep_package.__file__).parent


def _modules() -> list[Path]:
    return sorted(p for p in SWEEP_DIR.glob("*.py") if p.name != "__init__.py")


def test_no_sweep_module_imports_its_own_package() -> None:
    offenders: list[str] = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
                offenders.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Import) and any(a.name == PACKAGE for a in node.names):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_sweep_modules_import_at_module_level_only() -> None:
    """No import inside a function or an `if` (TYPE_CHECKING) block hides a cycle."""
    offenders: list[str] = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top
                    and (node.module if isinstance(node, ast.ImportFrom) else "") != "__future__"):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_the_processor_is_composed_not_mixed_in() -> None:
    from companion_memory.agent.sweep.processor import DailySweepProcessor

    assert DailySweepProcessor.__bases__ == (object,)
    assert not [p.name for p in _modules() if "Mixin" in p.read_text(encoding="utf-8")]
