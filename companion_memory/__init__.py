"""companion-memory: durable notification intake and an on-device memory for the agent
of a BLE wearable.

This is the one import name the package installs; its parts live beneath it
(`companion_memory.ble`, `.storage`, `.memory`, `.agent`, `.device`, `.core`). What a
host needs is importable from here: the `Runtime`, and every type its methods take or
return (`tests/test_public_api.py` walks the annotations and checks each is here):

    from companion_memory import Runtime, load_config, NotificationEvent, Tier, RecallHit

The package is typed (`py.typed`). Importing it imports the whole library (about half
a second on a two-core device), with no optional dependency: llama.cpp, bleak, bumble
and httpx load only when a part that needs them is first used. Tests reach the
runtime's ring and clock through `companion_memory.testing`.
"""

from __future__ import annotations

from companion_memory.agent.episodes.recorder import RecordResult
from companion_memory.agent.episodes.settings import EpisodesSettings
from companion_memory.agent.model.provider import ModelProvider
from companion_memory.agent.model.settings import LlamaOptions, OpenAIOptions, ProviderOptions
from companion_memory.agent.notification_log.types import Gap, NotificationRecord
from companion_memory.agent.notifications.settings import IntakeSettings
from companion_memory.agent.processor import ProcessorReport
from companion_memory.agent.report import RoundReport
from companion_memory.agent.sweep.settings import SweepSettings
from companion_memory.agent.worker import WorkerSettings
from companion_memory.ble.events import EventKind, InvalidEventError, NotificationEvent
from companion_memory.ble.link import PhoneLink
from companion_memory.ble.settings import LinkSettings
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.errors import (
    CompanionMemoryError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StateError,
    StorageFailureError,
    UnavailableError,
)
from companion_memory.device.config import Config, load_config, parse_config
from companion_memory.device.errors import ConfigError, RootBusyError, RootError
from companion_memory.device.lock import RootLock
from companion_memory.device.results import (
    ExportedMemory,
    LinkStatus,
    SweepReconcile,
    SweepStatus,
    SweepWindow,
)
from companion_memory.device.runtime import (
    FeedTotals,
    Runtime,
    RuntimeState,
    RuntimeStateError,
    RuntimeStatus,
)
from companion_memory.device.write_stream import MemoryWriteStream
from companion_memory.memory.decisions import NotificationDecision
from companion_memory.memory.errors import StoreCorruptError
from companion_memory.memory.fts_index import IndexStructure
from companion_memory.memory.history import MemoryRevision
from companion_memory.memory.records import (
    Authority,
    Kind,
    MemoryNotFoundError,
    MemoryRecord,
    RevisionConflictError,
    SecretInStatementError,
    SourceKind,
    SourceRef,
    Status,
    Tier,
)
from companion_memory.memory.settings import MemorySettings
from companion_memory.memory.store import RecallHit, RepairResult, SaveResult, StoreHealth
from companion_memory.memory.write_events import MemoryWrite
from companion_memory.storage.fs import FileSystem
from companion_memory.storage.monitor import DiskProbe, StorageLevel
from companion_memory.storage.settings import StorageSettings

__all__ = [
    "Authority",
    "Clock",
    "CompanionMemoryError",
    "Config",
    "ConfigError",
    "ConflictError",
    "DiskProbe",
    "EpisodesSettings",
    "EventKind",
    "ExportedMemory",
    "FeedTotals",
    "FileSystem",
    "Gap",
    "IndexStructure",
    "IntakeSettings",
    "InvalidEventError",
    "InvalidInputError",
    "Kind",
    "LinkSettings",
    "LinkStatus",
    "LlamaOptions",
    "MemoryNotFoundError",
    "MemoryRecord",
    "MemoryRevision",
    "MemorySettings",
    "MemoryWrite",
    "MemoryWriteStream",
    "ModelProvider",
    "NotFoundError",
    "NotificationDecision",
    "NotificationEvent",
    "NotificationRecord",
    "OpenAIOptions",
    "PhoneLink",
    "ProcessorReport",
    "ProviderOptions",
    "RecallHit",
    "RecordResult",
    "RepairResult",
    "RevisionConflictError",
    "RootBusyError",
    "RootError",
    "RootLock",
    "RoundReport",
    "Runtime",
    "RuntimeState",
    "RuntimeStateError",
    "RuntimeStatus",
    "SaveResult",
    "SecretInStatementError",
    "SourceKind",
    "SourceRef",
    "StateError",
    "Status",
    "StorageFailureError",
    "StorageLevel",
    "StorageSettings",
    "StoreCorruptError",
    "StoreHealth",
    "SweepReconcile",
    "SweepSettings",
    "SweepStatus",
    "SweepWindow",
    "SystemClock",
    "Tier",
    "UnavailableError",
    "WorkerSettings",
    "load_config",
    "parse_config",
]
