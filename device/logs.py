"""Structured, content-free logging: one JSON object per line on stderr.

Every record carries `ts`, `level`, `logger` and `event` (the message), plus the
fields passed with `extra={"fields": {...}}`; a record logged with `exc_info` adds
`error_type`, `error_code` and `where` (its frames, never the exception's message).
Callers log ids, app ids, counts, codes and reasons only; never a title, body or
memory text.
"""

from __future__ import annotations

import logging
import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import orjson

LOGGER_NAME = "companion_memory"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info and record.exc_info[0] is not None:
            exc = record.exc_info[1]
            entry["error_type"] = record.exc_info[0].__name__
            code = getattr(exc, "code", None)
            if isinstance(code, str):
                entry["error_code"] = code
            entry["where"] = _where(record.exc_info[2])
        return orjson.dumps(entry, default=str).decode("utf-8")


def _where(tb: TracebackType | None, limit: int = 12) -> list[str]:
    """The innermost frames as `file:line in function`: where it failed, never the
    exception's message or locals (which may carry notification or memory text)."""
    frames = traceback.extract_tb(tb)[-limit:]
    return [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in frames]


def setup_logging(level: str, stream: TextIO | None = None) -> logging.Logger:
    """Route the product's loggers (`companion_memory.*`) to JSON lines at `level`."""
    root = logging.getLogger(LOGGER_NAME)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    root.propagate = False
    logging.captureWarnings(False)
    return root


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(f"{LOGGER_NAME}.{name}")


def fields(**values: Any) -> dict[str, Any]:
    """`log.info("event", extra=fields(app_id=..., count=...))`."""
    return {"fields": values}
