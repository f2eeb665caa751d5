"""Day words and dates in a notification, and the dates they name.

A memory that says "tomorrow 10:00" is wrong the next day. `day_mentions` finds the
words that name a day relative to when the notification was posted ("today",
"tomorrow", "morgen", "Donnerstag", "next Tuesday", "jutro", "yarın", "明日", "내일",
"下周一") in the locales of `agent.notifications.day_words` (the words are data there,
this module is the logic), and resolves each to a calendar date from the
notification's local date; `with_dates` writes that date next to the word ("tomorrow
(Wed 2 Dec)"), so the statement stays true when it is read later. A weekday name means
its next occurrence (today's name means today); "next"/"nächsten" before it means the
same occurrence, a week on when it is today; 下周/来週/다음 주 before it mean that day of
the next calendar week; "every Thursday" names a habit and no date.
A German "morgen" directly after a day word ("Freitag morgen", "heute Morgen") or an
article or greeting ("am Morgen", "Guten Morgen") is the morning, not tomorrow.

Explicit dates are found too, in their numeric and written forms: 22.03. and
22.03.2026, 22/03 (03/22 where only that reading is a date), 2026-03-22, 3月22日 and
2026年3月22日, 3월 22일, "22 marca", "22. März", "March 22nd", "22 de marzo". A date
without a year is the occurrence nearest the posting day. A text that holds an explicit
date and a weekday word gets the date: the weekday is not guessed ("Freitag, 22.03."
names the 22nd, whatever Friday comes next).

`has_day_word` is the cheap question the noise filter asks: does a short message
name a day at all (then it may carry a plan and is kept).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from companion_memory.agent.notifications.day_words import LOCALES, key

_RELATIVE = {key(w): n for words in LOCALES.values() for w, n in words.relative.items()}
_WEEKDAYS = {key(w): n for words in LOCALES.values() for w, n in words.weekdays.items()}
_MONTHS = {key(w): n for words in LOCALES.values() for w, n in words.months.items()}
_HAN_KANA = re.compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")


def _alternation(words: Iterable[str]) -> str:
    """A regex that matches any of `words` (case aside), each with the word boundaries its
    script needs: none for Chinese and Japanese (written without spaces between words),
    a word start for Korean (particles follow a word: 내일은), a whole word otherwise. A
    space in a word matches any run of white space. The words are laid out as a trie, so
    a position that starts no word costs one character test, not one per word."""
    unique = set(words)
    han = [w for w in unique if _HAN_KANA.match(w)]
    hangul = [w for w in unique if _HANGUL.match(w)]
    spaced = [w for w in unique if w not in han and w not in hangul]
    firsts = "".join(sorted({ch for w in unique for ch in (w[0], w[0].upper())}))
    parts = []
    if spaced:
        parts.append(rf"(?<![\w-])(?:{_trie(spaced)})(?![\w-])")
    if hangul:
        parts.append(rf"(?<![\w-])(?:{_trie(hangul)})")
    if han:
        parts.append(_trie(han))
    # a lookahead of the words' first letters: most positions fail on one test
    return f"(?=[{re.escape(firsts)}])(?:{'|'.join(parts)})" if parts else "(?!)"


def _trie(words: Iterable[str]) -> str:
    """A regex of `words` as a trie (longer words first where one is a prefix of another)."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in " ".join(word.split()):
            node = node.setdefault(ch, {})
        node[""] = {}
    return _node(root)


def _node(node: dict[str, Any]) -> str:
    """The regex of a trie node: its branches, optional where a word ends at the node."""
    branches = [
        (r"\s+" if ch == " " else re.escape(ch)) + _node(child)
        for ch, child in sorted(node.items()) if ch
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
    return f"(?:{body})?" if "" in node else body


def _all(field: str) -> list[str]:
    """The words of one field of every locale."""
    return [w for words in LOCALES.values() for w in getattr(words, field)]


_WORDS = {*_all("relative"), *_all("weekdays")}
_DAY = re.compile(
    rf"(?:(?P<next>{_alternation(_all('next'))})\s+"
    rf"|(?P<week>{_alternation(_all('next_week'))})\s*)?"
    rf"(?P<word>{_alternation(_WORDS)})",
    re.IGNORECASE,
)
_EVERY = re.compile(rf"(?:{_alternation(_all('every'))})\s*$", re.IGNORECASE)
_POSSESSIVE = re.compile(r"'s\b")
_MORNING_NOUN = re.compile(
    r"(?<![\w-])(?:guten|am|den|diesen|jeden|einen|schönen|schoenen|good)\s+$", re.IGNORECASE
)
_AFTER_DAY_MORNING = re.compile(
    rf"(?:{_alternation(w for w in _WORDS if w != 'morgen')})\s+$", re.IGNORECASE
)
_ENGLISH_WEEKDAYS = frozenset(LOCALES["en"].weekdays)
_WEEKDAY_SHORT = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTH_SHORT = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                "Dec")

