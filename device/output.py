"""Printing for the command line: text for people, JSON for scripts."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import orjson


def print_json(data: Any) -> None:
    """One JSON document, indented, on stdout."""
    sys.stdout.write(orjson.dumps(data, default=str, option=orjson.OPT_INDENT_2).decode() + "\n")
    sys.stdout.flush()


def print_jsonl(rows: Iterable[Any]) -> None:
    """One compact JSON object per line on stdout."""
    out = sys.stdout
    for row in rows:
        out.write(orjson.dumps(row, default=str).decode() + "\n")
    out.flush()


def say(text: str = "") -> None:
    print(text, file=sys.stdout)
