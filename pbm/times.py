"""A moment as a person reads it: "in 2 days, Thursday 18:00 CET". The one formatting of a time
for every front end (the turn mails, the seat's page and the person's page as the server draws
them); pure: the caller passes "now" and the reader's time zone, so a test fixes both. It reads no
clock and knows nothing of games.

The relative part ("in 2 days", "3 hours ago") is the same in every time zone; the clock face
("Thursday 18:00 CET") is the reader's: their time zone when it is known, else UTC, said so by
its name. A page drawn in UTC marks the clock face (`moment(...)["face"]`), and the page's script
redraws that part alone in the browser's time zone (static/page.js), with the UTC time kept in
the element's title.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

WEEKDAY_WITHIN_S = 6 * 86400  # nearer than this a weekday names the day; further, the date does
UNITS = (("day", 86400), ("hour", 3600), ("minute", 60))


def zone(tz: str | None) -> ZoneInfo:
    """The reader's time zone; UTC when it is unknown (None) or not a zone zoneinfo has."""
    try:
        return ZoneInfo(tz or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def relative(when_ms: int, now_ms: int) -> str:
    """How far `when_ms` is from `now_ms`, in its largest whole unit: "in 2 days", "5 hours ago",
    "in under a minute". Rounded down, so "in 2 days" is never less than two days away."""
    seconds = abs(when_ms - now_ms) // 1000
    for unit, size in UNITS:
        if seconds >= size:
            count = seconds // size
            span = f"{count} {unit}{'s' if count != 1 else ''}"
            break
    else:
        span = None
    ahead = when_ms >= now_ms
    if span is None:
        return "in under a minute" if ahead else "under a minute ago"
    return f"in {span}" if ahead else f"{span} ago"


def form(when_ms: int, now_ms: int) -> str:
    """How the clock face names the day: "weekday" within six days of now, else "date"."""
    return "weekday" if abs(when_ms - now_ms) < WEEKDAY_WITHIN_S * 1000 else "date"


def face(when_ms: int, now_ms: int, tz: str | None = None) -> str:
    """The clock face in the reader's zone: "Thursday 18:00 CET", or "Mon 4 Jan 2027 09:30 UTC"
    further than six days away."""
    local = datetime.fromtimestamp(when_ms / 1000, UTC).astimezone(zone(tz))
    day = local.strftime("%A") if form(when_ms, now_ms) == "weekday" else f"{local:%a} {local.day} {local:%b %Y}"
    return f"{day} {local:%H:%M} {local.tzname()}"


def when_text(when_ms: int, now_ms: int, tz: str | None = None) -> str:
    """ "in 2 days, Thursday 18:00 CET": the relative form, then the clock face."""
    return f"{relative(when_ms, now_ms)}, {face(when_ms, now_ms, tz)}"


def utc_text(when_ms: int) -> str:
    """The exact UTC time, as a page's hover shows it: 2026-12-04 17:00 UTC."""
    return f"{datetime.fromtimestamp(when_ms / 1000, UTC):%Y-%m-%d %H:%M} UTC"


def iso(when_ms: int) -> str:
    return datetime.fromtimestamp(when_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def ms_of(iso_text: str) -> int:
    """The milliseconds of an ISO 8601 UTC time (2026-12-04T17:00:00Z), as the API writes them."""
    return int(datetime.fromisoformat(iso_text.replace("Z", "+00:00")).timestamp() * 1000)


def moment(when: int | str, now_ms: int, tz: str | None = None) -> dict[str, Any]:
    """What a page draws of one moment (ms or ISO UTC), in the reader's zone when the server knows
    it (a person's page), else UTC: its ISO time (the <time>'s datetime), the exact UTC text (its
    title), the relative form, the clock face and its form (which the page's script redraws in
    the browser's zone)."""
    when_ms = ms_of(when) if isinstance(when, str) else when
    return {
        "iso": iso(when_ms),
        "utc": utc_text(when_ms),
        "relative": relative(when_ms, now_ms),
        "face": face(when_ms, now_ms, tz),
        "form": form(when_ms, now_ms),
    }