_MONTH_WORD = _alternation(_MONTHS)
_YEAR = r"(?P<y>\d{4})"
_DATES = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    # 2026-03-22, 2026/3/22
    r"(?<![\d.\-/])(?P<y>\d{4})([\-/.])(?P<m>\d{1,2})\2(?P<d>\d{1,2})(?![\d\-/])",
    # 2026年3月22日, 3月22日, 3月22号
    r"(?:(?P<y>\d{4})\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号號]",
    # 2026년 3월 22일, 3월 22일
    r"(?:(?P<y>\d{4})\s*년\s*)?(?P<m>\d{1,2})\s*월\s*(?P<d>\d{1,2})\s*일",
    # 22.03., 22.3.2026, 22.03.26 (a version number 1.2.3 is none)
    r"(?<![\d.])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?:(?P<y>\d{4}|\d{2})(?![\d.])|(?!\d))",
    # 22/03, 22/03/2026, 03/22 (month first only where day first is no date)
    r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\d/])",
    # 22 marca, 22. März, 22nd of March, 22 de marzo, 1er mars, 22 mart 2026
    rf"(?<![\d.,:])(?P<d>\d{{1,2}})(?:\.|st|nd|rd|th|er|º)?\s*(?:de\s+|of\s+)?"
    rf"(?P<mon>{_MONTH_WORD})\.?(?:,?\s+{_YEAR}(?!\d))?",
    # March 22, March 22nd, 2026
    rf"(?P<mon>{_MONTH_WORD})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:.,]\d)(?!\d)"
    rf"(?:,?\s+{_YEAR}(?!\d))?",
))
"""Explicit dates (see the module docstring); `_explicit_dates` reads the groups."""
_DIGIT = re.compile(r"\d")
_LEAP_DAY = date(2024, 7, 1)
"""A posting day for asking whether a text holds a date at all (29 February is one)."""


@dataclass(frozen=True, slots=True)
class DayMention:
    """A day word or an explicit date at `start:end` of the text and the date it names;
    `explicit` for a date written out (which `with_dates` leaves as it is)."""

    start: int
    end: int
    day: date
    explicit: bool = False


def day_mentions(text: str, posted: date) -> list[DayMention]:
    """Every day word and explicit date in `text`, in order, resolved from `posted`, the
    notification's local date. When the text holds an explicit date, its weekday words
    are not resolved (the date is what it names)."""
    dates = _explicit_dates(text, posted)
    out: list[DayMention] = list(dates)
    for match in _DAY.finditer(text):
        if any(d.start < match.end() and match.start() < d.end for d in dates):
            continue  # inside a written date
        word = key(" ".join(match.group("word").split()))
        if _EVERY.search(text[: match.start()]):
            continue  # "every Thursday", "jeden Montag", 每周一: a habit, not a day
        if _is_morning(text, match):
            continue  # "Freitag morgen", "heute Morgen", "Guten Morgen": a morning
        if word in _RELATIVE:
            if match.group("next") or match.group("week"):
                continue  # "nächsten Morgen" and the like name no day
            out.append(DayMention(match.start(), match.end(),
                                  posted + timedelta(days=_RELATIVE[word])))
            continue
        if dates:
            continue  # "Freitag, 22.03.": the written date, not a guessed Friday
        weekday = _WEEKDAYS[word]
        if match.group("week"):  # 下周一, 来週の月曜日: that day of the next calendar week
            monday = posted - timedelta(days=posted.weekday()) + timedelta(days=7)
            out.append(DayMention(match.start(), match.end(), monday + timedelta(days=weekday)))
            continue
        ahead = (weekday - posted.weekday()) % 7
        if match.group("next") and ahead == 0:
            ahead = 7
        out.append(DayMention(match.start(), match.end(), posted + timedelta(days=ahead)))
    return sorted(out, key=lambda m: m.start)


