"""The text the FTS index holds for a memory: its words plus compound words joined.

FTS5's `unicode61` tokenizer splits "Wi-Fi" into `wi` and `fi`, so a query for
`wifi` would never find it (nor `email` a memory saying "e-mail"). The index
therefore holds `search_text(text)`: the text itself and, on a line of its own,
every hyphenated word with its hyphens removed ("Wi-Fi" -> "WiFi"). Texts without
a hyphenated word are indexed unchanged. Query side, `memory.recall.query_terms`
adds the joined form of a hyphenated query word, so `wi-fi` also finds "WiFi".

The SQL triggers call this as `cm_search_text(text)` (registered on every store
connection by `register`), both to insert and to delete index entries, so it must
stay deterministic; changing what it returns needs a new migration that rebuilds
the index (as `0003_memory_search_text` does).
"""

from __future__ import annotations

import re
import sqlite3

SQL_NAME = "cm_search_text"

COMPOUND = re.compile(r"[^\W_]+(?:[-\u2010\u2011][^\W_]+)+")
"""Letters/digits joined by hyphens (ASCII hyphen-minus, U+2010 hyphen, U+2011
non-breaking hyphen), the same word characters the tokenizer keeps."""

_HYPHENS = re.compile(r"[-\u2010\u2011]")


def joined_forms(text: str) -> list[str]:
    """Each hyphenated word of `text` with its hyphens removed, in order, unique."""
    return list(dict.fromkeys(_HYPHENS.sub("", m) for m in COMPOUND.findall(text)))


def search_text(text: str) -> str:
    """What the FTS index holds for `text` (see the module docstring)."""
    if not isinstance(text, str):
        return text
    if "-" not in text and "\u2010" not in text and "\u2011" not in text:
        return text
    joined = joined_forms(text)
    return f"{text}\n{' '.join(joined)}" if joined else text


def register(conn: sqlite3.Connection) -> None:
    """Make `cm_search_text` callable on `conn` (before migrations and writes)."""
    conn.create_function(SQL_NAME, 1, search_text, deterministic=True)
