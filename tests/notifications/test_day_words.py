"""The per-locale day and month words (`agent.notifications.day_words`) are whole and
consistent: every table names each weekday and month once per slot, in range, in lower
case, and no word means two things across locales."""

from __future__ import annotations

from datetime import date

import pytest

from companion_memory.agent.notifications.dates import day_mentions
from companion_memory.agent.notifications.day_words import LOCALES, LocaleWords, key

WEDNESDAY = date(2026, 3, 18)


@pytest.mark.parametrize("code", sorted(LOCALES))
def test_every_table_is_whole(code: str) -> None:
    words = LOCALES[code]
    assert isinstance(words, LocaleWords)
    assert set(words.weekdays.values()) == set(range(7)), "each weekday named"
    assert set(words.relative.values()) <= {0, 1, 2} and 0 in words.relative.values()
    assert 1 in words.relative.values(), "tomorrow named"
    if words.months:
        assert set(words.months.values()) == set(range(1, 13)), "each month named"
    for word in [*words.relative, *words.weekdays, *words.months, *words.next,
                 *words.next_week, *words.every]:
        assert word == word.casefold() == word.strip() and word, (code, word)


def test_no_word_means_two_things_across_locales() -> None:
    for field in ("relative", "weekdays", "months"):
        seen: dict[str, tuple[str, int]] = {}
        for code, words in LOCALES.items():
            for word, value in getattr(words, field).items():
                if word in seen:
                    assert seen[word][1] == value, (field, word, seen[word], code)
                seen[word] = (code, value)
    day_words = {w for words in LOCALES.values() for w in [*words.relative, *words.weekdays]}
    months = {w for words in LOCALES.values() for w in words.months}
    assert not day_words & months


@pytest.mark.parametrize("code", sorted(LOCALES))
def test_every_locale_word_is_found_in_a_sentence(code: str) -> None:
    """Each word of the table is recognized by `dates.py` as written there."""
    words = LOCALES[code]
    for word, offset in words.relative.items():
        found = day_mentions(f"x {word} 10:00", WEDNESDAY)
        assert [m.day for m in found] == [date(2026, 3, 18 + offset)], (code, word)
    for word, weekday in words.weekdays.items():
        found = day_mentions(f"x {word} 10:00", WEDNESDAY)
        assert [m.day.weekday() for m in found] == [weekday], (code, word)
        assert found[0].day >= WEDNESDAY
    for word, month in words.months.items():
        found = day_mentions(f"x 14 {word} 10:00", WEDNESDAY)
        assert [(m.day.month, m.day.day) for m in found] == [(month, 14)], (code, word)


def test_a_word_is_looked_up_whatever_its_case_turkish_i_included() -> None:
    assert key("YARIN") == key("yarın") == key("Yarın") == "yarin"
    assert key("İSTANBUL") == key("istanbul")
    assert [m.day for m in day_mentions("YARIN saat 10", WEDNESDAY)] == [date(2026, 3, 19)]
