"""Day words resolved to dates, so a statement stays true when it is read later."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from companion_memory.agent.notifications.dates import day_mentions, has_day_word, with_dates
from companion_memory.agent.notifications.fallback import event_end, notification_fallback
from companion_memory.agent.notifications.proposals import ItemContext, validate_proposals
from tests.notifications.harness import T0, event, pipeline

TUESDAY = date(2026, 12, 1)
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see you tomorrow", [date(2026, 12, 2)]),
        ("morgen um 8 beim Bäcker", [date(2026, 12, 2)]),
        ("on se voit demain soir", [date(2026, 12, 2)]),
        ("domani alle 10", [date(2026, 12, 2)]),
        ("quedamos pasado mañana", [date(2026, 12, 3)]),
        ("overmorgen bij mij", [date(2026, 12, 3)]),
        ("tonight at the bar", [TUESDAY]),
        ("Kino am Donnerstag?", [date(2026, 12, 3)]),
        ("dinner Tuesday", [TUESDAY]),  # today's name: today
        ("next Tuesday then", [date(2026, 12, 8)]),  # "next" and today's name: a week on
        ("nächsten Freitag", [date(2026, 12, 4)]),
        ("Freitag morgen um 9", [date(2026, 12, 4)]),  # the morning, not tomorrow
        ("heute Morgen war es kalt", [TUESDAY]),
        ("Guten Morgen! Bis morgen dann", [date(2026, 12, 2)]),  # a greeting, then tomorrow
        ("am Morgen ist es ruhig", []),
        ("not Monday but Wednesday", [date(2026, 12, 7), date(2026, 12, 2)]),
        ("sabato o domenica", [date(2026, 12, 5), date(2026, 12, 6)]),
        ("Mondays are hard", []),  # a plural names no day
        ("the today show", [TUESDAY]),
        ("nothing here", []),
    ],
)
def test_day_words_resolve_from_the_posting_date(text: str, expected: list[date]) -> None:
    assert [m.day for m in day_mentions(text, TUESDAY)] == expected
    assert has_day_word(text) is bool(expected)


def test_a_habit_names_no_date_but_still_a_day() -> None:
    # (the noise filter keeps a message that names a day, a habit included)
    assert day_mentions("water the plants (every Thursday)", TUESDAY) == []
    assert has_day_word("water the plants (every Thursday)")
    assert [m.day for m in day_mentions("Sport jeden Montag, Kino am Freitag", TUESDAY)] == \
        [date(2026, 12, 4)]


def test_dates_are_written_next_to_the_words() -> None:
    assert with_dates("Dentist tomorrow 10:00, not Friday", TUESDAY) == \
        "Dentist tomorrow (Wed 2 Dec) 10:00, not Friday 4 Dec"
    assert with_dates("Elternabend am Donnerstag", TUESDAY) == \
        "Elternabend am Donnerstag (Thu 3 Dec)"
    assert with_dates("no day here", TUESDAY) == "no day here"
    assert with_dates("bring your card to tomorrow's appointment", TUESDAY) == \
        "bring your card to tomorrow's (Wed 2 Dec) appointment"


def test_a_fallback_event_ends_after_its_day() -> None:
    item = {"c": 1, "app": "net.whatsapp.WhatsApp", "cat": "social", "title": "Anna",
            "body": "Dinner next Tuesday at 8?", "local": "2026-12-01T18:05:00+01:00"}
    answer = notification_fallback({"items": [item], "related": []})
    entry = answer["p"][0]
    assert entry["t"] == "Anna on WhatsApp: Dinner next Tuesday 8 Dec at 8?"
    assert entry["end"] == "2026-12-09T00:00:00+01:00"
    checked = validate_proposals(answer, {1: ItemContext(1, (1,), {})})
    end = checked.accepted[1].event_end
    assert end is not None and end == datetime.fromisoformat("2026-12-09T00:00:00+01:00")
    # without a day word, or without the posting time, there is no end: the TTL applies
    assert event_end(item, "Anna on WhatsApp: dinner soon") is None
    assert event_end({k: v for k, v in item.items() if k != "local"}, entry["t"]) is None


@pytest.mark.parametrize("end", ["2026-12-09", "2026-12-09T00:00:00", "soon", 5])
def test_an_unreadable_end_is_ignored_not_fatal(end: object) -> None:
    # (a date alone or a time without an offset has no instant: the TTL applies)
    answer = {"p": [{"c": 1, "a": "add", "t": "Dinner with Anna", "k": "event", "end": end}]}
    checked = validate_proposals(answer, {1: ItemContext(1, (1,), {})})
    assert checked.ok and checked.accepted[1].event_end is None


async def test_a_fallback_event_expires_when_its_day_is_over(tmp_path: Path) -> None:
    # the log keeps sources 1 day here, so the sources do not hold the memory; the flight
    # is on Sunday and its memory expires when Sunday is over, the statement without a day
    # after the fixed Temporary TTL (7 days)
    async with pipeline(tmp_path, zone=BERLIN, source_retention=timedelta(days=1)) as p:
        p.publish(event("Flight LH 2034 on Sunday from gate B12", title="Lufthansa",
                        category="social"),
                  event("The new sofa fits through the door, measured it", title="Tom",
                        minutes=1))
        outcome = await p.processor.run_batch()
        assert outcome.report.error is None
        by_text = {r.text: r for r in await p.memories()}
    flight = by_text["Lufthansa on WhatsApp: Flight LH 2034 on Sunday 8 Mar from gate B12"]
    assert flight.expires_at == datetime(2026, 3, 9, tzinfo=BERLIN)
    sofa = next(r for text, r in by_text.items() if text.startswith("Tom on WhatsApp"))
    assert sofa.expires_at == T0 + timedelta(days=7)


WEDNESDAY = date(2026, 3, 18)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Freitag, 22.03. um 10 Uhr", date(2026, 3, 22)),
        ("Wizyta w piątek 22 marca o 10:00", date(2026, 3, 22)),
        ("Cuma günü 22 mart saat 10", date(2026, 3, 22)),
        ("金曜日 3月22日 10時に歯医者", date(2026, 3, 22)),
        ("2026年3月22日（金曜日）", date(2026, 3, 22)),
        ("3월 22일 금요일 치과", date(2026, 3, 22)),
        ("Friday 2026-03-22 at the dentist", date(2026, 3, 22)),
        ("on Friday 22/03 at 10", date(2026, 3, 22)),
        ("Kick-off is on Monday, 6 April in Munich", date(2026, 4, 6)),
        ("Friday the 22nd of March", date(2026, 3, 22)),
        ("viernes 22 de marzo", date(2026, 3, 22)),
        ("Samstag, 18.4. ab 16 Uhr", date(2026, 4, 18)),
    ],
)
def test_an_explicit_date_beats_a_weekday_guess(text: str, expected: date) -> None:
    mentions = day_mentions(text, WEDNESDAY)
    assert [(m.day, m.explicit) for m in mentions] == [(expected, True)]
    assert with_dates(text, WEDNESDAY) == text  # the weekday gets no guessed date
    assert has_day_word(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("22.03.2026", date(2026, 3, 22)),
        ("am 22.3.26", date(2026, 3, 22)),
        ("03/22/2026", date(2026, 3, 22)),
        ("03/22", date(2026, 3, 22)),  # month first where day first is no date
        ("2026/3/22", date(2026, 3, 22)),
        ("3月22号开会", date(2026, 3, 22)),
        ("March 22nd, 2027", date(2027, 3, 22)),
        ("bis 10.03. abholen", date(2026, 3, 10)),  # no year: the nearest occurrence,
        ("Dec 2", date(2025, 12, 2)),  # ... a past one included
    ],
)
def test_written_dates_in_their_forms(text: str, expected: date) -> None:
    assert [m.day for m in day_mentions(text, WEDNESDAY)] == [expected]


def test_a_date_without_a_year_is_the_nearest_occurrence() -> None:
    december = date(2026, 12, 20)
    assert [m.day for m in day_mentions("am 2. Januar", december)] == [date(2027, 1, 2)]
    assert [m.day for m in day_mentions("am 2. Januar", WEDNESDAY)] == [date(2026, 1, 2)]


@pytest.mark.parametrize(
    "text",
    ["version 1.2.3", "rated 9/10", "24/7 support", "1/2 cup", "am 31.02.", "um 20:10. Dann",
     "Kontostand 1.823,44 EUR", "Havel 2.04", "March 2027"],
)
def test_what_is_no_date(text: str) -> None:
    assert [m for m in day_mentions(text, WEDNESDAY) if m.explicit] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("jutro o 10:00 dentysta", [date(2026, 3, 19)]),
        ("the day after\ntomorrow", [date(2026, 3, 20)]),  # a phrase across a line break
        ("pojutrze u mamy", [date(2026, 3, 20)]),
        ("w przyszłą środę", [date(2026, 3, 25)]),  # "next" and today's name: a week on
        ("yarın saat 10", [date(2026, 3, 19)]),
        ("amanhã às 10", [date(2026, 3, 19)]),
        ("завтра в 10", [date(2026, 3, 19)]),
        ("i morgon kl 10", [date(2026, 3, 19)]),
        ("明日10時に歯医者の予約", [date(2026, 3, 19)]),  # inside a run of characters
        ("明天上午十点", [date(2026, 3, 19)]),
        ("내일은 치과", [date(2026, 3, 19)]),  # with its particle
        ("金曜日に会いましょう", [date(2026, 3, 20)]),
        ("下周一开会", [date(2026, 3, 23)]),  # the Monday of next week
        ("下周五开会", [date(2026, 3, 27)]),  # not the Friday of this week
        ("来週の月曜日に会議", [date(2026, 3, 23)]),
        ("다음 주 금요일", [date(2026, 3, 27)]),
        ("每周一开会", []),  # a habit
        ("毎週月曜日はジム", []),
        ("매주 월요일", []),
    ],
)
def test_day_words_of_more_locales(text: str, expected: list[date]) -> None:
    assert [m.day for m in day_mentions(text, WEDNESDAY)] == expected
    assert has_day_word(text)


def test_a_past_written_date_gives_no_event_end() -> None:
    item = {"c": 1, "app": "de.db.fahrgastrechte", "cat": "email", "title": "DB",
            "body": "Ihr Antrag für die Verspätung am 05.03. ist eingegangen",
            "local": "2026-03-18T09:00:00+01:00"}
    answer = notification_fallback({"items": [item], "related": []})
    assert "end" not in answer["p"][0]
    item["body"] = "Ihr Termin am Freitag, 27.03. um 10 Uhr"
    entry = notification_fallback({"items": [item], "related": []})["p"][0]
    assert entry["end"] == "2026-03-28T00:00:00+01:00"  # the date, not the coming Friday
