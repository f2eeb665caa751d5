"""Frozen settings objects that check themselves when they are built.

Each component owns one frozen dataclass of its settings, declares every field
with `setting(default, low=..., high=..., above=..., choices=..., doc=...)` and
calls `validate_settings(self)` from `__post_init__` (followed by its own
cross-field rules). A bad value raises `SettingsError` at construction, however
the object was made (a TOML file, code, `dataclasses.replace`):

    @dataclass(frozen=True, slots=True)
    class SweepSettings:
        max_candidates: int = setting(32, low=1, high=32, doc="proposals kept per day")

        def __post_init__(self) -> None:
            validate_settings(self)

The field's type is the type of its default: a bool field takes only bools, an
int field only ints (a bool is not an int here), a float field ints or floats
(stored as float), a str field only strings. NaN and the infinities are refused
by name before any range test (NaN compares false with everything). A field whose
default factory is a settings class (a nested table, declared with
`field(default_factory=TheSettings)`) must hold an instance of that class.
`check_setting(cls, name, value)` applies one field's rule to a loose value, so a
component that also takes keyword arguments checks them against the same bounds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, Field, field, fields, is_dataclass
from typing import Any

from companion_memory.core.errors import InvalidInputError

_VALUE_SHOWN_CHARS = 120


class SettingsError(InvalidInputError):
    """A setting is not allowed. `key` is the field's name (dotted for a nested table,
    e.g. `llama.n_ctx`), `value` the bad value and `allowed` what would be accepted;
    the message names all three."""

    code = "invalid_setting"

    def __init__(self, key: str, value: object, allowed: str, *,
                 problem: str = "is not allowed", sentence: str | None = None) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        self.problem = problem
        self._sentence = sentence or f"{{key}} = {shown(value)} {problem}; allowed {allowed}"
        super().__init__(self.describe(key))

    def describe(self, key: str) -> str:
        """The message with `key` in place of the field name (e.g. the dotted TOML key)."""
        return self._sentence.replace("{key}", key)

    def under(self, prefix: str) -> SettingsError:
        """The same error for the field of a nested table `prefix` (`llama` + `n_ctx`)."""
        return SettingsError(f"{prefix}.{self.key}", self.value, self.allowed,
                             problem=self.problem, sentence=self._sentence)


def shown(value: object) -> str:
    """`repr(value)`, cut short (a setting is never content, but a wrong one may be long)."""
    text = repr(value)
    if len(text) > _VALUE_SHOWN_CHARS:
        text = text[: _VALUE_SHOWN_CHARS - 3] + "..."
    return text


def setting(default: Any, *, low: float | None = None, high: float | None = None,
            above: float | None = None, choices: tuple[str, ...] | None = None,
            doc: str = "") -> Any:
    """A settings field: `low`..`high` inclusive, or more than `above` (a duration of
    zero would make a loop spin or a wait never end), or one of `choices`."""
    if low is not None and above is not None:
        raise InvalidInputError("a setting has `low` or `above`, not both")
    meta = {"low": low, "high": high, "above": above, "choices": choices, "doc": doc}
    return field(default=default, metadata=meta)


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            dict: "a table"}.get(type(value), type(value).__name__)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def allowed_range(meta: Mapping[str, Any]) -> str:
    """`from 1 to 32`, `more than 0 to 86400`, ... for a numeric field's metadata."""
    low, high, above = meta.get("low"), meta.get("high"), meta.get("above")
    if above is not None:
        start = f"more than {_num(above)}"
    elif low is not None:
        start = f"from {_num(low)}"
    else:
        start = "any finite number"
    return f"{start} to {_num(high)}" if high is not None else start


def _default_of(f: Field[Any]) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return None


def _check(f: Field[Any], value: Any) -> Any:
    """`value` as the field stores it (an int widened to float), or SettingsError."""
    default = _default_of(f)
    if is_dataclass(default):
        if not isinstance(value, type(default)):
            want_name = f"an instance of {type(default).__name__}"
            raise SettingsError(
                f.name, value, want_name, problem=f"is {_type_name(value)}",
                sentence=f"{{key}} = {shown(value)} is {_type_name(value)}; it must be {want_name}",
            )
        return value
    want: type[Any] = type(default)
    is_bool = isinstance(value, bool)
    if want is bool:
        ok = is_bool
    elif want is int:
        ok = isinstance(value, int) and not is_bool
    elif want is float:
        ok = isinstance(value, int | float) and not is_bool
        value = float(value) if ok else value
    elif want is str:
        ok = isinstance(value, str)
    else:  # a field this module does not type (None default): its class checks it
        return value
    meta = f.metadata
    if not ok:
        want_name = _type_name(default)
        raise SettingsError(
            f.name, value, want_name, problem=f"is {_type_name(value)}",
            sentence=f"{{key}} = {shown(value)} is {_type_name(value)}; it must be {want_name}",
        )
    choices = meta.get("choices")
    if choices and value not in choices:
        raise SettingsError(f.name, value, f"one of {', '.join(choices)}")
    if want in (int, float):
        allowed = allowed_range(meta)
        if not math.isfinite(value):
            raise SettingsError(f.name, value, allowed, problem="is not a finite number")
        low, high, above = meta.get("low"), meta.get("high"), meta.get("above")
        if ((low is not None and value < low) or (above is not None and value <= above)
                or (high is not None and value > high)):
            raise SettingsError(f.name, value, allowed, problem="is out of range")
    return value


def validate_settings(obj: Any) -> None:
    """Check every field of the frozen settings dataclass `obj` (call it from
    `__post_init__`); raise `SettingsError` naming the first bad field."""
    for f in fields(obj):
        if f.metadata.get("internal"):
            continue
        value = getattr(obj, f.name)
        checked = _check(f, value)
        if checked is not value:
            object.__setattr__(obj, f.name, checked)  # frozen: widen int -> float once


def settings_field(cls: type[Any], name: str) -> Field[Any]:
    """The field `name` of the settings class `cls` (its default and bounds)."""
    for f in fields(cls):
        if f.name == name:
            return f
    raise KeyError(f"{cls.__name__} has no setting {name!r}")


def check_setting(cls: type[Any], name: str, value: Any) -> Any:
    """Apply the rule of `cls`'s field `name` to a loose `value` (a keyword argument);
    returns the value as the field would store it, or raises `SettingsError`."""
    return _check(settings_field(cls, name), value)


def bounds(cls: type[Any], name: str) -> dict[str, Any]:
    """The bounds and choices of `cls`'s field `name` (`low`, `high`, `above`, `choices`)."""
    meta = settings_field(cls, name).metadata
    return {k: meta.get(k) for k in ("low", "high", "above", "choices")}
