"""Bytes on disk: the file-system seam, atomic state files, the notification log."""

from storage.atomic import CorruptStateError, ensure_dir, read_json, write_atomic, write_json_atomic
from storage.fs import FileSystem, RealFileSystem, StorageIOError

__all__ = [
    "CorruptStateError",
    "FileSystem",
    "RealFileSystem",
    "StorageIOError",
    "ensure_dir",
    "read_json",
    "write_atomic",
    "write_json_atomic",
]
