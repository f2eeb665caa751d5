"""Bytes on disk: the file-system seam, atomic state files, the notification log."""

from storage.atomic import CorruptStateError, ensure_dir, read_json, write_atomic, write_json_atomic
from storage.fs import FileSystem, RealFileSystem, StorageIOError
from storage.monitor import (
    Cleaner,
    CleanResult,
    DiskProbe,
    DiskUsage,
    FakeDiskProbe,
    MonitorReport,
    StatvfsProbe,
    StorageLevel,
    StorageMonitor,
    Thresholds,
)

__all__ = [
    "CleanResult",
    "Cleaner",
    "CorruptStateError",
    "DiskProbe",
    "DiskUsage",
    "FakeDiskProbe",
    "FileSystem",
    "MonitorReport",
    "RealFileSystem",
    "StatvfsProbe",
    "StorageIOError",
    "StorageLevel",
    "StorageMonitor",
    "Thresholds",
    "ensure_dir",
    "read_json",
    "write_atomic",
    "write_json_atomic",
]
