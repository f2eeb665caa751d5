"""Text the grammar forces, so the decoder can feed it in one batch instead of sampling it.

A constrained answer to a schema like the notification contract is mostly fixed text:
the keys, the punctuation, an entry's constant anchor, the rest of an enum value once
its first letters are written. Sampling those tokens one by one costs a full decoding
step each (about 35 ms on a 0.5B model on two cores); evaluating them together as a
prompt batch costs a few milliseconds each. `Skeleton.of(schema)` turns a schema of the
supported shape into a sequence of fixed pieces and holes, and a `Cursor` follows the
generated text through it and says what must come next.

Supported: objects whose properties are all required, in the order written, with no
other properties; `const`; `enum` of JSON scalars; strings (their length and pattern are
left to the grammar). Anything else (arrays, optional properties, numbers, anyOf) gives
no skeleton, and the decoder samples every token as before. The forced text is the
compact JSON form (no whitespace), which the grammar always admits; the grammar still
checks every forced token before it is used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_LITERAL, _ENUM, _STRING = 0, 1, 2


@dataclass(frozen=True, slots=True)
class _Piece:
    kind: int
    text: str = ""  # _LITERAL: the fixed text
    options: tuple[str, ...] = ()  # _ENUM: each option's JSON text


class _Unsupported(Exception):
    pass


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _pieces(schema: Any, out: list[_Piece]) -> None:
    if not isinstance(schema, dict):
        raise _Unsupported
    if "const" in schema:
        out.append(_Piece(_LITERAL, _dump(schema["const"])))
        return
    if "enum" in schema:
        values = schema["enum"]
        if not values or not all(isinstance(v, (str, int, bool)) or v is None for v in values):
            raise _Unsupported
        out.append(_Piece(_ENUM, options=tuple(dict.fromkeys(_dump(v) for v in values))))
        return
    kind = schema.get("type")
    if kind == "string" and not {"enum", "const", "anyOf", "oneOf"} & schema.keys():
        out.append(_Piece(_LITERAL, '"'))
        out.append(_Piece(_STRING))
        return
    if kind == "object":
        properties = schema.get("properties") or {}
        if (schema.get("additionalProperties", True) is not False
                or list(schema.get("required") or []) != list(properties)):
            raise _Unsupported
        out.append(_Piece(_LITERAL, "{"))
        for index, (key, sub) in enumerate(properties.items()):
            out.append(_Piece(_LITERAL, ("," if index else "") + _dump(key) + ":"))
            _pieces(sub, out)
        out.append(_Piece(_LITERAL, "}"))
        return
    raise _Unsupported


class Skeleton:
    """The fixed pieces and holes of every answer a schema admits."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: tuple[_Piece, ...]) -> None:
        self.pieces = pieces

    @classmethod
    def of(cls, schema: dict[str, Any]) -> Skeleton | None:
        """The skeleton of `schema`, or None when its shape is not supported."""
        raw: list[_Piece] = []
        try:
            _pieces(schema, raw)
        except _Unsupported:
            return None
        merged: list[_Piece] = []
        for piece in raw:
            if piece.kind == _LITERAL and merged and merged[-1].kind == _LITERAL:
                merged[-1] = _Piece(_LITERAL, merged[-1].text + piece.text)
            else:
                merged.append(piece)
        return cls(tuple(merged))

    def cursor(self) -> Cursor:
        return Cursor(self.pieces)


class Cursor:
    """Where the text generated so far stands in a skeleton.

    `advance(text)` follows generated (or forced) text; `forced()` is the text that
    must come next; `done` is True once the whole answer is written. Text that leaves
    the skeleton (whitespace the grammar allows between tokens, say) makes the cursor
    `lost`: it then forces nothing more and the decoder samples as usual.
    """

    __slots__ = ("_escaped", "_index", "_offset", "_pieces", "_prefix", "lost")

    def __init__(self, pieces: tuple[_Piece, ...]) -> None:
        self._pieces = pieces
        self._index = 0
        self._offset = 0  # into a literal
        self._prefix = ""  # of an enum option
        self._escaped = False  # inside a string
        self.lost = False

    @property
    def done(self) -> bool:
        return not self.lost and self._index >= len(self._pieces)

    def _next(self) -> None:
        self._index += 1
        self._offset = 0
        self._prefix = ""
        self._escaped = False

    def _enum_closed(self, piece: _Piece) -> bool:
        """The enum prefix is a whole option that no other option continues."""
        prefix = self._prefix
        return prefix in piece.options and not any(
            o != prefix and o.startswith(prefix) for o in piece.options
        )

    def advance(self, text: str) -> None:
        for char in text:
            if self.lost or self._index >= len(self._pieces):
                self.lost = True
                return
            piece = self._pieces[self._index]
            if piece.kind == _LITERAL:
                if piece.text[self._offset] != char:
                    self.lost = True
                    return
                self._offset += 1
                if self._offset == len(piece.text):
                    self._next()
            elif piece.kind == _ENUM:
                self._prefix += char
                if not any(o.startswith(self._prefix) for o in piece.options):
                    self.lost = True
                    return
                if self._enum_closed(piece):
                    self._next()
            elif self._escaped:
                self._escaped = False
            elif char == "\\":
                self._escaped = True
            elif char == '"':
                self._next()

    def forced(self) -> str:
        """The text every admitted answer continues with from here ("" when free)."""
        if self.lost:
            return ""
        out: list[str] = []
        index, offset, prefix = self._index, self._offset, self._prefix
        while index < len(self._pieces):
            piece = self._pieces[index]
            if piece.kind == _LITERAL:
                out.append(piece.text[offset:])
            elif piece.kind == _ENUM:
                live = [o[len(prefix):] for o in piece.options if o.startswith(prefix)]
                common = _common_prefix(live)
                out.append(common)
                whole = prefix + common
                if whole not in piece.options or any(
                    o != whole and o.startswith(whole) for o in piece.options
                ):
                    break
            else:
                break
            index, offset, prefix = index + 1, 0, ""
        return "".join(out)


def _common_prefix(values: list[str]) -> str:
    if not values:
        return ""
    first, last = min(values), max(values)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]
