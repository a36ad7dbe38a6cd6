"""A rematch of a finished game: asked for (or accepted) from any of its seats; made once every seat
a person plays has accepted (bots accept), with the same people, game and settings, the seats
rotated by one and a fresh secret seed. Shared by the seat's page and the API, so both do exactly
the same; it writes through the rematch store and the creation the front end hands it (the
operator's one path for a new game), and never logs a token or an address.

The first request draws the new game's id and every later one reads it (events/rematch.py), so
asking again, from another seat, or two seats at once, all answer the same game: one rematch per
finished game. The game is made by the request that finds every seat accepted, under that id;
`Games.create` refuses a second game of one id (Conflict) before anything else is written, so two
requests that race to make it make one. Each seat's person holds its new seat (their page lists
it), and each seat with a channel is sent the rematch notice with its new link.

The seat that played seat s plays seat (s + 1) mod players: who opens a trick-taking game, or moves
first, changes. A seat of the finished game that nobody ever took (an open seat never claimed) has
nobody to ask: its game gets no rematch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

import core
from core.table import Table
from events.commands import Games
from events.people import People
from events.rematch import Proposal, Rematches
from events.seats import Seats
from events.store import Conflict
from pbm import seating

NOT_OVER = "this game is not over: a rematch is offered once it is"
NEVER_TAKEN = "seat {seat} was never taken: there is nobody to ask for a rematch"
Create = Callable[[dict[str, Any], str], Any]  # (a new game's settings as POST /api/games takes them, its id)


@attrs.frozen
class Rematch:
    """A finished game's rematch as one of its seats sees it."""

    of: str  # the finished game
    game_id: str  # the rematch
    seat: int  # the asking seat's seat in the rematch
    started: bool  # made: every seat accepted
    accepted: bool  # the asking seat has accepted
    waiting_for: tuple[int, ...]  # the finished game's seats that have not accepted yet

    def public(self, names: list[str | None]) -> dict[str, Any]:
        return {
            "of": self.of, "game_id": self.game_id, "seat": self.seat, "started": self.started, "accepted": self.accepted,
            "waiting_for": [{"seat": seat, "name": names[seat]} for seat in self.waiting_for],
        }


def rotated(seat: int, players: int) -> int:
    """The seat in the rematch of the one who played `seat`."""
    return (seat + 1) % players


def deciders(table: Table) -> list[int]:
    """The seats that must accept: every seat a bot does not play."""
    return [seat for seat in range(table.players) if seat not in table.bots]


def ask(games: Games, seats: Seats, people: People, rematches: Rematches, game_id: str, seat: int, create: Create) -> Rematch:
    """`seat` asks for the rematch of `game_id`, or accepts the one asked for; made by this call
    when it is the last to accept. SetupError, nothing written, for a game not over or one with a
    seat nobody took."""
    table = games.table(game_id)
    if table.outcome is None:
        raise core.SetupError(NOT_OVER)
    body = settings(games, seats, people, game_id, table)
    proposal = rematches.accept(game_id, seat, Rematches.new_id(table.game.slug))
    if not proposal.waiting_for(deciders(table)):
        start(games, seats, game_id, table, proposal.game_id, body, create)
    return standing(games, table, game_id, seat, proposal)


def of(games: Games, rematches: Rematches, game_id: str, seat: int) -> Rematch | None:
    """The rematch of `game_id` as `seat` sees it, None if nobody has asked for one."""
    proposal = rematches.of(game_id)
    if proposal is None:
        return None
    return standing(games, games.table(game_id), game_id, seat, proposal)


def standing(games: Games, table: Table, game_id: str, seat: int, proposal: Proposal) -> Rematch:
    waiting = tuple(proposal.waiting_for(deciders(table)))
    started = not waiting and games.store.info(proposal.game_id) is not None
    return Rematch(game_id, proposal.game_id, rotated(seat, table.players), started, seat in proposal.accepted, waiting)


def settings(games: Games, seats: Seats, people: People, game_id: str, table: Table) -> dict[str, Any]:
    """The rematch's settings, as POST /api/games takes them: the same game, options, clock, forced
    moves, late salts and spectators; each seat's person (or its name and address, or its bot) one
    seat on; no seed (a fresh one is drawn)."""
    holders = people.holders(game_id)
    issued = seats.issued(game_id)
    rotated_seats: list[dict[str, Any]] = [{} for _ in range(table.players)]
    for seat in range(table.players):
        contact = seats.contact(game_id, seat)
        if seat in table.bots:
            spec = {"bot": table.bots[seat], "name": contact.get("name")}
        elif seat in holders and people.get(holders[seat]) is not None:
            spec = {"person": holders[seat]}
        elif seat in issued or contact:
            spec = {"name": contact.get("name") or f"seat {seat}", "email": contact.get("email")}
        else:
            raise core.SetupError(NEVER_TAKEN.format(seat=seat))
        rotated_seats[rotated(seat, table.players)] = {key: value for key, value in spec.items() if value is not None}
    clock = table.clock
    body: dict[str, Any] = {
        "game": table.game.slug,
        "players": table.players,
        "seats": rotated_seats,
        "options": dict(table.started.options) or None,
        "spectators": seats.spectators_allowed(game_id),
        "forced_moves": games.store.forced_moves(game_id) or "auto",
        "late_salts": table.salting is not None,
    }
    if clock is not None:
        body |= {"deadline": f"{clock.deadline_s}s", "reminders": [f"{before}s" for before in clock.reminders_s],
                 "vacation_days": clock.vacation_days, "autopilot_after": clock.autopilot_after}
    return body


def start(games: Games, seats: Seats, old_id: str, table: Table, new_id: str, body: dict[str, Any], create: Create) -> bool:
    """Make the rematch under `new_id`, unless another request made it first (False then): each
    seat's webhook carried over as it was, and every seat with a channel sent the rematch notice."""
    if games.store.info(new_id) is not None:
        return False
    try:
        create(body, new_id)
    except Conflict:  # another request made it in the moment since
        return False
    for seat in range(table.players):
        contact = seats.contact(old_id, seat)
        if seat not in table.bots and contact.get("webhook"):
            seats.set_contact(new_id, rotated(seat, table.players), webhook=contact["webhook"], webhook_secret=contact.get("webhook_secret"))
    seating.notify_seats(games, seats, new_id, [rotated(seat, table.players) for seat in deciders(table)], "rematch")
    return True
