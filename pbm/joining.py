"""Open seats for the operator and for visitors: a new game's open seats and its join link, the link
shown again or revoked, and a visitor's claim of one seat, which makes their person and, with the
last open seat, starts the game's clock. Shared by the web front end and the CLI, so both do exactly
the same; it writes through the command path, the seat, people and join stores only, and never
logs a token or an address.

A game with open seats and a deadline is created with its clock paused (Games.create(paused=True));
the last claim resumes it (command id `players-seated`, so it is recorded once), so no deadline runs
out on a seat nobody holds. The seats already held may move meanwhile: the clock, not the table,
waits for the players.
"""

from __future__ import annotations

import os

import attrs

import core
from events.commands import Games
from events.joining import Claimed, JoinRefused, Joins
from events.people import People, Person, PersonError, check_email, check_name
from events.seats import Seats
from pbm import people as people_ops
from pbm import seating

SEATED_COMMAND = "players-seated"
LINK_GONE = "this join link does not work (it may have been revoked, or every seat is taken)"


def link(base_url: str | None, token: str) -> str:
    """A game's join link: its page under the server's public address (PBM_PUBLIC_URL)."""
    base = base_url or os.environ.get("PBM_PUBLIC_URL") or seating.DEFAULT_BASE_URL
    return f"{base.rstrip('/')}/join/{token}"


def open_up(games: Games, joins: Joins, game_id: str, seats: list[int]) -> str:
    """Open these seats of a game just created; its join token."""
    return joins.open(game_id, seats, games.clock())


def check_open(players: int, open_seats: list[int], bots: dict[int, str]) -> None:
    for seat in open_seats:
        if not 0 <= seat < players:
            raise core.SetupError(f"open seat {seat}: this table has seats 0 to {players - 1}")
        if seat in bots:
            raise core.SetupError(f"seat {seat} is a bot's: it cannot be open too")


def invite(joins: Joins, game_id: str, revoke: bool = False) -> str | None:
    """The operator's `invite --open`: the game's join token (made again, or anew if it was
    revoked), or with `revoke` none: the link stops working. SetupError for a game with no open seat."""
    if revoke:
        joins.revoke(game_id)
        return None
    token = joins.renew(game_id)
    if token is None:
        raise core.SetupError(f"game {game_id} has no open seat: nobody can join it")
    return token


@attrs.frozen
class Joined:
    claimed: Claimed
    person: Person
    person_token: str


def claim(games: Games, seats: Seats, people: People, joins: Joins, token: str, name: str, email: str | None = None, seat: int | None = None) -> Joined:
    """A visitor with the join link claims `seat` (or the first open one) under `name` (and
    `email`): their person is made and holds it. PersonError for a bad name or address (nothing
    written), JoinRefused for a link that does not work or a seat taken (taken=True)."""
    game_id = joins.game_of(token)
    if game_id is None:
        raise JoinRefused(LINK_GONE)
    name = check_name(name)
    if email is not None:
        email = check_email(email)
        if people.by_email(email) is not None:
            raise PersonError("email: that address is a player's already: use the link you were sent, or leave the address out")
    open_now = joins.open_seats(game_id)
    if seat is not None and seat not in open_now:
        raise JoinRefused(f"seat {seat} is not open (open: {', '.join(map(str, open_now)) or 'none'})", taken=True)
    person_id = people.new_id()
    claimed = None
    for candidate in [seat] if seat is not None else open_now:
        people.index_seat(person_id, game_id, candidate)  # the person's side first (events/people.py)
        try:
            claimed = joins.claim(token, candidate, person_id, seats)
            break
        except JoinRefused as refused:
            people.unseat(person_id, game_id, candidate)
            if not refused.taken or seat is not None:
                raise
    if claimed is None:
        raise JoinRefused("every seat was taken just now", taken=True)
    try:
        person, person_token = people.add(name, email, person_id=person_id)
    except PersonError:  # the address was taken in the moment since it was checked
        person, person_token = people.add(name, None, person_id=person_id)
    people_ops.copy_to_seat(seats, person, game_id, claimed.seat)
    if claimed.left == 0:
        start(games, joins, game_id)
    elif person.email and games.dispatch is not None:
        games.dispatch(game_id, games.table(game_id))  # their turn may be now (jobs are sent once)
    return Joined(claimed, person, person_token)


def start(games: Games, joins: Joins, game_id: str) -> None:
    """Every seat is held: the game's clock starts (if it has one, and is paused), once."""
    joins.done(game_id)
    table, clock = games.table_with_clock(game_id)
    if clock.settings is not None and clock.paused_since_ms is not None and table.outcome is None:
        games.record(game_id, core.ClockResumed(), command_id=SEATED_COMMAND)
    elif games.dispatch is not None:
        games.dispatch(game_id, table)
