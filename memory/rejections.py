"""What an owner's rejection keeps: a fingerprint to match, a gist to show, nothing else.

A forgotten memory may be forgotten precisely because it held a secret (a code,
a password, a card number). Its text is therefore never kept: the rejection
keeps

- a fingerprint of the normalized text with its secret values redacted, so that
  `save_memory` and every processor still recognise the same text (and the same
  message with another code in it) as rejected, while the stored digest cannot
  be searched back to the secret: the secret is not part of what is hashed;
- a gist for prompts: the text with every secret value redacted and every
  remaining key-like token (20 or more letters, digits and symbols, with both
  letters and digits) masked too, since a token the detector does not know is
  most likely a key or a token of that shape. Ordinary numbers (times, dates,
  amounts) stay: they are what tells one rejected memory from another.

`scrub(text, needles)` removes the secret values and the forgotten text from any
other text the store holds (staged model outputs, other memories).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterable

import orjson

from companion_memory.memory.records import normalize_text
from companion_memory.memory.secrets import REDACTED, normalize_digits, redact, secret_spans

GIST_CHARS = 180
"""At most this many characters of a gist (the prompt shows no more)."""

MIN_NEEDLE_CHARS = 4
"""Secret values shorter than this are not searched for elsewhere (they would match
ordinary words and numbers)."""

_PERSON = b"cm-rejection-v1"
_KEY_LIKE = re.compile(r"(?=[A-Za-z0-9_+/=.-]*\d)(?=[A-Za-z0-9_+/=.-]*[A-Za-z])"
                       r"[A-Za-z0-9_+/=.-]{20,}")


def fingerprint(norm: str) -> str:
    """The digest a rejection is matched by, from `normalize_text(text)`."""
    digest = hashlib.blake2b(redact(norm).encode("utf-8"), digest_size=16, person=_PERSON)
    return digest.hexdigest()


def gist(text: str) -> str:
    """The text a prompt may show for a rejection: secrets redacted, key-like tokens masked."""
    masked = _KEY_LIKE.sub(REDACTED, redact(" ".join(str(text).split())))
    masked = re.sub(rf"(?:{re.escape(REDACTED)}\s*)+", REDACTED + " ", masked).strip()
    return masked if len(masked) <= GIST_CHARS else masked[: GIST_CHARS - 1].rstrip() + "…"


def secret_values(*texts: str) -> list[str]:
    """The secret values found in `texts` that are long enough to search for, longest first."""
    found: set[str] = set()
    for text in texts:
        for start, end, _ in secret_spans(text):
            value = text[start:end].strip()
            found.update((value, normalize_digits(value)))  # "318-774" is stored as "318774" too
    return sorted((v for v in found if len(v) >= MIN_NEEDLE_CHARS), key=len, reverse=True)


def scrub(text: str, needles: Iterable[str]) -> str:
    """`text` with every needle (and its JSON-escaped form) replaced by the redaction mark."""
    out = text
    for needle in needles:
        if not needle:
            continue
        escaped = orjson.dumps(needle).decode("utf-8")[1:-1]
        for form in dict.fromkeys((needle, escaped)):
            out = out.replace(form, REDACTED)
    return out


def holds_any(text: str, needles: Iterable[str]) -> bool:
    return any(needle and needle in text for needle in needles) or any(
        needle and orjson.dumps(needle).decode("utf-8")[1:-1] in text for needle in needles
    )


def register(conn: sqlite3.Connection) -> None:
    """The SQL functions the rejection migration calls (converting rows written before)."""
    conn.create_function("cm_rejection_fingerprint", 1, fingerprint, deterministic=True)
    conn.create_function("cm_rejection_gist", 1, gist, deterministic=True)
    conn.create_function("cm_redact", 1, redact, deterministic=True)
    conn.create_function("cm_normalize_text", 1, normalize_text, deterministic=True)


_IDENTIFIER_KEY = re.compile(r"(?:^|_)(?:ids?|digest|sources?)$")
"""Keys whose values are identifiers or digests, never memory text: left as they are."""


def scrub_json(document: str, needles: Iterable[str], *, drop_from: str | None = None) -> str:
    """A JSON document with `scrub` applied to every string value (keys kept, identifier
    and digest values kept), serialized with sorted keys; unchanged when nothing matched.

    `drop_from`: the top-level list whose entries are removed whole when they hold a
    needle (staged proposals, whose entries carry their own digests and must be either
    intact or gone). A document that is not JSON is scrubbed as text."""
    wanted = [n for n in needles if n]
    if not holds_any(document, wanted):
        return document
    try:
        value = orjson.loads(document)
    except orjson.JSONDecodeError:
        return scrub(document, wanted)
    if drop_from is not None and isinstance(value, dict) and isinstance(
        value.get(drop_from), list
    ):
        value[drop_from] = [
            entry for entry in value[drop_from]
            if not holds_any(orjson.dumps(entry).decode("utf-8"), wanted)
        ]

    def walk(node: object, key: str = "") -> object:
        if isinstance(node, str):
            return node if _IDENTIFIER_KEY.search(key) else scrub(node, wanted)
        if isinstance(node, list):
            return [walk(item, key) for item in node]
        if isinstance(node, dict):
            return {k: walk(v, str(k)) for k, v in node.items()}
        return node

    return orjson.dumps(walk(value), option=orjson.OPT_SORT_KEYS).decode("utf-8")
