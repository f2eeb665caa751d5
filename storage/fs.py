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
import stat
from typing import Protocol, runtime_checkable

from companion_memory.core.errors import InvalidInputError, StorageFailureError


class StorageIOError(StorageFailureError):
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


class NotRegularFileError(StorageIOError, InvalidInputError):
    """A path we would open is a symbolic link, a directory or another special file.

    Nothing is ever read or written through such an entry: a link planted under the
    root could otherwise make a repair truncate a file elsewhere. `kind` says what
    was found ("symlink", "dir" or "other").

    It is a `StorageIOError`, so code that handles a failed file operation handles it
    too; its category is `invalid_input` (the one error with two category bases that
    picks one): the root holds something the operator must move away, and the
    command line exits 2 for it.
    """

    category = "invalid_input"

    def __init__(self, operation: str, path: str, kind: str) -> None:
        self.kind = kind
        super().__init__(operation, path, None)
        self.code = "not_a_regular_file"
        shown = {"symlink": "a symbolic link", "dir": "a directory"}.get(kind, "a special file")
        self.reason = (
            f"{path} is {shown}, not a regular file; it is never opened through "
            "(move it out of the data root)"
        )
        self.args = (self.reason,)


def entry_kind_of(mode: int) -> str:
    """"file", "dir", "symlink" or "other" for an `lstat` mode."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


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

    def identity(self, path: str) -> str:
        """Which file `path` names (device and inode): it changes when the file is
        replaced, not when it is appended to, truncated or rewritten in place."""
        ...

    def entry_kind(self, path: str) -> str | None:
        """What the entry itself is, links not followed: "file", "dir", "symlink",
        "other", or None when there is no entry."""
        ...


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_regular(path: str, flags: int, operation: str) -> int:
    """An fd of the regular file `path`; a link or special file is refused unopened.

    `O_NOFOLLOW` refuses a symbolic link as the last component; `O_NONBLOCK` keeps a
    FIFO from blocking the open; the `fstat` check refuses what is not a regular file.
    """
    try:
        fd = os.open(path, flags | _NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise NotRegularFileError(operation, path, "symlink") from err
        if err.errno == errno.EISDIR:
            raise NotRegularFileError(operation, path, "dir") from err
        if err.errno == errno.ENXIO:
            raise NotRegularFileError(operation, path, "other") from err
        raise StorageIOError("open", path, err) from err
    try:
        mode = os.fstat(fd).st_mode
    except OSError as err:
        os.close(fd)
        raise StorageIOError("stat", path, err) from err
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegularFileError(operation, path, entry_kind_of(mode))
    os.set_blocking(fd, True)
    return fd


class RealFileSystem:
    """The operating system's files, with real fsyncs.

    No operation follows a symbolic link in the last path component or opens a
    directory, FIFO or device as a file (`NotRegularFileError`).
    """

    def append(self, path: str, data: bytes) -> None:
        fd = _open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "append")
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
        fd = _open_regular(path, os.O_WRONLY | os.O_CREAT, "write")
        try:
            os.ftruncate(fd, 0)  # only once the fd is known to be a regular file
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        except OSError as err:
            raise StorageIOError("write", path, err) from err
        finally:
            os.close(fd)

    def fsync(self, path: str) -> None:
        fd = _open_regular(path, os.O_RDONLY, "fsync")
        try:
            os.fsync(fd)
        except OSError as err:
            raise StorageIOError("fsync", path, err) from err
        finally:
            os.close(fd)

    def fsync_dir(self, path: str) -> None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
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
        fd = _open_regular(path, os.O_WRONLY, "truncate")
        try:
            os.ftruncate(fd, size)
        except OSError as err:
            raise StorageIOError("truncate", path, err) from err
        finally:
            os.close(fd)

    def read_bytes(self, path: str) -> bytes:
        fd = _open_regular(path, os.O_RDONLY, "read")
        try:
            with os.fdopen(fd, "rb", closefd=True) as handle:
                return handle.read()
        except OSError as err:
            raise StorageIOError("read", path, err) from err

    def read_at(self, path: str, offset: int, size: int) -> bytes:
        fd = _open_regular(path, os.O_RDONLY, "read")
        try:
            return os.pread(fd, size, offset)
        except OSError as err:
            raise StorageIOError("read", path, err) from err
        finally:
            os.close(fd)

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except FileNotFoundError:
            return []
        except OSError as err:
            raise StorageIOError("list", path, err) from err

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def entry_kind(self, path: str) -> str | None:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return None
        except OSError as err:
            raise StorageIOError("stat", path, err) from err
        return entry_kind_of(mode)

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
            return os.lstat(path).st_size
        except OSError as err:
            raise StorageIOError("stat", path, err) from err

    def identity(self, path: str) -> str:
        try:
            st = os.lstat(path)
        except OSError as err:
            raise StorageIOError("stat", path, err) from err
        return f"{st.st_dev}:{st.st_ino}"
