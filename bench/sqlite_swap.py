"""Run Python code on another SQLite: `sqlite3` replaced by `pysqlite3` before the product loads.

Python's `sqlite3` is linked to the system's SQLite (3.40.1 on Debian 12). The
`pysqlite3-binary` wheel carries its own, recent SQLite behind the same DB-API, so
putting its `dbapi2` module in `sys.modules` under the names `sqlite3` and
`sqlite3.dbapi2` makes every later `import sqlite3` (the product's included) use it.
The swap must happen before anything that imports `sqlite3` is loaded: `swap()` refuses
when a module of the product is already imported.

Usage:
    .venv/bin/python bench/sqlite_swap.py SCRIPT.py [ARGS...]   # run SCRIPT on pysqlite3
    .venv/bin/python bench/sqlite_swap.py --version            # the SQLite it brings

In code (a test, a child process): `from bench.sqlite_swap import swap; swap()` first.
"""

from __future__ import annotations

import importlib
import runpy
import sys
from types import ModuleType

PACKAGE = "pysqlite3-binary"
MODULE = "pysqlite3.dbapi2"


class SwapError(RuntimeError):
    """The swap cannot be made; the message says why and what to do."""


def available() -> bool:
    """Whether `pysqlite3` can be imported here."""
    try:
        importlib.import_module(MODULE)
    except ImportError:
        return False
    return True


def swapped() -> bool:
    """Whether `sqlite3` in this process is pysqlite3's."""
    module = sys.modules.get("sqlite3")
    return module is not None and module.__name__ == MODULE


def swap() -> ModuleType:
    """Make `import sqlite3` return pysqlite3's DB-API module; return that module.

    Idempotent. Raises `SwapError` when pysqlite3 is not installed, or when a module of
    the product was imported before (it would keep the system SQLite)."""
    if swapped():
        return sys.modules["sqlite3"]
    loaded = sorted(name for name in sys.modules
                    if name == "companion_memory" or name.startswith("companion_memory."))
    if loaded:
        raise SwapError(
            "sqlite3 must be swapped before the product is imported "
            f"({len(loaded)} companion_memory modules are already loaded)")
    try:
        module = importlib.import_module(MODULE)
    except ImportError as err:
        raise SwapError(
            f"{MODULE} is not installed: pip install {PACKAGE} (the `test` extra has it)"
        ) from err
    sys.modules["sqlite3"] = module
    sys.modules["sqlite3.dbapi2"] = module
    return module


def sqlite_version() -> str:
    """The SQLite library version that `import sqlite3` uses now."""
    import sqlite3

    return str(sqlite3.sqlite_version)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    try:
        module = swap()
    except SwapError as err:
        print(f"sqlite_swap: {err}", file=sys.stderr)
        return 2
    if argv[0] == "--version":
        print(module.sqlite_version)
        return 0
    script = argv[0]
    sys.argv = list(argv)
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
