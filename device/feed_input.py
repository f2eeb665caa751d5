"""Reading a command's input file: a JSON Lines feed in bounded batches, validated
line by line, or a whole (size-capped) file such as an episode."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from companion_memory.ble.events import InvalidEventError, NotificationEvent
from companion_memory.device.errors import UsageError


def read_input(path: str, max_bytes: int | None = None) -> bytes:
    """The bytes of FILE, or of stdin for `-`; a clear UsageError otherwise.

    With `max_bytes`, at most `max_bytes + 1` bytes are read (enough to tell "too large").
    """
    limit = -1 if max_bytes is None else max_bytes + 1
    with open_input(path) as handle:
        return handle.read(limit)


# `feed` reads, validates and persists this many lines at a time, so its memory stays
# bounded whatever the size of its input; a line longer than the cap is rejected alone
# (the body cap is 4 KiB, so a real event line is far shorter).
FEED_BATCH_LINES = 1000
FEED_LINE_MAX_BYTES = 1 << 20
# The summary lists at most this many rejections (each is on stderr, and counted).
FEED_REJECTIONS_LISTED = 1000
_SKIP_CHUNK = 1 << 16


@contextmanager
def open_input(path: str) -> Iterator[BinaryIO]:
    """FILE opened for reading in binary, or stdin for `-`; a clear UsageError otherwise."""
    if path == "-":
        yield sys.stdin.buffer
        return
    try:  # opened apart from the `with` so that only opening errors become usage errors
        handle = Path(path).open("rb")  # noqa: SIM115 - closed by the `with` below
    except FileNotFoundError as err:
        raise UsageError(f"{path}: no such file") from err
    except IsADirectoryError as err:
        raise UsageError(f"{path}: is a directory, not a file") from err
    except PermissionError as err:
        raise UsageError(f"{path}: not readable (permission denied)") from err
    with handle:
        yield handle


class FeedReader:
    """Reads a JSON Lines feed in batches of at most `batch_lines` lines, never holding
    more than one batch (and one line of at most `max_line_bytes`) in memory.

    `next_batch()` is blocking (call it off the event loop) and returns the batch's
    (line number, event)s and rejections, or None at the end of the input."""

    def __init__(self, handle: BinaryIO, *, batch_lines: int = FEED_BATCH_LINES,
                 max_line_bytes: int = FEED_LINE_MAX_BYTES) -> None:
        self._handle = handle
        self._batch_lines = batch_lines
        self._max = max_line_bytes
        self._number = 0
        self._done = False

    def next_batch(
        self,
    ) -> tuple[list[tuple[int, NotificationEvent]], list[dict[str, Any]]] | None:
        if self._done:
            return None
        lines: list[tuple[int, bytes]] = []
        bad: list[dict[str, Any]] = []
        while len(lines) + len(bad) < self._batch_lines:
            raw = self._handle.readline(self._max + 1)
            if not raw:
                self._done = True
                break
            self._number += 1
            if len(raw) > self._max and not raw.endswith(b"\n"):
                self._skip_rest_of_line()
                bad.append({"line": self._number, "reason": f"line is longer than {self._max} "
                            f"bytes; at most {self._max} are allowed"})
                continue
            lines.append((self._number, raw))
        if not lines and not bad:
            return None
        good, invalid = parse_feed_lines(lines)
        return good, sorted(bad + invalid, key=lambda item: int(item["line"]))

    def _skip_rest_of_line(self) -> None:
        while True:
            chunk = self._handle.readline(_SKIP_CHUNK)
            if not chunk or chunk.endswith(b"\n"):
                return


def parse_feed(data: bytes) -> tuple[list[tuple[int, NotificationEvent]], list[dict[str, Any]]]:
    """Validate JSON Lines events one by one: (line number, event)s and rejections."""
    return parse_feed_lines(enumerate(data.split(b"\n"), start=1))


def parse_feed_lines(
    lines: Iterable[tuple[int, bytes]],
) -> tuple[list[tuple[int, NotificationEvent]], list[dict[str, Any]]]:
    """Validate (line number, line) pairs one by one: (line number, event)s and rejections."""
    good: list[tuple[int, NotificationEvent]] = []
    bad: list[dict[str, Any]] = []
    for number, raw in lines:
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            bad.append({"line": number, "reason": "not valid JSON"})
            continue
        try:
            good.append((number, NotificationEvent.from_dict(obj)))
        except InvalidEventError as err:
            bad.append({"line": number, "reason": err.reason})
    return good, bad
