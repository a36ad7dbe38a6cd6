"""A game's clock for the operator and the seats: pause, resume, extend, a seat's vacation, and the
clock as the API, the page and the CLI show it. Shared by the web API and the CLI, so both do
exactly the same; it writes through the command path only (events.commands.Games.record), and
every refusal is one line naming what is wrong, with nothing written.
"""

from __future__ import annotations

import time
from typing import Any

import core
from core.table import duration_text
from events import clock as clocks
from events.commands import Games
from events.store import Conflict

MAX_EXTENSION_S = clocks.MAX_DEADLINE_S


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def clocked(games: Games, game_id: str) -> tuple[core.Table, clocks.Clock]:
    table, clock = games.table_with_clock(game_id)
    if clock.settings is None:
        raise core.SetupError(f"game {game_id} has no clock: give it a deadline when it is created (--deadline 48h)")
    if table.outcome is not None:
        raise core.SetupError(f"game {game_id} is over: its clock has stopped")
    return table, clock


def pause(games: Games, game_id: str) -> dict[str, Any]:
    table, clock = clocked(games, game_id)
    if clock.paused_since_ms is not None:
        raise core.SetupError(f"game {game_id}'s clock is paused already (since {clocks.iso(clock.paused_since_ms)})")
    games.record(game_id, core.ClockPaused(), expected_seq=table.seq)
    return describe(games, game_id)


def resume(games: Games, game_id: str) -> dict[str, Any]:
    table, clock = clocked(games, game_id)
    if clock.paused_since_ms is None:
        raise core.SetupError(f"game {game_id}'s clock is not paused")
    games.record(game_id, core.ClockResumed(), expected_seq=table.seq)
    return describe(games, game_id)


def extend(games: Games, game_id: str, by: str, seat: int | None = None) -> dict[str, Any]:
    """Give the turn in progress `by` more (a duration): `seat`'s, or every person's it waits on."""
    seconds = clocks.parse_duration(by, "extend by")
    table, _clock = clocked(games, game_id)
    if seat is not None:
        table.check_seat(seat)
        if seat not in table.to_act:
            raise core.SetupError(f"seat {seat} is not to act in {game_id}: an extension is for a turn in progress")
        seats = (seat,)
    else:
        seats = tuple(s for s in table.to_act if s not in table.bots)
        if not seats:
            raise core.SetupError(f"game {game_id} waits on no person's turn now")
    games.record(game_id, core.DeadlineExtended(seats=seats, seconds=seconds), expected_seq=table.seq)
    return describe(games, game_id)


def take_vacation(games: Games, game_id: str, seat: int, days: Any) -> dict[str, Any]:
    """The seat's clock stops for `days` days from now, out of its yearly bank."""
    if type(days) is not int or not 1 <= days <= clocks.MAX_VACATION_DAYS:
        raise core.SetupError(f"vacation days: a whole number from 1 to {clocks.MAX_VACATION_DAYS}, not {repr(days)[:40]}")
    table, clock = clocked(games, game_id)
    if seat in table.bots:
        raise core.SetupError(f"seat {seat} is played by a bot ({table.bots[seat]}): no vacation to take")
    left = clock.vacation_left(seat, games.clock())  # the command path's clock stamps the envelopes
    if days > left:
        raise core.SetupError(f"seat {seat} has {left} vacation day{'s' if left != 1 else ''} left this year, not {days}")
    try:
        # At the length the bank was counted on: two requests at once cannot both spend the last days.
        games.record(game_id, core.VacationTaken(seat=seat, days=days), expected_seq=table.seq)
    except Conflict:
        raise core.SetupError("the game moved on while the vacation was asked for: ask again") from None
    return describe(games, game_id, seats=[seat])


def describe(games: Games, game_id: str, seats: list[int] | None = None) -> dict[str, Any] | None:
    """The clock as the API shows it, None for a game without one (events.clock.Clock.describe)."""
    table, clock = games.table_with_clock(game_id)
    if table.outcome is not None and clock.settings is not None:
        return clock.describe((), table.bots, games.clock(), seats=seats if seats is not None else ()) | {"over": True}
    return clock.describe(table.to_act, table.bots, games.clock(), seats=seats)


class PlayedByBot(core.IllegalMove):
    """A person's move for a seat the operator handed to a bot: it would race the bot's job."""


def take_back(games: Games, game_id: str, seat: int, before: core.Table) -> Any:
    """A seat the clock handed to the autopilot is its player's again when they move: the
    hand-back (a BotsSeated without it) is appended, and returned (None for any other seat). A
    seat the operator handed to a bot stays the bot's: PlayedByBot. Every front end calls this
    before it submits a seat's move."""
    kind = before.bots.get(seat)
    if kind is not None and kind != clocks.AUTOPILOT:
        raise PlayedByBot(f"seat {seat} is played by a bot ({kind}) now: ask the game's operator to hand it back")
    if kind is None:
        return None
    rest = {other: bot for other, bot in before.bots.items() if other != seat}
    return games.seat_bots(game_id, rest, command_id=f"back:{before.seq}:{seat}")


def readable(iso: str) -> str:
    """An ISO 8601 UTC time as a person reads it: 2026-12-04 15:22:02 UTC."""
    return iso.replace("T", " ").replace("Z", " UTC")


def deadline_of(table: core.Table, clock: clocks.Clock) -> dict[str, Any] | None:
    """The deadline of the turn in progress, for GET /api/me and the seat's page: whose, when
    (ISO 8601 UTC; None while paused), how it reads, and the seat's vacation if it is away."""
    if table.outcome is not None:
        return None
    found = clock.deadline_of_turn(table.to_act, table.bots)
    if found is None:
        return None
    seat, due = found
    now = now_ms()
    away = clock.on_vacation_until(seat, now)
    when = None
    if due is not None:
        when = readable(clocks.iso(due))
        if due > now:
            when += f" (in {duration_text(max(1, (due - now) // 1000))})"
    if due is None:
        text = "the clock is paused"
    else:
        text = f"seat {seat}'s move is due {when}" + (": the time is up, the autopilot moves" if due <= now else "")
    if away is not None:
        text += f"; seat {seat} is on vacation until {clocks.iso(away)}"
    return {
        "seat": seat,
        "due": clocks.iso(due),
        "when": when,
        "overdue": due is not None and due <= now,
        "paused": clock.paused_since_ms is not None,
        "on_vacation_until": clocks.iso(away),
        "text": text,
    }
