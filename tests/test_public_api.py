"""Every name a package exports in `__all__` imports, packages depend one way, and
everything is imported through the one name the package installs."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
import sys
import typing
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


def _agent_imports_outside(subpackage: str) -> list[str]:
    """Imports of `companion_memory.agent...` in agent/<subpackage> naming anything but
    the subpackage itself."""
    own = f"{NAME}.agent.{subpackage}"
    found: list[str] = []
    for path in sorted((ROOT / "agent" / subpackage).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module]
            found += [f"{path.relative_to(ROOT)} imports {t}" for t in targets
                      if t.startswith(f"{NAME}.agent") and not (t == own or
                                                                 t.startswith(own + "."))]
    return found


def test_the_notification_log_imports_nothing_of_agent() -> None:
    # The log sits below the pipeline (docs/architecture.md): core, ble, storage, memory.
    assert _agent_imports_outside("notification_log") == []
    # the check can fail: the pipeline imports the log
    assert _agent_imports_outside("notifications") != []


# A DB-API call that runs SQL, and the start of an SQL statement in a string literal.
_SQL_CALLS = frozenset({"execute", "executemany", "executescript"})
# The store's two doors to its connection: `fn(conn)` in a transaction or a snapshot.
_CONNECTION_CALLS = frozenset({"transaction", "read"})
_SQL_TEXT = re.compile(
    r"\s*(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|"
    r"SAVEPOINT\s|RELEASE\s|ROLLBACK(\s|$)|CREATE\s+(TABLE|INDEX|VIRTUAL|TRIGGER)\s|"
    r"DROP\s+(TABLE|INDEX)\s|PRAGMA\s|BEGIN(\s|$)|COMMIT(\s|$))")


def _receiver(node: ast.expr) -> str:
    """The last name of a call's receiver (`self._store` -> `_store`), or ""."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def _sql_in(source: str, name: str) -> list[str]:
    """Where `source` runs SQL itself or holds the store's connection: a call of
    `.execute(` / `.executemany(` / `.executescript(`, a string literal that begins an
    SQL statement, or `<store>.transaction(` / `<store>.read(` (a function of the
    connection, run by a receiver named like a store)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _SQL_CALLS):
            found.append(f"{name}:{node.lineno} calls .{node.func.attr}(")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _CONNECTION_CALLS
              and _receiver(node.func.value).lower().endswith("store")):
            found.append(f"{name}:{node.lineno} calls store.{node.func.attr}(")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and _SQL_TEXT.match(node.value)):
            found.append(f"{name}:{node.lineno} holds SQL text")
    return sorted(found)


def _sql_under(package: str) -> list[str]:
    """SQL in the modules of one package."""
    found: list[str] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        found += _sql_in(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    return found


def test_agent_code_runs_no_sql() -> None:
    # The memory database is read and written through typed `MemoryStore` methods and
    # the typed ledgers of `memory/` (`EpisodeLedger`, `SweepLedger`), which own their
    # transactions; no agent module hands the store a function of its connection
    # (`store.transaction(fn)` / `store.read(fn)`). The notification log
    # (agent/notification_log/) keeps its records in files, so no agent module runs
    # SQL at all.
    assert _sql_under("agent") == []


def test_the_sql_check_can_fail() -> None:
    made_up = (
        "def f(conn, rows):\n"
        "    conn.execute('SAVEPOINT x')\n"
        "    conn.executemany('INSERT INTO t VALUES (?)', rows)\n"
        "    q = 'SELECT memory_id FROM memories'\n"
        "    self._db.executescript(q)\n"
        "    store.transaction(lambda c: f(c, rows))\n"
        "    self._store.read(f)\n"
    )
    assert _sql_in(made_up, "m.py") == [
        "m.py:2 calls .execute(", "m.py:2 holds SQL text", "m.py:3 calls .executemany(",
        "m.py:3 holds SQL text", "m.py:4 holds SQL text", "m.py:5 calls .executescript(",
        "m.py:6 calls store.transaction(", "m.py:7 calls store.read(",
    ]
    # prose and names that merely hold the words are not SQL
    clean = (
        "def execute_plan(select):\n"
        "    \"\"\"Select the memories to update; release the lock.\"\"\"\n"
        "    return run(select, 'select a day', 'Delete from the list', 'RELEASE')\n"
        "def g(recovery, ledger):\n"
        "    recovery.read(lambda: 1)\n"
        "    return ledger.transaction\n"
    )
    assert _sql_in(clean, "m.py") == []
    # and the walk finds the SQL that memory/ does run
    assert any(hit.startswith("memory/decisions.py:") for hit in _sql_under("memory"))


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


def _named_types(hint: object, found: set[type]) -> None:
    """The product's own classes a type hint names (through unions, generics, aliases)."""
    origin = typing.get_origin(hint)
    if origin is not None:
        if isinstance(origin, type) and origin.__module__.startswith(NAME):
            found.add(origin)
        for arg in typing.get_args(hint):
            _named_types(arg, found)
        return
    if isinstance(hint, type) and hint.__module__.startswith(NAME):
        found.add(hint)


