"""`EpisodesSettings`: episode batching and the largest episode file (`[episodes]`).

`batch_size` is bounded by what one model call carries (`EPISODES_PER_CALL`);
`max_bytes` by the smallest trace worth recording and a file the device can read
whole. `EpisodeProcessor` and `EpisodeRecorder` check loose values against these
same fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion_memory.agent.episodes.model import DEFAULT_MAX_BYTES
from companion_memory.core.settings import setting, validate_settings

EPISODES_PER_CALL = 5
"""Most episodes one model call carries."""

MIN_EPISODE_BYTES = 1024


@dataclass(frozen=True, slots=True)
class EpisodesSettings:
    batch_size: int = setting(EPISODES_PER_CALL, low=1, high=EPISODES_PER_CALL,
                              doc="episodes per model call")
    max_bytes: int = setting(DEFAULT_MAX_BYTES, low=MIN_EPISODE_BYTES, high=16_777_216,
                             doc="largest episode file")

    def __post_init__(self) -> None:
        validate_settings(self)
