"""A message that corrects a number in an earlier memory, found without a model.

"die Hausnummer ist 27, nicht 72", "the party starts at 8, not 7", "c'est le 12, pas le
21", "binario 5, non 3": the sender fixes one value of something said before. When
the old value appears exactly once in exactly one of the item's related memories,
`correction` returns that memory and its statement with the value replaced ("Nina's new
address is Kopenhagener Str. 27"), which the fallback proposes as an update, so the
corrected statement replaces the wrong one instead of standing beside it.

Only values with a digit are corrected (house numbers, times, dates, platforms, gates):
a word on its own ("Tuesday, not Monday") may carry more with it (the date written
next to it) than one token can fix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_VALUE = r"[\w:./-]*\d[\w:./-]*"
_CORRECTED = re.compile(
    rf"(?<![\w:./-])(?P<new>{_VALUE}),?\s+(?:and\s+)?(?:not|nicht|pas|non|no|niet|statt|anstatt"
    r"|instead\s+of|au\s+lieu\s+de|invece\s+di|en\s+vez\s+de|in\s+plaats\s+van)"
    rf"(?:\s+(?:the|der|die|das|le|la|les|il|lo|el|los|las|de|het|um|at|à|alle|a\s+las))?"
    rf"\s+(?P<old>{_VALUE})(?![\w:/-])",
    re.IGNORECASE,
)


def _token(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w:./-]){re.escape(value)}(?![\w:/-]|\.\d)")


def correction(body: str, related: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], str] | None:
    """The related memory `body` corrects and its corrected statement, or None.

    `related` are the payload's related records ("text", "id", "rev"); the first
    "NEW, not OLD" in `body` whose OLD is in exactly one of them, once, is used."""
    for match in _CORRECTED.finditer(body):
        new, old = match.group("new").rstrip("."), match.group("old").rstrip(".")
        if new == old:
            continue
        pattern = _token(old)
        hits = [r for r in related if len(pattern.findall(str(r.get("text", "")))) == 1]
        others = [r for r in related if r not in hits and pattern.search(str(r.get("text", "")))]
        if len(hits) != 1 or others:
            continue
        record = hits[0]
        return record, pattern.sub(new, str(record["text"]), count=1)
    return None