def _fields_of(cls: type) -> dict[str, object]:
    """The annotated fields of a dataclass or TypedDict (what a result carries)."""
    if dataclasses.is_dataclass(cls) or typing.is_typeddict(cls):
        return typing.get_type_hints(cls)
    return {}


def test_every_type_the_host_api_takes_or_returns_is_exported() -> None:
    """Walk the annotations of every public method and property of `Runtime`, and the
    fields of every dataclass or TypedDict they name, transitively: each class of the
    product named there is importable from `companion_memory` itself."""
    module = importlib.import_module(NAME)
    runtime = module.Runtime
    found: set[type] = set()
    for name, member in inspect.getmembers(runtime):
        if name.startswith("_") and name != "__init__":
            continue
        function = member.fget if isinstance(member, property) else member
        if not callable(function):
            continue
        for hint in typing.get_type_hints(function).values():
            _named_types(hint, found)
    assert {"RecallHit", "SaveResult", "RecordResult", "Gap", "RoundReport",
            "StorageLevel"} <= {t.__name__ for t in found}
    queue, seen = list(found), set(found)
    while queue:
        for hint in _fields_of(queue.pop()).values():
            more: set[type] = set()
            _named_types(hint, more)
            for cls in more - seen:
                seen.add(cls)
                queue.append(cls)
    missing = sorted(f"{t.__module__}.{t.__name__}" for t in seen
                     if getattr(module, t.__name__, None) is not t)
    assert missing == [], f"named by the host API but not exported: {missing}"
    assert {t.__name__ for t in seen} <= set(module.__all__)


def test_the_runtime_hands_out_none_of_its_parts() -> None:
    """`ring`, `fs` and `clock` are private; tests reach them through
    `companion_memory.testing`."""
    module = importlib.import_module(NAME)
    public = {name for name in dir(module.Runtime) if not name.startswith("_")}
    assert not public & {"ring", "fs", "clock", "store", "worker", "context", "monitor"}
    testing = importlib.import_module(f"{NAME}.testing")
    own = {n for n in testing.__all__ if getattr(testing, n).__module__ == testing.__name__}
    assert own == {"event_ring", "runtime_clock", "runtime_file_system"}


def _exporting_modules() -> list[str]:
    """Every product module (the packages and the host API, not `testing`) that has an
    `__all__`, found by reading the source."""
    found = []
    for path in [ROOT / NAME / "__init__.py",
                 *(p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py")))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
               for node in tree.body):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.append(".".join([NAME, *(p for p in parts if p != NAME)]))
    return found


FAKE_PREFIXES = ("Fake", "Fault", "Scripted")


def _fakes_in(module_name: str, doubles: set[int]) -> list[str]:
    """The names in `module_name`'s `__all__` that are test doubles: an object
    `companion_memory.testing` exports but does not define, or a name (exported or
    defined) beginning with Fake, Fault or Scripted."""
    module = importlib.import_module(module_name)
    found = []
    for name in module.__all__:
        value = getattr(module, name)
        if id(value) in doubles or name.startswith(FAKE_PREFIXES) or str(
                getattr(value, "__name__", "")).startswith(FAKE_PREFIXES):
            found.append(f"{module_name}.{name}")
    return found


def _doubles() -> set[int]:
    testing = importlib.import_module(f"{NAME}.testing")
    values = [getattr(testing, n) for n in testing.__all__]
    return {id(v) for v in values if getattr(v, "__module__", None) != testing.__name__}


def test_no_production_package_exports_a_test_double() -> None:
    """Fakes, fault injectors, scripted models and the test phones are imported from
    `companion_memory.testing`; no production `__all__` offers them."""
    modules = _exporting_modules()
    assert len(modules) >= 15 and f"{NAME}.testing" not in modules
    doubles = _doubles()
    assert len(doubles) >= 10
    offenders = [fake for module in modules for fake in _fakes_in(module, doubles)]
    assert offenders == [], offenders


def test_the_test_double_check_can_fail() -> None:
    """The check finds a double by identity (`fragment`) and by name (`FakeClock`)."""
    testing = importlib.import_module(f"{NAME}.testing")
    probe = type(sys)("companion_memory_probe")
    probe.__all__ = ["fragment", "Clock", "FakeClock"]  # type: ignore[attr-defined]
    probe.fragment = testing.fragment  # type: ignore[attr-defined]
    probe.Clock = testing.Clock  # type: ignore[attr-defined]
    probe.FakeClock = testing.FakeClock  # type: ignore[attr-defined]
    sys.modules["companion_memory_probe"] = probe
    try:
        assert _fakes_in("companion_memory_probe", _doubles()) == [
            "companion_memory_probe.fragment", "companion_memory_probe.FakeClock"]
    finally:
        del sys.modules["companion_memory_probe"]


def test_no_host_method_returns_a_plain_dict() -> None:
    module = importlib.import_module(NAME)
    offenders = []
    for name, member in inspect.getmembers(module.Runtime):
        if name.startswith("_"):
            continue
        function = member.fget if isinstance(member, property) else member
        if not callable(function):
            continue
        returned = typing.get_type_hints(function).get("return")
        text = repr(returned)
        if "dict[str, typing.Any]" in text or returned is dict:
            offenders.append(f"{name} -> {text}")
    assert offenders == []
