"""A one-line progress display on stderr, shown only when stderr is a terminal.

`Progress(label, total)`: `update(done)` redraws at most ten times a second;
`close()` clears the line. On a pipe or file it prints nothing, so scripts and
logs stay clean.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, label: str, total: int | None = None, *, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self._stream = stream or sys.stderr
        self._enabled = self._stream.isatty() if enabled is None else enabled
        self._label = label
        self._total = total
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._drawn = False

    @property
    def enabled(self) -> bool:
        return self._enabled

    def update(self, done: int, note: str = "") -> None:
        if not self._enabled:
            return
        now = time.monotonic()
        if now - self._last_draw < 0.1 and (self._total is None or done < self._total):
            return
        self._last_draw = now
        elapsed = now - self._started
        if self._total:
            pct = min(100, int(done * 100 / self._total))
            width = 24
            filled = width * pct // 100
            bar = "#" * filled + "-" * (width - filled)
            text = f"{self._label} [{bar}] {done}/{self._total} {pct:3d}% {elapsed:5.1f}s"
        else:
            text = f"{self._label} {done} {elapsed:5.1f}s"
        if note:
            text += f" {note}"
        self._stream.write("\r\x1b[2K" + text)
        self._stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._enabled and self._drawn:
            self._stream.write("\r\x1b[2K")
            self._stream.flush()
            self._drawn = False
