"""`MemorySettings` (`[memory]`): how long Temporary and automatic Long-Term memories
live, and the embedding model recall fuses with BM25.

`MemoryStore.open(settings=...)` takes them; the TTLs are days here and
`timedelta`s in the store. A notification's Temporary memory lives `temporary_ttl_days`
(or until its event is over); the default, 14, is the notification log's retention at
the Normal storage level (`storage.normal_retention_days`), so by default a memory and
the notification it came from leave together (docs/configuration.md, "Memory
lifetimes").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from companion_memory.core.settings import setting, validate_settings
from companion_memory.memory.embedding import E5_SMALL, EMBEDDERS


@dataclass(frozen=True, slots=True)
class MemorySettings:
    temporary_ttl_days: float = setting(14.0, low=0.01, high=3650.0,
                                        doc="Temporary expiry (a notification's memory too)")
    long_term_ttl_days: float = setting(90.0, low=0.01, high=36_500.0,
                                        doc="auto Long-Term expiry")
    embedder: str = setting(E5_SMALL, choices=EMBEDDERS,
                            doc="embedding model for hybrid recall; 'none': keywords only")
    embedder_threads: int = setting(1, low=1, high=8,
                                    doc="threads per call embedding memories (background)")
    question_threads: int = setting(2, low=1, high=8,
                                    doc="threads embedding a recall's question")

    def __post_init__(self) -> None:
        validate_settings(self)

    @property
    def temporary_ttl(self) -> timedelta:
        return timedelta(days=self.temporary_ttl_days)

    @property
    def long_term_ttl(self) -> timedelta:
        return timedelta(days=self.long_term_ttl_days)
