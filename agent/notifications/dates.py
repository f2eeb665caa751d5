"""Day words in a notification, and the dates they name.

A memory that says "tomorrow 10:00" is wrong the next day. `day_mentions` finds the
words that name a day relative to when the notification was posted ("today",
"tomorrow", "morgen", "Donnerstag", "next Tuesday", "demain", "domani", "mañana",
"overmorgen") in English, German, French, Italian, Spanish and Dutch, and resolves
each to a calendar date from the notification's local date; `with_dates` writes that
date next to the word ("tomorrow (Wed 2 Dec)"), so the statement stays true when it
is read later. A weekday name means its next occurrence (today's name means today);
"next"/"nächsten" before it means the same occurrence, a week on when it is today;
"every Thursday" names a habit and no date.
A German "morgen" directly after a day word ("Freitag morgen", "heute Morgen") or an
article or greeting ("am Morgen", "Guten Morgen") is the morning, not tomorrow.

`has_day_word` is the cheap question the noise filter asks: does a short message
name a day at all (then it may carry a plan and is kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

_RELATIVE = {
    # today
    "today": 0, "tonight": 0, "heute": 0, "heut": 0, "aujourd'hui": 0, "ce soir": 0,
    "oggi": 0, "stasera": 0, "hoy": 0, "esta noche": 0, "vandaag": 0, "vanavond": 0,
    # tomorrow
    "tomorrow": 1, "tmrw": 1, "morgen": 1, "demain": 1, "domani": 1, "mañana": 1,
    # the day after tomorrow
    "day after tomorrow": 2, "übermorgen": 2, "après-demain": 2, "dopodomani": 2,
    "pasado mañana": 2, "overmorgen": 2,
}
_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6,
    "montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4, "samstag": 5,
    "sonnabend": 5, "sonntag": 6,
    "lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5,
    "dimanche": 6,
    "lunedì": 0, "martedì": 1, "mercoledì": 2, "giovedì": 3, "venerdì": 4, "sabato": 5,
    "domenica": 6,
    "lunes": 0, "martes": 1, "miércoles": 2, "jueves": 3, "viernes": 4, "sábado": 5,
    "domingo": 6,
    "maandag": 0, "dinsdag": 1, "woensdag": 2, "donderdag": 3, "vrijdag": 4, "zaterdag": 5,
    "zondag": 6,
}
_NEXT = r"(?:next|nächsten|nächste|kommenden|kommende|prochain|prossimo|próximo|volgende)"
_WORDS = sorted([*_RELATIVE, *_WEEKDAYS], key=len, reverse=True)
_DAY = re.compile(
    rf"(?<![\w-])(?:(?P<next>{_NEXT})\s+)?(?P<word>{'|'.join(re.escape(w) for w in _WORDS)})"
    r"(?![\w-])",
    re.IGNORECASE,
)
_EVERY = re.compile(
    r"(?:every|each|jeden|jede|immer|chaque|tous les|ogni|cada|todos los|elke|iedere)\s+$",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"'s\b")
_MORNING_NOUN = re.compile(
    r"(?<![\w-])(?:guten|am|den|diesen|jeden|einen|schönen|schoenen|good)\s+$", re.IGNORECASE
)
_AFTER_DAY_MORNING = re.compile(
    rf"(?:{'|'.join(re.escape(w) for w in _WORDS if w != 'morgen')})\s+$", re.IGNORECASE
)
_ENGLISH_WEEKDAYS = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)
_WEEKDAY_SHORT = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTH_SHORT = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                "Dec")


@dataclass(frozen=True, slots=True)
class DayMention:
    """A day word at `start:end` of the text and the date it names."""

    start: int
    end: int
    day: date


def day_mentions(text: str, posted: date) -> list[DayMention]:
    """Every day word in `text`, resolved from `posted`, the notification's local date."""
    out: list[DayMention] = []
    for match in _DAY.finditer(text):
        word = match.group("word").casefold()
        if _EVERY.search(text[: match.start()]):
            continue  # "every Thursday", "jeden Montag": a habit, not a day
        if _is_morning(text, match):
            continue  # "Freitag morgen", "heute Morgen", "Guten Morgen": a morning
        if word in _RELATIVE:
            if match.group("next"):
                continue  # "nächsten Morgen" and the like name no day
            out.append(DayMention(match.start(), match.end(),
                                  posted + timedelta(days=_RELATIVE[word])))
            continue
        ahead = (_WEEKDAYS[word] - posted.weekday()) % 7
        if match.group("next") and ahead == 0:
            ahead = 7
        out.append(DayMention(match.start(), match.end(), posted + timedelta(days=ahead)))
    return out


def short_date(day: date) -> str:
    """"Wed 2 Dec": the weekday, the day and the month, as a person writes a near date."""
    return f"{_WEEKDAY_SHORT[day.weekday()]} {day.day} {_MONTH_SHORT[day.month - 1]}"


def with_dates(text: str, posted: date) -> str:
    """`text` with the date written after every day word: "tomorrow (Wed 2 Dec)",
    "Donnerstag (Thu 3 Dec)", and an English weekday as a person writes it, "Saturday 5
    Dec"."""
    out: list[str] = []
    last = 0
    for mention in day_mentions(text, posted):
        word = text[mention.start : mention.end].split()[-1].casefold()
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
    """Whether `text` names a day ("tomorrow", "Freitag", "stasera"), a habit ("every
    Thursday") included; "am Morgen" names none."""
    return any(not _is_morning(text, match) for match in _DAY.finditer(text))


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
