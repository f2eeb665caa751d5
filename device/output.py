"""Printing for the command line: text for people, JSON for scripts.

Notification text and memory text are untrusted: a title may carry an escape
sequence that recolours the terminal, rewrites its title (OSC), moves the cursor
to overwrite earlier lines, or a bidi override that shows text in another order.
Every text line goes through `terminal_safe`, which shows such characters as
visible escapes (`\\x1b`, `\\u202e`) instead of sending them to the terminal.
JSON output stays valid JSON with the same decoded strings: the encoder already
escapes C0 controls, and the characters it would send raw (DEL, C1 controls,
bidi controls, line separators) are written as `\\uXXXX` escapes.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Any

import orjson

# C0 controls except newline and tab, DEL, C1 controls, the bidi embedding, override
# and isolate controls, the marks that flip direction, line/paragraph separators,
# and lone surrogates (which cannot even be encoded to the terminal).
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff"
)
_UNSAFE_TEXT = re.compile(f"[{_UNSAFE}]")
_UNSAFE_LINE = re.compile(f"[{_UNSAFE}\n\t]")
# Inside encoded JSON these characters can only sit within strings, so replacing
# each by its \\u escape keeps the document valid and its meaning unchanged.
_UNSAFE_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str, *, one_line: bool = False) -> str:
    """`text` with every control or direction-changing character shown as an escape.

    Newlines and tabs are kept unless `one_line` (for a value that must stay on its
    own line, such as a memory's text or a notification title)."""
    pattern = _UNSAFE_LINE if one_line else _UNSAFE_TEXT
    return pattern.sub(_escape, text)


def _json_safe(encoded: bytes) -> str:
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded.decode("utf-8"))


def print_json(data: Any) -> None:
    """One JSON document, indented, on stdout."""
    sys.stdout.write(_json_safe(orjson.dumps(data, default=str, option=orjson.OPT_INDENT_2))
                     + "\n")
    sys.stdout.flush()


def print_jsonl(rows: Iterable[Any]) -> None:
    """One compact JSON object per line on stdout."""
    out = sys.stdout
    for row in rows:
        out.write(_json_safe(orjson.dumps(row, default=str)) + "\n")
    out.flush()


def say(text: str = "") -> None:
    """One or more lines of text for people on stdout (escaped for the terminal)."""
    print(terminal_safe(text), file=sys.stdout)


def warn(text: str) -> None:
    """One line for people on stderr (escaped for the terminal, kept on one line)."""
    print(terminal_safe(" ".join(text.split()), one_line=True), file=sys.stderr)


def print_round(data: dict[str, Any]) -> None:
    say(f"round started {data['started_at']}, {data['elapsed_s']:.3f} s, "
        f"{data['model_calls']} model call(s)" + (", cancelled" if data["cancelled"] else ""))
    for p in data["processors"]:
        parts = [f"{k} {p[k]}" for k in ("consumed", "analyzed", "applied", "pending", "gaps",
                                         "model_calls") if p.get(k)]
        for k in ("filtered", "proposals", "rejected"):
            if p.get(k):
                parts.append(f"{k} " + ", ".join(f"{r}={n}" for r, n in sorted(p[k].items())))
        kept = p.get("applied") or 0
        if kept and (p.get("prompt_tokens") or p.get("completion_tokens")):
            # what each kept item cost the model (a language model; the offline one has 0)
            parts.append(
                f"per kept {p.get('prompt_tokens', 0) / kept:,.0f} prompt + "
                f"{p.get('completion_tokens', 0) / kept:,.0f} completion tokens, "
                f"{p.get('model_s', 0.0) / kept:.2f} model s"
            )
        if p.get("error"):
            parts.append(f"error {p['error']}")
        extra = p.get("extra") or {}
        if "level" in extra:
            parts.append(f"storage level {extra['level']}")
        dates = extra.get("dates") or []  # the sweep's days: say which ran, even empty ones
        if dates:
            parts.append("dates " + ", ".join(
                f"{d.get('local_date')} {d.get('status')}" for d in dates if isinstance(d, dict)))
        say(f"  {p['processor']:<14} " + ("; ".join(parts) if parts else "nothing to do"))
