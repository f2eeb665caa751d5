"""The one file-system seam for durable I/O.

Every byte the product makes durable goes through a `FileSystem`. Production
uses `RealFileSystem`; crash tests swap in a fault-injecting fake that records
which bytes and directory entries were synced. Methods are synchronous: callers
run them on a worker thread (`asyncio.to_thread`) or the store's owned thread,
never on the event loop.
"""

from __future__ import annotations

import errno
import os
from typing import Protocol, runtime_checkable

from core.errors import CompanionMemoryError


class StorageIOError(CompanionMemoryError):
    """A durable write, sync or read failed (disk full, EIO, permission).

    `errno` is the operating system's error number when there was one. After an
    fsync failure nothing is retried: reopen and recover from what is on disk.
    """

    code = "storage_io_error"

    def __init__(self, operation: str, path: str, err: OSError | None = None) -> None:
        self.operation = operation
        self.path = path
        self.errno = err.errno if err is not None else None
        detail = os.strerror(err.errno) if err is not None and err.errno else "failed"
        if self.errno == errno.ENOSPC:
            self.code = "disk_full"
        super().__init__(f"{operation} {path}: {detail}")


@runtime_checkable
class FileSystem(Protocol):
    """Durable file operations, path based."""

    def append(self, path: str, data: bytes) -> None:
        """Append `data` with one write (short writes looped); create the file if missing."""
        ...

    def write_file(self, path: str, data: bytes) -> None:
        """Create or truncate `path` and write `data` (not synced)."""
        ...

    def fsync(self, path: str) -> None: ...

    def fsync_dir(self, path: str) -> None: ...

    def replace(self, src: str, dst: str) -> None: ...

    def unlink(self, path: str) -> None: ...

    def truncate(self, path: str, size: int) -> None: ...

    def read_bytes(self, path: str) -> bytes: ...

    def read_at(self, path: str, offset: int, size: int) -> bytes:
        """Up to `size` bytes of `path` starting at `offset` (fewer at end of file)."""
        ...

    def listdir(self, path: str) -> list[str]: ...

    def exists(self, path: str) -> bool: ...

    def makedirs(self, path: str) -> list[str]:
        """Create `path` and missing parents; return the directories created, outermost first."""
        ...

    def size(self, path: str) -> int: ...


class RealFileSystem:
    """The operating system's files, with real fsyncs."""

    def append(self, path: str, data: bytes) -> None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as err:
            raise StorageIOError("open", path, err) from err
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        except OSError as err:
            raise StorageIOError("append", path, err) from err
        finally:
            os.close(fd)

    def write_file(self, path: str, data: bytes) -> None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as err:
            raise StorageIOError("open", path, err) from err
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        except OSError as err:
            raise StorageIOError("write", path, err) from err
        finally:
            os.close(fd)

    def fsync(self, path: str) -> None:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as err:
            raise StorageIOError("open", path, err) from err
        try:
            os.fsync(fd)
        except OSError as err:
            raise StorageIOError("fsync", path, err) from err
        finally:
            os.close(fd)

    def fsync_dir(self, path: str) -> None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as err:
            raise StorageIOError("open", path, err) from err
        try:
            os.fsync(fd)
        except OSError as err:
            raise StorageIOError("fsync", path, err) from err
        finally:
            os.close(fd)

    def replace(self, src: str, dst: str) -> None:
        try:
            os.replace(src, dst)
        except OSError as err:
            raise StorageIOError("replace", dst, err) from err

    def unlink(self, path: str) -> None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            return
        except OSError as err:
            raise StorageIOError("unlink", path, err) from err

    def truncate(self, path: str, size: int) -> None:
        try:
            os.truncate(path, size)
        except OSError as err:
            raise StorageIOError("truncate", path, err) from err

    def read_bytes(self, path: str) -> bytes:
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except OSError as err:
            raise StorageIOError("read", path, err) from err

    def read_at(self, path: str, offset: int, size: int) -> bytes:
        try:
            with open(path, "rb") as handle:
                handle.seek(offset)
                return handle.read(size)
        except OSError as err:
            raise StorageIOError("read", path, err) from err

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except FileNotFoundError:
            return []
        except OSError as err:
            raise StorageIOError("list", path, err) from err

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def makedirs(self, path: str) -> list[str]:
        missing: list[str] = []
        current = os.path.abspath(path)
        while not os.path.isdir(current):
            missing.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        created: list[str] = []
        for directory in reversed(missing):
            try:
                os.mkdir(directory, 0o755)
            except FileExistsError:
                continue
            except OSError as err:
                raise StorageIOError("mkdir", directory, err) from err
            created.append(directory)
        return created

    def size(self, path: str) -> int:
        try:
            return os.stat(path).st_size
        except OSError as err:
            raise StorageIOError("stat", path, err) from err
