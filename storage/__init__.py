"""Bytes on disk: the file-system seam, atomic state files, the notification log."""

from companion_memory.storage.atomic import (
    CorruptStateError,
    ensure_dir,
    read_json,
    write_atomic,
    write_json_atomic,
)
from companion_memory.storage.fs import (
    FileSystem,
    NotRegularFileError,
    RealFileSystem,
    StorageIOError,
)
from companion_memory.storage.jsonl_log import (
    CorruptLogError,
    CorruptRun,
    JsonlLog,
    LogNeedsRecoveryError,
    LogOrderError,
    RecoveryReport,
    ShardInfo,
    TornTail,
    UnsafeEntry,
)
from companion_memory.storage.monitor import (
    Cleaner,
    CleanResult,
    DiskProbe,
    DiskUsage,
    MonitorReport,
    StatvfsProbe,
    StorageLevel,
    StorageMonitor,
    Thresholds,
)

__all__ = [
    "CleanResult",
    "Cleaner",
    "CorruptLogError",
    "CorruptRun",
    "CorruptStateError",
    "DiskProbe",
    "DiskUsage",
    "FileSystem",
    "JsonlLog",
    "LogNeedsRecoveryError",
    "LogOrderError",
    "MonitorReport",
    "NotRegularFileError",
    "RealFileSystem",
    "RecoveryReport",
    "ShardInfo",
    "StatvfsProbe",
    "StorageIOError",
    "StorageLevel",
    "StorageMonitor",
    "Thresholds",
    "TornTail",
    "UnsafeEntry",
    "ensure_dir",
    "read_json",
    "write_atomic",
    "write_json_atomic",
]
