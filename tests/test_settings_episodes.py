"""Each `[episodes]` setting does what its docstring says, set in a config file and
observed through a `Runtime`: episodes per model call, and the largest episode taken."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from companion_memory.core.errors import InvalidInputError
from tests.episodes.helpers import episode, topic_episode
from tests.settings_helpers import Recording, configured, running


async def test_batch_size_is_the_episodes_per_model_call(tmp_path: Path) -> None:
    sizes = {}
    for batch_size in (2, 5):
        cfg = await configured(tmp_path / str(batch_size),
                               f"[episodes]\nbatch_size = {batch_size}\n")
        provider = Recording()
        async with running(tmp_path / str(batch_size), cfg, provider=provider) as runtime:
            for i in range(5):
                assert (await runtime.record_episode(topic_episode(i))).eligible
            await runtime.run_once()
        sizes[batch_size] = [len(p["episodes"]) for p in provider.of("episodes")]
    assert sizes == {2: [2, 2, 1], 5: [5]}


async def test_max_bytes_is_the_largest_episode_recorded(tmp_path: Path) -> None:
    """An episode over `max_bytes` (as JSON) is refused by name; one under it is kept."""
    big = episode("ep-big", steps=[
        {"n": n, "action": "tap", "target": f"row {n}", "observation": "nothing changed " * 8}
        for n in range(1, 21)])
    size = len(orjson.dumps(big))
    assert 2048 < size < 4096
    for limit, kept in ((2048, False), (4096, True)):
        cfg = await configured(tmp_path / str(limit), f"[episodes]\nmax_bytes = {limit}\n")
        async with running(tmp_path / str(limit), cfg) as runtime:
            if kept:
                assert (await runtime.record_episode(big)).episode_id == "ep-big"
            else:
                with pytest.raises(InvalidInputError, match=f"at most {limit}"):
                    await runtime.record_episode(big)