def _explicit_dates(text: str, posted: date) -> list[DayMention]:
    """The written dates of `text` (`_DATES`), first found first where two overlap."""
    found: list[DayMention] = []
    if _DIGIT.search(text) is None:
        return found  # every written date has a number
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if any(m.start < match.end() and match.start() < m.end for m in found):
                continue
            day = _date_of(match, posted)
            if day is not None:
                found.append(DayMention(match.start(), match.end(), day, explicit=True))
    return sorted(found, key=lambda m: m.start)


def _date_of(match: re.Match[str], posted: date) -> date | None:
    """The date a `_DATES` match names, or None when it names none (a 31 February; a
    slashed pair without a year unless both numbers have two digits: 1/2, 24/7)."""
    groups = match.groupdict()
    year = groups.get("y")
    if groups.get("a") is not None:
        first, second = int(groups["a"]), int(groups["b"])
        if first > 12 >= second or (second <= 12 and first <= 12):
            day_text, month_text = groups["a"], groups["b"]  # day first, as 22/03
        elif first <= 12 < second:
            day_text, month_text = groups["b"], groups["a"]  # month first, as 03/22
        else:
            return None
        if year is None and (len(day_text) < 2 or len(month_text) < 2):
            return None  # 1/2, 9/10, 24/7: a fraction, a score, a slogan
        day_number, month = int(day_text), int(month_text)
    elif groups.get("mon") is not None:
        day_number, month = int(groups["d"]), _MONTHS[key(groups["mon"])]
    else:
        day_number, month = int(groups["d"]), int(groups["m"])
    if year is not None:
        full = int(year) + (2000 if len(year) == 2 else 0)
        try:
            return date(full, month, day_number)
        except ValueError:
            return None
    nearest: date | None = None
    for candidate_year in (posted.year - 1, posted.year, posted.year + 1):
        try:
            candidate = date(candidate_year, month, day_number)
        except ValueError:
            continue
        if nearest is None or abs((candidate - posted).days) < abs((nearest - posted).days):
            nearest = candidate
    return nearest


def short_date(day: date) -> str:
    """"Wed 2 Dec": the weekday, the day and the month, as a person writes a near date."""
    return f"{_WEEKDAY_SHORT[day.weekday()]} {day.day} {_MONTH_SHORT[day.month - 1]}"


def with_dates(text: str, posted: date) -> str:
    """`text` with the date written after every day word: "tomorrow (Wed 2 Dec)",
    "Donnerstag (Thu 3 Dec)", and an English weekday as a person writes it, "Saturday 5
    Dec". A written date is left as it is."""
    out: list[str] = []
    last = 0
    for mention in day_mentions(text, posted):
        if mention.explicit:
            continue
        word = key(text[mention.start : mention.end].split()[-1])
        end = mention.end
        possessive = _POSSESSIVE.match(text, end)
        if possessive is not None:  # "tomorrow's appointment": the date after the "'s"
            end = possessive.end()
        out.append(text[last:end])
        if word in _ENGLISH_WEEKDAYS:
            out.append(f" {mention.day.day} {_MONTH_SHORT[mention.day.month - 1]}")
        else:
            out.append(f" ({short_date(mention.day)})")
        last = end
    out.append(text[last:])
    return "".join(out)


def has_day_word(text: str) -> bool:
    """Whether `text` names a day ("tomorrow", "Freitag", "stasera", "22.03."), a habit
    ("every Thursday") included; "am Morgen" names none."""
    if any(not _is_morning(text, match) for match in _DAY.finditer(text)):
        return True
    return bool(_explicit_dates(text, _LEAP_DAY))


def _is_morning(text: str, match: re.Match[str]) -> bool:
    """Whether a matched "morgen" is the German morning, not tomorrow."""
    if match.group("word").casefold() != "morgen":
        return False
    before = text[: match.start("word")]
    return bool(_AFTER_DAY_MORNING.search(before) or _MORNING_NOUN.search(before))


def aware_time(value: Any) -> datetime | None:
    """An RFC 3339 / ISO time with an offset, or None for anything else (a payload's
    `local`, a proposal's `end`)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
