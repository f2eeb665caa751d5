"""`core.settings`: a frozen settings dataclass checks every field when it is built."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from companion_memory.core.errors import InvalidInputError
from companion_memory.core.settings import (
    SettingsError,
    bounds,
    check_setting,
    setting,
    validate_settings,
)


@dataclass(frozen=True, slots=True)
class Inner:
    depth: int = setting(2, low=0, high=9)

    def __post_init__(self) -> None:
        validate_settings(self)


@dataclass(frozen=True, slots=True)
class Sample:
    count: int = setting(3, low=1, high=10, doc="how many")
    delay_s: float = setting(1.0, above=0.0, high=60.0)
    mode: str = setting("fast", choices=("fast", "slow"))
    name: str = setting("x")
    on: bool = setting(False)
    inner: Inner = field(default_factory=Inner)

    def __post_init__(self) -> None:
        validate_settings(self)


def test_defaults_build_and_ints_widen_to_float() -> None:
    assert Sample() == Sample(count=3, delay_s=1.0, mode="fast", name="x", on=False)
    widened = Sample(delay_s=5)
    assert widened.delay_s == 5.0 and isinstance(widened.delay_s, float)


@pytest.mark.parametrize(
    ("kwargs", "key", "words"),
    [
        ({"count": 0}, "count", ["count = 0 is out of range", "allowed from 1 to 10"]),
        ({"count": 11}, "count", ["count = 11", "from 1 to 10"]),
        ({"count": True}, "count", ["count = True is a boolean; it must be an integer"]),
        ({"count": 2.0}, "count", ["is a number; it must be an integer"]),
        ({"count": "3"}, "count", ["count = '3' is a string"]),
        ({"delay_s": 0.0}, "delay_s", ["out of range", "more than 0 to 60"]),
        ({"delay_s": float("nan")}, "delay_s", ["delay_s = nan is not a finite number"]),
        ({"delay_s": float("inf")}, "delay_s", ["inf is not a finite number"]),
        ({"delay_s": False}, "delay_s", ["is a boolean; it must be a number"]),
        ({"mode": "warp"}, "mode", ["mode = 'warp' is not allowed", "one of fast, slow"]),
        ({"name": 5}, "name", ["name = 5 is an integer; it must be a string"]),
        ({"on": 1}, "on", ["on = 1 is an integer; it must be a boolean"]),
        ({"inner": {"depth": 1}}, "inner", ["is a table; it must be an instance of Inner"]),
    ],
)
def test_a_bad_value_is_refused_naming_field_value_and_allowed(
        kwargs: dict[str, object], key: str, words: list[str]) -> None:
    with pytest.raises(SettingsError) as caught:
        Sample(**kwargs)  # type: ignore[arg-type]
    assert caught.value.key == key
    for word in words:
        assert word in str(caught.value)
    assert isinstance(caught.value, InvalidInputError) and isinstance(caught.value, ValueError)


def test_replace_and_nested_tables_are_checked_too() -> None:
    with pytest.raises(SettingsError, match="count = 99"):
        dataclasses.replace(Sample(), count=99)
    with pytest.raises(SettingsError) as caught:
        Inner(depth=10)
    assert caught.value.under("inner").describe("x.inner.depth").startswith("x.inner.depth = 10")
    assert caught.value.under("inner").key == "inner.depth"


def test_check_setting_applies_one_fields_rule_to_a_loose_value() -> None:
    assert check_setting(Sample, "count", 10) == 10
    assert check_setting(Sample, "delay_s", 2) == 2.0
    with pytest.raises(SettingsError, match="from 1 to 10"):
        check_setting(Sample, "count", 11)
    assert bounds(Sample, "count") == {"low": 1, "high": 10, "above": None, "choices": None}
    with pytest.raises(KeyError):
        bounds(Sample, "nope")
