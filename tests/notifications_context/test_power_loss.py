"""The power-loss / EIO sweep over every I/O step of the intake workload."""

from __future__ import annotations

from typing import cast

import pytest

from companion_memory.storage.faultfs import FaultFileSystem
from companion_memory.storage.fs import FileSystem
from tests.notifications_context.powerloss import InvariantError, sweep


async def test_every_io_step_power_cut_eio_and_enospc_keep_the_invariants() -> None:
    stats, steps = await sweep(images=6, seed=7, nested_every=2)
    assert steps > 50
    assert stats.points == steps  # every step of the workload was a crash point
    assert stats.images == 6 * steps
    assert stats.nested > steps  # crashes during recovery, every second point
    assert stats.eio == 2 * steps  # one EIO and one ENOSPC surfaced per step


class SkipsDirectorySync:
    """A broken layer: forgets every directory fsync (the ALICE bug class)."""

    def __init__(self, inner: FaultFileSystem) -> None:
        self._inner = inner

    def fsync_dir(self, path: str) -> None:
        return None

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


async def test_the_sweep_catches_a_missing_directory_fsync() -> None:
    with pytest.raises(InvariantError):
        await sweep(
            images=4,
            seed=7,
            nested_every=0,
            kinds=("power",),
            wrap=lambda fs: cast(FileSystem, SkipsDirectorySync(fs)),
        )
