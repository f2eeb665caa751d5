"""`[memory] embedder` and `embedder_threads` do what their docstrings say, set in a config
file and observed through a `Runtime`. The TTLs are proved in
tests/device/test_settings_effects.py (tests/test_settings_guard.py maps them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.settings_helpers import configured, note, running

MEMORY = "Dinner at Luigi's on Saturday at 7, I booked the table"
QUESTION = "evening meal plans"  # no word (nor day) in common with the memory


@pytest.mark.parametrize(("embedder", "found"), [("none", False),
                                                  ("multilingual-e5-small-q4", True)])
async def test_embedder_is_the_model_recall_fuses_with_keywords(
    tmp_path: Path, embedder: str, found: bool,
) -> None:
    """With the embedding model a question in other words finds the memory; with
    `none` recall is keywords only and finds nothing."""
    cfg = await configured(tmp_path, f'[memory]\nembedder = "{embedder}"\n', keywords=False)
    async with running(tmp_path, cfg) as runtime:
        await runtime.feed([note("a", MEMORY)])
        await runtime.run_once()
        hits = await runtime.recall_memory(QUESTION)
        assert any("Luigi" in h.record.text for h in hits) is found
        assert (await runtime.recall_memory("Luigi's dinner"))  # keywords work either way


CHILD = """
import asyncio, os, sys
from pathlib import Path
from companion_memory import NotificationEvent, Runtime
from companion_memory.device.config import load_config

async def main(root, config):
    async with Runtime(load_config(config), root=root, start_worker=False,
                       start_link=False) as runtime:
        await runtime.feed([NotificationEvent.create(
            kind="added", key="k", app_id="a.b", title="Anna", body=sys.argv[3],
            posted_at=__import__("datetime").datetime(2026, 3, 12, 9, tzinfo=
            __import__("datetime").UTC))])
        await runtime.run_once()
        await runtime.recall_memory("dinner")
        embedder = runtime._embedder
        embedder.documents(["a memory"])  # on this thread: its OpenMP count is the call's
        used = embedder._model._lib.omp_get_max_threads()
    print(os.environ.get("OMP_NUM_THREADS"), used)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def _embedding_child(tmp_path: Path, threads: int) -> tuple[str, int]:
    """`OMP_NUM_THREADS` and the OpenMP threads a memory's embedding ran on, in a fresh
    process that opened a `Runtime` with `embedder_threads = threads` and embedded."""
    tmp_path.mkdir()
    path = tmp_path / "config.toml"
    path.write_text(f"[memory]\nembedder_threads = {threads}\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPANION_MEMORY", "OMP_"))}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "root"), str(path),
                           MEMORY], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    omp, native = proc.stdout.split()
    return omp, int(native)


def test_embedder_threads_is_the_threads_per_embedding_call(tmp_path: Path) -> None:
    """In a fresh process (OpenMP reads its thread count once), `embedder_threads = n` sets
    `OMP_NUM_THREADS`, and a memory's embedding runs on n OpenMP threads (a question's on
    `question_threads`: tests/device/test_settings_effects.py)."""
    one, three = (_embedding_child(tmp_path / str(n), n) for n in (1, 3))
    assert (one, three) == (("1", 1), ("3", 3))
