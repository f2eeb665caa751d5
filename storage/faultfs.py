"""An in-memory `FileSystem` that knows what is synced and can fail or lose power.

`FaultFileSystem` implements the `storage.fs.FileSystem` seam. Files and
directories are inodes; each file keeps its visible bytes and the bytes its
last successful `fsync` made durable, each directory its visible entries and
the entries its last `fsync_dir` made durable. That is enough to produce every
disk image a power cut may leave (the model of SQLite's crash VFS, LevelDB's
FaultInjectionTestEnv and Pebble's strict MemFS):

- a file's content is its synced bytes plus a random prefix of what was appended
  since, sometimes followed by garbage (appended space can reach the disk before
  its contents); a file rewritten or truncated since its sync is either the old
  synced content or a prefix of the new one;
- every directory entry added, removed or replaced since the directory's last
  sync is independently kept or dropped (a dropped new directory takes its
  subtree with it).

Faults: `arm(step, kind)` makes the `step`-th operation (1-based, every method
call but `exists`/`size`/`identity`/`entry_kind` counts, `steps` tells how many ran) fail.
kind "power": the operation's visible effect happens (an append or write may be
partial), then it and every later call raise `PowerLoss`; take images with
`crash_image()`/`crash_images()`.
kind "eio"/"enospc": the operation raises `StorageIOError` once (an append lands
partially; an fsync drops the unsynced bytes, as Linux may after writeback
errors) and the file system keeps working.

Thread-safe (one lock); pure memory, so safe to call on any thread. Useful for
users' own crash tests of code written against the seam.
"""

from __future__ import annotations

import errno
import posixpath
import random
import threading
from dataclasses import dataclass, field

from companion_memory.core.errors import InvalidInputError
from companion_memory.storage.fs import NotRegularFileError, StorageIOError

FAULT_KINDS = ("power", "eio", "enospc")


class PowerLoss(BaseException):
    """The simulated machine lost power: the process is gone from here on.

    A BaseException so that product code's `except Exception` cannot treat it as a
    recoverable error and keep writing.
    """


@dataclass(slots=True)
class _Node:
    is_dir: bool
    data: bytearray = field(default_factory=bytearray)
    synced: bytes = b""
    entries: dict[str, int] = field(default_factory=dict)
    synced_entries: dict[str, int] = field(default_factory=dict)
    link: str | None = None
    """The target of a symbolic link (never followed), None for files and directories."""
    ino: int = 0
    """The inode number `identity` reports; a crash image keeps it (as a disk does)."""


