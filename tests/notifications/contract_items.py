"""Three batch items the contract tests of both the notifications and the model
packages use: a German group chat, an appointment with two related memories, and an
emoji-only message."""

from __future__ import annotations

from datetime import UTC, datetime

from companion_memory.agent.notifications.contract import BatchItem
from companion_memory.memory.records import (
    Authority,
    Kind,
    MemoryRecord,
    SourceKind,
    SourceRef,
    Tier,
)

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def record(memory_id: str, text: str) -> MemoryRecord:
    return MemoryRecord(memory_id, 3, Tier.TEMPORARY, Kind.EVENT, text, Authority.INFERENCE,
                        (SourceRef(SourceKind.CONTEXT, "1"),), NOW, NOW, None)


ITEMS = [
    BatchItem(11, NOW, "WhatsApp", "Kita Pusteblume Eltern 🌼", "", "Ausflug am Mittwoch", ()),
    BatchItem(12, NOW, "Termine", "Tierärztin Dr. Sommer", "", "Termin verschoben",
              (record("m-1", "Vet on Wednesday"), record("m-2", "Bruno's vaccination"))),
    BatchItem(13, NOW, "Signal", "", "", "🙂", ()),
]
