"""pbm.times, the one formatting of a moment for mail and page, at a fixed "now"."""

from __future__ import annotations

from pbm import times

NOW = times.ms_of("2026-12-01T17:00:00Z")  # a Tuesday
HOUR = 3600_000
DAY = 24 * HOUR


def test_a_deadline_two_days_ahead_reads_with_its_weekday_in_the_readers_zone() -> None:
    due = NOW + 2 * DAY + HOUR  # Thursday 18:00 UTC
    assert times.when_text(due, NOW) == "in 2 days, Thursday 18:00 UTC"
    assert times.when_text(due, NOW, "Europe/Paris") == "in 2 days, Thursday 19:00 CET"
    assert times.when_text(due, NOW, "America/New_York") == "in 2 days, Thursday 13:00 EST"


def test_the_relative_part_rounds_down_in_its_largest_unit_and_says_past_times_ago() -> None:
    assert times.relative(NOW + 30_000, NOW) == "in under a minute"
    assert times.relative(NOW + 60_000, NOW) == "in 1 minute"
    assert times.relative(NOW + 119 * 60_000, NOW) == "in 1 hour"
    assert times.relative(NOW + 47 * HOUR, NOW) == "in 1 day"
    assert times.relative(NOW - 3 * HOUR, NOW) == "3 hours ago"
    assert times.relative(NOW - 10_000, NOW) == "under a minute ago"


def test_further_than_six_days_the_clock_face_names_the_date() -> None:
    assert times.face(NOW + 6 * DAY - 1, NOW) == "Monday 16:59 UTC"
    assert times.face(NOW + 34 * DAY + HOUR // 2, NOW, "Asia/Tokyo") == "Tue 5 Jan 2027 02:30 JST"
    assert times.form(NOW + 7 * DAY, NOW) == "date" and times.form(NOW - DAY, NOW) == "weekday"


def test_an_unknown_or_broken_zone_reads_as_utc_and_says_so() -> None:
    assert times.face(NOW, NOW, None).endswith(" UTC")
    assert times.face(NOW, NOW, "Mars/Olympus") == "Tuesday 17:00 UTC"


def test_what_the_page_draws_of_a_moment_is_its_iso_time_utc_on_hover_and_the_same_words() -> None:
    drawn = times.moment("2026-12-03T18:00:00Z", NOW)
    assert drawn == {"iso": "2026-12-03T18:00:00Z", "utc": "2026-12-03 18:00 UTC", "relative": "in 2 days",
                     "face": "Thursday 18:00 UTC", "form": "weekday"}
    assert f"{drawn['relative']}, {drawn['face']}" == times.when_text(times.ms_of(drawn["iso"]), NOW)
