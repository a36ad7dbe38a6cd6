"""Who sits where, for the operator: a seat's fresh link, a seat handed to a bot or back, the
notices queued for new seats (an invitation, a rematch). Shared by the web API and the CLI, so both
do exactly the same; it writes through the command path and the seat store only (and queues rq
jobs of ids only), and never logs a token.
"""

from __future__ import annotations

import os
from urllib.parse import quote

import core
from core.table import Table
from events.commands import Games
from events.seats import Seats, TokenCheck
from pbm.names import Names
from workers.bots import bot_seats, check_seats

DEFAULT_BASE_URL = "http://127.0.0.1:8000"


def public_url(base_url: str | None = None) -> str:
    """The server's public address (PBM_PUBLIC_URL), without a trailing slash."""
    return (base_url or os.environ.get("PBM_PUBLIC_URL") or DEFAULT_BASE_URL).rstrip("/")


def link(base_url: str | None, token: str) -> str:
    """A seat's link: its page under the server's public address (PBM_PUBLIC_URL)."""
    return f"{public_url(base_url)}/play/{token}"


def review_link(base_url: str | None, token: str) -> str:
    """A seat's link to its replay page (it sets the seat's cookie and goes on to the page)."""
    return f"{public_url(base_url)}/review/{token}"


def replay_file_link(base_url: str | None, game_id: str, seat: int) -> str:
    """Where a finished game's replay file is had by the seat's cookie (the one its links leave):
    no token in it, so it may be copied, logged or shown to anyone and opens nothing for them."""
    return f"{public_url(base_url)}/review/g/{quote(game_id, safe='')}/{seat}/export"


def names(seats: Seats, game_id: str, table: Table, viewer: int | None = None, read: TokenCheck | None = None) -> Names:
    """How `viewer` (None: a spectator, a referee) reads the seats of `game_id`: their names from
    the seat store, the table's bots. One round trip, none if the append that ran the token check
    `read` read them (Seats.names)."""
    return Names(tuple(seats.names([(game_id, table.players)], read)[game_id]), viewer=viewer, bots=frozenset(table.bots))


def notify_seats(games: Games, seats: Seats, game_id: str, told: list[int], kind: str) -> None:
    """Queue the `kind` notice (pbm.mail.notify) of each of these seats of `game_id` that has a
    channel, at seq 0: a job of ids only, sent once however often it runs. Nothing without the
    workers' Dispatcher (a shell without rq)."""
    enqueue = getattr(games.dispatch, "enqueue", None)
    if enqueue is None:
        return
    from workers.dispatch import notify_work

    for seat in sorted(seats.reachable(game_id, told)):
        enqueue(notify_work(game_id, 0, seat, kind))


def check_seat(games: Games, game_id: str, seat: int) -> Table:
    table = games.table(game_id)  # UnknownGame for a game that is not there
    table.check_seat(seat)
    return table


def reinvite(games: Games, seats: Seats, game_id: str, seat: int, email: str | None = None) -> str:
    """A fresh token for a person's seat; the old one stops working at once. With `email`, the
    seat is told of its turns at that address from now on (and may answer them by mail): if it is
    the seat's turn now, its turn mail is queued."""
    table = check_seat(games, game_id, seat)
    kind = bot_seats(table.events).get(seat)
    if kind is not None:
        raise core.SetupError(f"seat {seat} of {game_id} is played by a bot ({kind}): hand it to a person first")
    if email is not None:
        if not 3 <= len(email) <= 320 or "@" not in email or any(char.isspace() for char in email):
            raise core.SetupError(f"{email!r} is not a mail address")
        seats.set_contact(game_id, seat, email=email)
    token = seats.issue(game_id, seat)
    if email is not None and games.dispatch is not None:
        games.dispatch(game_id, table)  # unique job ids: a turn already told is not told again
    return token


def hand_over(games: Games, seats: Seats, game_id: str, seat: int, bot: str | None) -> str | None:
    """Hand `seat` to a bot of kind `bot`, or back to a person (bot=None). A person's seat keeps
    its token; a seat a person takes over with no token gets one, answered here (else None)."""
    table = check_seat(games, game_id, seat)
    bots = bot_seats(table.events)
    if bot is None:
        if seat not in bots:
            raise core.SetupError(f"seat {seat} of {game_id} is a person's already")
        del bots[seat]
    else:
        bots[seat] = bot
    games.seat_bots(game_id, check_seats(bots))
    if bot is None and seat not in seats.issued(game_id):
        return seats.issue(game_id, seat)
    return None
