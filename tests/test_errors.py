"""The error tree: every error of the library sits under one category base, and the
command line picks its exit status by that category alone."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

from companion_memory.core.errors import (
    CATEGORIES,
    CompanionMemoryError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StateError,
    StorageFailureError,
    UnavailableError,
)
from companion_memory.device.cli import EXIT_BY_CATEGORY, exit_status

# Package bases that group a part's errors; only their subclasses are raised.
GROUPING_BASES = {"DeviceError", "MemoryStoreError"}


PARTS = ("core", "ble", "storage", "memory", "agent", "device")


def _import_every_module() -> None:
    for part in PARTS:
        package = importlib.import_module(f"companion_memory.{part}")
        for info in pkgutil.walk_packages(package.__path__, f"companion_memory.{part}."):
            try:
                importlib.import_module(info.name)
            except ImportError as err:  # an optional dependency (bumble, bleak) is missing
                if err.name and err.name.split(".")[0] == "companion_memory":
                    raise


def _all_error_classes() -> list[type[CompanionMemoryError]]:
    _import_every_module()
    found: list[type[CompanionMemoryError]] = []
    todo: list[type[CompanionMemoryError]] = [CompanionMemoryError]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in found:
                found.append(sub)
                todo.append(sub)
    return [c for c in found if c.__module__.startswith("companion_memory.")
            and c not in CATEGORIES]


ERRORS = _all_error_classes()


def test_the_walk_finds_the_errors_of_every_part() -> None:
    modules = {cls.__module__.split(".")[1] for cls in ERRORS}
    assert {"ble", "storage", "memory", "agent", "device"} <= modules
    assert len(ERRORS) > 40


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
def test_every_error_has_one_category(cls: type[CompanionMemoryError]) -> None:
    bases = [c for c in cls.__mro__ if c in CATEGORIES]
    if cls.__name__ in GROUPING_BASES:
        assert bases == [], f"{cls.__name__} groups errors of several categories"
        return
    assert bases, f"{cls.__name__} has no category base; add one of core/errors.py's"
    if len(bases) > 1:
        # Two category bases are allowed only with an explicit choice between them.
        assert "category" in vars(cls), f"{cls.__name__} must choose its category"
    assert cls.category in {b.category for b in bases}


def test_no_memory_error_shadowing_name() -> None:
    # The builtin MemoryError means out of memory; the store's base is MemoryStoreError.
    assert not any(cls.__name__.rstrip("_") == "MemoryError" for cls in ERRORS)


def test_category_bases_are_also_the_builtin_a_caller_expects() -> None:
    assert issubclass(InvalidInputError, ValueError)
    assert issubclass(NotFoundError, LookupError)
    assert issubclass(StateError, RuntimeError)


@pytest.mark.parametrize(
    ("base", "status"),
    [(InvalidInputError, 2), (NotFoundError, 2), (ConflictError, 2), (StateError, 2),
     (UnavailableError, 1), (StorageFailureError, 1), (CompanionMemoryError, 1)],
)
def test_exit_status_follows_the_category(base: type[CompanionMemoryError], status: int) -> None:
    assert exit_status(base("x")) == status
    assert set(EXIT_BY_CATEGORY) == {c.category for c in CATEGORIES} | {"internal"}


def test_every_leaf_maps_to_an_exit_status_by_its_category() -> None:
    from companion_memory.device.errors import ConfigError, RootBusyError
    from companion_memory.memory.records import MemoryNotFoundError
    from companion_memory.storage.fs import NotRegularFileError, StorageIOError

    assert exit_status(ConfigError("bad")) == 2
    assert exit_status(RootBusyError("busy")) == 2
    assert exit_status(MemoryNotFoundError("m1")) == 2
    assert exit_status(NotRegularFileError("open", "/r/x", "symlink")) == 2
    assert exit_status(StorageIOError("write", "/r/x", OSError(28, "full"))) == 1


def test_io_boundaries_keep_their_cause(tmp_path: Path) -> None:
    from companion_memory.device.config import load_config
    from companion_memory.device.errors import ConfigError
    from companion_memory.memory.database import open_database
    from companion_memory.memory.errors import DatabaseRefusedError

    with pytest.raises(ConfigError) as missing:
        load_config(tmp_path / "none.toml")
    assert isinstance(missing.value.__cause__, FileNotFoundError)
    with pytest.raises(ConfigError) as directory:
        load_config(tmp_path)
    assert isinstance(directory.value.__cause__, IsADirectoryError)
    (tmp_path / "memory.sqlite3").mkdir()
    with pytest.raises(DatabaseRefusedError) as refused:
        open_database(tmp_path / "memory.sqlite3")
    assert isinstance(refused.value.__cause__, IsADirectoryError)