class FaultFileSystem:
    """In-memory file system with sync tracking, fault injection and crash images."""

    ROOT = 1

    def __init__(self, *, seed: int = 0) -> None:
        self._lock = threading.RLock()
        self._nodes: dict[int, _Node] = {self.ROOT: _Node(is_dir=True)}
        self._next = self.ROOT + 1
        self._steps = 0
        self._armed: tuple[int, str] | None = None
        self._dead = False
        self._rng = random.Random(seed)
        self.trace: list[tuple[int, str, str]] = []
        """(step, operation, path) of every call, for debugging a failing sweep."""
        self.faulted: tuple[int, str, str, str] | None = None
        """(step, kind, operation, path) of the fault that fired, if any."""

    # -- fault control ---------------------------------------------------------------

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def powered_off(self) -> bool:
        return self._dead

    def arm(self, step: int, kind: str = "power") -> None:
        """Fail the `step`-th operation counted from the start (1-based)."""
        if kind not in FAULT_KINDS:
            raise InvalidInputError(f"fault kind must be one of {', '.join(FAULT_KINDS)}")
        if step < 1:
            raise InvalidInputError("step must be at least 1")
        self._armed = (step, kind)

    def disarm(self) -> None:
        self._armed = None

    def _step(self, op: str, path: str) -> str | None:
        """Count one operation; return the fault kind to inject now, if any."""
        if self._dead:
            raise PowerLoss(f"{op} {path} after power loss")
        self._steps += 1
        self.trace.append((self._steps, op, path))
        if self._armed is not None and self._armed[0] == self._steps:
            kind = self._armed[1]
            self._armed = None
            self.faulted = (self._steps, kind, op, path)
            return kind
        return None

    def _after(self, fault: str | None, op: str, path: str) -> None:
        if fault == "power":
            self._dead = True
            raise PowerLoss(f"power cut during {op} {path}")

    @staticmethod
    def _io_error(fault: str, op: str, path: str) -> StorageIOError:
        code = errno.ENOSPC if fault == "enospc" else errno.EIO
        return StorageIOError(op, path, OSError(code, "injected"))

    # -- namespace -------------------------------------------------------------------

    @staticmethod
    def _parts(path: str) -> list[str]:
        norm = posixpath.normpath("/" + path.replace("\\", "/"))
        return [p for p in norm.split("/") if p]

    def _lookup(self, path: str) -> int | None:
        node_id = self.ROOT
        for part in self._parts(path):
            node = self._nodes[node_id]
            if not node.is_dir or part not in node.entries:
                return None
            node_id = node.entries[part]
        return node_id

    def _parent(self, path: str, op: str) -> tuple[_Node, str]:
        parts = self._parts(path)
        if not parts:
            raise StorageIOError(op, path, OSError(errno.EISDIR, "is the root"))
        parent_id = self._lookup("/" + "/".join(parts[:-1]))
        if parent_id is None or not self._nodes[parent_id].is_dir:
            raise StorageIOError(op, path, OSError(errno.ENOENT, "no such directory"))
        return self._nodes[parent_id], parts[-1]

    def _file(self, path: str, op: str) -> _Node:
        node_id = self._lookup(path)
        if node_id is None:
            raise StorageIOError(op, path, OSError(errno.ENOENT, "no such file"))
        node = self._nodes[node_id]
        if node.link is not None:
            raise NotRegularFileError(op, path, "symlink")
        if node.is_dir and op not in ("fsync_dir",):
            raise NotRegularFileError(op, path, "dir")
        return node

    def _new(self, is_dir: bool) -> int:
        node_id = self._next
        self._next += 1
        self._nodes[node_id] = _Node(is_dir=is_dir, ino=node_id)
        return node_id

    def _create(self, path: str, op: str) -> _Node:
        node_id = self._lookup(path)
        if node_id is not None:
            return self._file(path, op)
        parent, name = self._parent(path, op)
        new_id = self._new(False)
        parent.entries[name] = new_id
        return self._nodes[new_id]

    # -- FileSystem ------------------------------------------------------------------

    def append(self, path: str, data: bytes) -> None:
        with self._lock:
            fault = self._step("append", path)
            node = self._create(path, "append")
            if fault in ("eio", "enospc"):
                node.data += data[: len(data) // 2]
                raise self._io_error(fault, "append", path)
            node.data += data
            self._after(fault, "append", path)

    def write_file(self, path: str, data: bytes) -> None:
        with self._lock:
            fault = self._step("write", path)
            node = self._create(path, "write")
            node.data = bytearray()
            if fault in ("eio", "enospc"):
                node.data += data[: len(data) // 2]
                raise self._io_error(fault, "write", path)
            node.data += data
            self._after(fault, "write", path)

    def fsync(self, path: str) -> None:
        with self._lock:
            fault = self._step("fsync", path)
            node = self._file(path, "fsync")
            if fault in ("eio", "enospc"):
                node.data = bytearray(node.synced)  # writeback failed: pages dropped
                raise self._io_error(fault, "fsync", path)
            self._after(fault, "fsync", path)
            node.synced = bytes(node.data)

    def fsync_dir(self, path: str) -> None:
        with self._lock:
            fault = self._step("fsync_dir", path)
            node_id = self._lookup(path)
            if node_id is None or not self._nodes[node_id].is_dir:
                raise StorageIOError("fsync", path, OSError(errno.ENOENT, "no such directory"))
            if fault in ("eio", "enospc"):
                raise self._io_error(fault, "fsync", path)
            self._after(fault, "fsync_dir", path)
            node = self._nodes[node_id]
            node.synced_entries = dict(node.entries)

    def replace(self, src: str, dst: str) -> None:
        with self._lock:
            fault = self._step("replace", dst)
            if fault in ("eio", "enospc"):
                raise self._io_error(fault, "replace", dst)
            src_parent, src_name = self._parent(src, "replace")
            if src_name not in src_parent.entries:
                raise StorageIOError("replace", src, OSError(errno.ENOENT, "no such file"))
            dst_parent, dst_name = self._parent(dst, "replace")
            dst_parent.entries[dst_name] = src_parent.entries.pop(src_name)
            self._after(fault, "replace", dst)

    def unlink(self, path: str) -> None:
        with self._lock:
            fault = self._step("unlink", path)
            if fault in ("eio", "enospc"):
                raise self._io_error(fault, "unlink", path)
            parent, name = self._parent(path, "unlink")
            parent.entries.pop(name, None)
            self._after(fault, "unlink", path)

    def truncate(self, path: str, size: int) -> None:
        with self._lock:
            fault = self._step("truncate", path)
            node = self._file(path, "truncate")
            if fault in ("eio", "enospc"):
                raise self._io_error(fault, "truncate", path)
            if size <= len(node.data):
                del node.data[size:]
            else:
                node.data += bytes(size - len(node.data))
            self._after(fault, "truncate", path)

    def read_bytes(self, path: str) -> bytes:
        with self._lock:
            fault = self._step("read", path)
            node = self._file(path, "read")
            if fault in ("eio", "enospc"):
                raise self._io_error("eio", "read", path)
            self._after(fault, "read", path)
            return bytes(node.data)

    def read_at(self, path: str, offset: int, size: int) -> bytes:
        with self._lock:
            fault = self._step("read", path)
            node = self._file(path, "read")
            if fault in ("eio", "enospc"):
                raise self._io_error("eio", "read", path)
            self._after(fault, "read", path)
            return bytes(node.data[offset : offset + size])

    def listdir(self, path: str) -> list[str]:
        with self._lock:
            fault = self._step("list", path)
            if fault in ("eio", "enospc"):
                raise self._io_error("eio", "list", path)
            self._after(fault, "list", path)
            node_id = self._lookup(path)
            if node_id is None or not self._nodes[node_id].is_dir:
                return []
            return sorted(self._nodes[node_id].entries)

    def exists(self, path: str) -> bool:
        with self._lock:
            if self._dead:
                raise PowerLoss(f"exists {path} after power loss")
            return self._lookup(path) is not None

    def makedirs(self, path: str) -> list[str]:
        with self._lock:
            fault = self._step("mkdir", path)
            if fault in ("eio", "enospc"):
                raise self._io_error(fault, "mkdir", path)
            created: list[str] = []
            node_id = self.ROOT
            current = ""
            for part in self._parts(path):
                current = f"{current}/{part}"
                node = self._nodes[node_id]
                if not node.is_dir:
                    raise StorageIOError("mkdir", current, OSError(errno.ENOTDIR, "not a dir"))
                if part not in node.entries:
                    node.entries[part] = self._new(True)
                    created.append(current)
                node_id = node.entries[part]
            self._after(fault, "mkdir", path)
            return created

    def size(self, path: str) -> int:
        with self._lock:
            if self._dead:
                raise PowerLoss(f"size {path} after power loss")
            return len(self._file(path, "stat").data)

    def identity(self, path: str) -> str:
        with self._lock:
            if self._dead:
                raise PowerLoss(f"stat {path} after power loss")
            return f"ino:{self._file(path, 'stat').ino}"

    def entry_kind(self, path: str) -> str | None:
        with self._lock:
            if self._dead:
                raise PowerLoss(f"stat {path} after power loss")
            node_id = self._lookup(path)
            if node_id is None:
                return None
            node = self._nodes[node_id]
            if node.link is not None:
                return "symlink"
            return "dir" if node.is_dir else "file"

    def symlink(self, target: str, path: str) -> None:
        """Create a symbolic link entry at `path` (durable at once; a test fixture).

        Every file operation on it raises `NotRegularFileError`, as the real file
        system's `O_NOFOLLOW` opens do; it is never resolved.
        """
        with self._lock:
            parent, name = self._parent(path, "symlink")
            if name in parent.entries:
                raise StorageIOError("symlink", path, OSError(errno.EEXIST, "exists"))
            node_id = self._new(False)
            self._nodes[node_id].link = target
            parent.entries[name] = node_id
            parent.synced_entries[name] = node_id

    # -- inspection and crash images -------------------------------------------------

    def files(self) -> dict[str, bytes]:
        """Visible path -> bytes of every file (directories implied)."""
        with self._lock:
            out: dict[str, bytes] = {}
            self._walk(self.ROOT, "", out)
            return out

    def _walk(self, node_id: int, prefix: str, out: dict[str, bytes]) -> None:
        node = self._nodes[node_id]
        for name, child in sorted(node.entries.items()):
            path = f"{prefix}/{name}"
            if self._nodes[child].is_dir:
                self._walk(child, path, out)
            else:
                out[path] = bytes(self._nodes[child].data)

    def crash_image(
        self, rng: random.Random | None = None, mode: str = "random"
    ) -> FaultFileSystem:
        """A fresh, powered, fully synced file system holding one possible post-crash disk.

        mode "synced": only what was synced; "all": every unsynced change landed
        whole; "random": per file a random prefix of unsynced bytes (sometimes plus
        garbage), per directory change kept or dropped at random.
        """
        if mode not in ("random", "synced", "all"):
            raise InvalidInputError("mode must be random, synced or all")
        rng = rng or self._rng
        with self._lock:
            image = FaultFileSystem(seed=rng.randrange(1 << 30))
            image._next = self._next  # new inodes never collide with the kept ones
            self._copy_dir(self.ROOT, image, image.ROOT, rng, mode)
            return image

    def crash_images(self, count: int, rng: random.Random) -> list[FaultFileSystem]:
        """`count` images: the synced-only one, the everything-landed one, then random."""
        modes = ["synced", "all"] + ["random"] * max(0, count - 2)
        return [self.crash_image(rng, mode) for mode in modes[:count]]

    def _copy_dir(
        self, src_id: int, image: FaultFileSystem, dst_id: int, rng: random.Random, mode: str
    ) -> None:
        src = self._nodes[src_id]
        names = sorted(set(src.entries) | set(src.synced_entries))
        for name in names:
            visible = src.entries.get(name)
            synced = src.synced_entries.get(name)
            if visible == synced:
                chosen = visible
            elif mode == "synced":
                chosen = synced
            elif mode == "all":
                chosen = visible
            else:
                chosen = visible if rng.random() < 0.5 else synced
            if chosen is None or chosen not in self._nodes:
                continue
            node = self._nodes[chosen]
            new_id = image._new(node.is_dir)
            image._nodes[dst_id].entries[name] = new_id
            image._nodes[new_id].link = node.link
            image._nodes[new_id].ino = node.ino
            if node.is_dir:
                self._copy_dir(chosen, image, new_id, rng, mode)
            else:
                content = self._file_after_crash(node, rng, mode)
                image._nodes[new_id].data = bytearray(content)
                image._nodes[new_id].synced = content
        image._nodes[dst_id].synced_entries = dict(image._nodes[dst_id].entries)

    @staticmethod
    def _file_after_crash(node: _Node, rng: random.Random, mode: str) -> bytes:
        data = bytes(node.data)
        synced = node.synced
        if data == synced or mode == "synced":
            return synced
        if mode == "all":
            return data
        garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 24)))
        if data.startswith(synced):
            cut = len(synced) + rng.randrange(len(data) - len(synced) + 1)
            tail = garbage if rng.random() < 0.3 else b""
            return data[:cut] + tail
        if synced.startswith(data):  # truncated since the sync: either happened or not
            return data if rng.random() < 0.5 else synced
        if rng.random() < 0.3:
            return synced
        cut = rng.randrange(len(data) + 1)
        return data[:cut] + (garbage if rng.random() < 0.2 else b"")
