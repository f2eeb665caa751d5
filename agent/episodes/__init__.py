"""episodes scenario: recorded agent tasks become Device Memory."""

from companion_memory.agent.episodes.extractor import (
    EpisodeBatch,
    EpisodeExtraction,
    EpisodeExtractor,
    ModelEpisodeExtractor,
    RulesEpisodeExtractor,
)
from companion_memory.agent.episodes.fallback import episode_fallback
from companion_memory.agent.episodes.model import (
    Episode,
    EpisodeError,
    EpisodeStatus,
    Evidence,
    EvidenceKind,
    GoalResult,
    Step,
    parse_episode,
)
from companion_memory.agent.episodes.processor import EpisodeProcessor
from companion_memory.agent.episodes.proposals import (
    ANSWER_SCHEMA,
    derived_memory_id,
    validate_answer,
)
from companion_memory.agent.episodes.recorder import EpisodeRecorder, RecordResult, TraceRef

__all__ = [
    "ANSWER_SCHEMA",
    "Episode",
    "EpisodeBatch",
    "EpisodeError",
    "EpisodeExtraction",
    "EpisodeExtractor",
    "EpisodeProcessor",
    "EpisodeRecorder",
    "EpisodeStatus",
    "Evidence",
    "EvidenceKind",
    "GoalResult",
    "ModelEpisodeExtractor",
    "RecordResult",
    "RulesEpisodeExtractor",
    "Step",
    "TraceRef",
    "derived_memory_id",
    "episode_fallback",
    "parse_episode",
    "validate_answer",
]
