"""Exact DST-aware local-day windows in several IANA zones."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_memory.agent.sweep.windows import (
    SweepZoneError,
    completed_days,
    day_window,
    next_window,
    today,
)

H = timedelta(hours=1)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "day", "start", "end", "hours"),
    [
        # spring forward: 23 h
        ("America/New_York", date(2026, 3, 8), utc(2026, 3, 8, 5), utc(2026, 3, 9, 4), 23),
        # fall back: 25 h
        ("America/New_York", date(2026, 11, 1), utc(2026, 11, 1, 4), utc(2026, 11, 2, 5), 25),
        ("America/New_York", date(2026, 7, 1), utc(2026, 7, 1, 4), utc(2026, 7, 2, 4), 24),
        ("Europe/London", date(2026, 3, 29), utc(2026, 3, 29), utc(2026, 3, 29, 23), 23),
        ("Europe/London", date(2026, 10, 25), utc(2026, 10, 24, 23), utc(2026, 10, 26), 25),
        # Lord Howe shifts by 30 minutes: 24.5 h and 23.5 h days
        (
            "Australia/Lord_Howe", date(2026, 4, 5),
            utc(2026, 4, 4, 13), utc(2026, 4, 5, 13, 30), 24.5,
        ),
        (
            "Australia/Lord_Howe", date(2026, 10, 4),
            utc(2026, 10, 3, 13, 30), utc(2026, 10, 4, 13), 23.5,
        ),
        # Kolkata: +05:30, no DST
        ("Asia/Kolkata", date(2026, 3, 8), utc(2026, 3, 7, 18, 30), utc(2026, 3, 8, 18, 30), 24),
    ],
)
def test_exact_windows(zone: str, day: date, start: datetime, end: datetime, hours: float) -> None:
    window = day_window(day, zone)
    assert window.start_utc == start
    assert window.end_utc == end
    assert window.duration == timedelta(hours=hours)
    assert window.local_date == day
    assert window.window_id == day_window(day, zone).window_id
    assert window.window_id.startswith(f"{day.isoformat()}@{zone}#")
    assert window.contains(start) and not window.contains(end)


def test_window_ids_differ_by_zone_and_date() -> None:
    ids = {
        day_window(date(2026, 3, d), z).window_id
        for d in (7, 8)
        for z in ("America/New_York", "Europe/London", "Asia/Kolkata")
    }
    assert len(ids) == 6


ZONES = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata",
         "America/Santiago", "Pacific/Apia"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ZONES), st.dates(min_value=date(2000, 1, 1), max_value=date(2037, 1, 1)))
def test_days_tile_without_gap_or_overlap(zone: str, day: date) -> None:
    first = day_window(day, zone)
    second = day_window(day + timedelta(days=1), zone)
    assert first.end_utc == second.start_utc
    assert next_window(first.end_utc, zone) == second
    assert timedelta(hours=22) <= first.duration <= timedelta(hours=26)


def test_unknown_zone_fails_with_reason() -> None:
    with pytest.raises(SweepZoneError, match="IANA zone name"):
        day_window(date(2026, 1, 1), "Mars/Olympus")


def test_today_is_never_completed() -> None:
    # 03:30 UTC on 9 March is still 8 March in New York (23:30 EDT)
    now = utc(2026, 3, 9, 3, 30)
    assert today(now, "America/New_York") == date(2026, 3, 8)
    days = completed_days(now, "America/New_York", first_date=date(2026, 3, 6), limit=10)
    assert [w.local_date for w in days] == [date(2026, 3, 6), date(2026, 3, 7)]
    assert all(w.end_utc <= now for w in days)


def test_at_most_limit_oldest_first_then_resume_from_cursor() -> None:
    now = utc(2026, 3, 12, 12)
    zone = "Europe/London"
    first = completed_days(now, zone, first_date=date(2026, 3, 7), limit=3)
    assert [w.local_date.day for w in first] == [7, 8, 9]
    rest = completed_days(now, zone, after_end_utc=first[-1].end_utc, limit=3)
    assert [w.local_date.day for w in rest] == [10, 11]
    assert rest[0].start_utc == first[-1].end_utc


def test_zone_change_next_window_is_clipped_exactly() -> None:
    # last completed: 10 March in Kolkata, ends 2026-03-10T18:30Z
    last = day_window(date(2026, 3, 10), "Asia/Kolkata")
    nxt = next_window(last.end_utc, "America/New_York")
    # 18:30Z on 10 March is 14:30 EDT (DST began 8 March) on the 10th in New York
    assert nxt.local_date == date(2026, 3, 10)
    assert nxt.start_utc == last.end_utc
    assert nxt.end_utc == day_window(date(2026, 3, 10), "America/New_York").end_utc
    assert nxt.window_id != day_window(date(2026, 3, 10), "America/New_York").window_id
    after = next_window(nxt.end_utc, "America/New_York")
    assert after == day_window(date(2026, 3, 11), "America/New_York")


def test_completed_days_requires_exactly_one_anchor() -> None:
    with pytest.raises(SweepZoneError, match="exactly one"):
        completed_days(utc(2026, 1, 5), "Asia/Kolkata")


def test_a_skipped_calendar_day_is_passed_over() -> None:
    # Samoa skipped 30 December 2011 entirely
    days = completed_days(utc(2012, 1, 3), "Pacific/Apia", first_date=date(2011, 12, 29), limit=3)
    expected = [date(2011, 12, 29), date(2011, 12, 31), date(2012, 1, 1)]
    assert [w.local_date for w in days] == expected
    assert days[0].end_utc == days[1].start_utc
