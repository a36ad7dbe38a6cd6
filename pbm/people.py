"""People for the operator and for themselves: add, edit and erase a person, seat them at a game,
and every seat they hold as their page shows it. Shared by the web front end and the CLI, so both
do exactly the same; it writes through the people store and the seat store only (never a game's
log) and never logs a token or an address.

A person's data is copied into the contact of each seat they hold (the seat's name and e-mail
address), so every reader of a seat (its page, the listing, the turn mail) goes on reading the
seat's contact alone; an edit or an erasure is carried to every one of those seats here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import core
from events.commands import Games
from events.joining import open_seats_of
from events.rematch import Rematches
from events.people import FORMER_PLAYER, People, Person, PersonError, check_email, check_name, check_tz
from events.seats import Seats
from pbm import seating

UNSET: Any = object()


def link(base_url: str | None, token: str) -> str:
    """A person's link: their page under the server's public address (PBM_PUBLIC_URL)."""
    base = base_url or os.environ.get("PBM_PUBLIC_URL") or seating.DEFAULT_BASE_URL
    return f"{base.rstrip('/')}/me/{token}"


def add(people: People, name: str, email: str | None = None, tz: str | None = None) -> tuple[Person, str]:
    return people.add(name, email, tz)


def edit(people: People, seats: Seats, person_id: str, name: str | None = None, email: Any = UNSET, tz: Any = UNSET) -> Person:
    """Change a person's data (email/tz None: remove it) and carry it to every seat they hold."""
    changes = {key: value for key, value in (("email", email), ("tz", tz)) if value is not UNSET}
    person = people.edit(person_id, name=name, **changes)
    for game_id, seat in people.seats(person_id):
        copy_to_seat(seats, person, game_id, seat)
    return person


def copy_to_seat(seats: Seats, person: Person, game_id: str, seat: int) -> None:
    seats.set_contact(game_id, seat, name=person.name, email=person.email)
    if person.email is None and "email" in seats.contact(game_id, seat):
        seats.erase_contact(game_id, seat, "email")


def erase(people: People, seats: Seats, person_id: str) -> list[tuple[str, int]]:
    """Erase a person: their data, token and index go; each seat they held keeps the name "a
    former player" and loses its address and webhook (no more mail). The logs are untouched (no
    name or address is in a log), so every one still verifies. Returns the seats they held."""
    people.need(person_id)
    held = people.seats(person_id)
    for game_id, seat in held:
        seats.erase_contact(game_id, seat, "email", "webhook", "webhook_secret")
        seats.set_contact(game_id, seat, name=FORMER_PLAYER)
        people.unseat(person_id, game_id, seat)
    people.forget(person_id)
    return held


def seat_person(people: People, seats: Seats, person: Person, game_id: str, seat: int) -> None:
    """The person holds `seat` of `game_id` from now on: it is named and reached as they are."""
    people.seat(person.id, game_id, seat)
    copy_to_seat(seats, person, game_id, seat)


def check_invitations(people: People, specs: list[Mapping[str, Any]], bots: Mapping[int, str]) -> list[Mapping[str, Any] | None]:
    """A new game's seats, checked before anything is written: for each seat, its spec if it is
    a person's (it names `person`, or an `email`), else None. PersonError naming the seat and what
    is wrong: a person that does not exist, a bad address, name or time zone, a seat with no name."""
    found: list[Mapping[str, Any] | None] = []
    for seat, spec in enumerate(specs):
        if spec.get("open"):
            found.append(None)
            continue
        try:
            if spec.get("person") is not None:
                if seat in bots:
                    raise PersonError("a bot's seat is nobody's: give it a name, not a person")
                people.need(spec["person"])
            elif spec.get("email") is not None and seat not in bots:
                check_email(spec["email"])
                if people.by_email(spec["email"]) is None:
                    if not spec.get("name"):
                        raise PersonError("name: a seat whose address is nobody's yet needs a name, to make its person")
                    check_name(spec["name"])
                    if spec.get("tz") is not None:
                        check_tz(spec["tz"])
            elif not spec.get("name"):
                raise PersonError("name: a seat needs a name (or a person)")
        except PersonError as wrong:
            raise PersonError(f"seats.{seat}: {wrong}") from None
        wanted = seat not in bots and (spec.get("person") is not None or spec.get("email") is not None)
        found.append(spec if wanted else None)
    return found


def seated(people: People, seats: Seats, spec: Mapping[str, Any], game_id: str, seat: int) -> Person:
    """Seat the person a checked spec names (check_invitations): `person`, or the owner of its
    `email`, made with its `name` and `tz` when nobody has that address yet."""
    if spec.get("person") is not None:
        person = people.need(spec["person"])
    else:
        owner = people.by_email(spec["email"])
        person = people.need(owner) if owner else people.add(spec["name"], spec["email"], spec.get("tz"))[0]
    seat_person(people, seats, person, game_id, seat)
    return person


def seat_link(person_token: str, game_id: str, seat: int) -> str:
    """The path on a person's page that opens one of their seats (pbm/web/people.py checks that
    they hold it, then redirects to the seat's page)."""
    return f"/me/{person_token}/seat/{game_id}/{seat}"


def open_seat(people: People, seats: Seats, person_id: str, game_id: str, seat: int) -> str | None:
    """The seat's token, for the person who holds it: made again from the seat store's nonce (or
    issued, when the seat has no working token); None if they do not hold it (or the game is a
    bot's seat now, or gone). Nothing but this check lets a person token reach a seat token."""
    if people.holder(game_id, seat) != person_id:
        return None
    return seats.remade(game_id, seat) or seats.issue(game_id, seat)


ORDER = {"your turn": 0, "waiting for players": 1, "waiting for salts": 1, "waiting": 1, "finished": 2}


def holdings(games: Games, seats: Seats, people: People, person_id: str, now_ms: int) -> list[dict[str, Any]]:
    """Every seat the person holds, as their page lists them: their turns first (soonest deadline
    first), then the games waiting on others (or on players to join), then the finished ones with
    their results (latest first). From the games' rows, clocks and seat names: no log is folded."""
    held = people.seats(person_id)
    game_ids = sorted({game_id for game_id, _ in held})
    infos = {info.game_id: info for info in games.store.rows(game_ids)}
    names = seats.names([(game_id, info.players) for game_id, info in infos.items()])
    running = [game_id for game_id, info in infos.items() if info.status is not None and not info.finished]
    clocks = games.store.clocks(running) if running else {}
    waiting_for_players = open_seats_of(games.store.redis, running)
    rematches = Rematches(games.store.redis)
    rows = []
    for game_id, seat in held:
        info = infos.get(game_id)
        if info is None or info.status is None:
            continue  # a game deleted, or from before rows were kept (`pbm reindex` writes them)
        title = core.GAMES[info.slug].title if info.slug in core.GAMES else info.slug
        status, seat_names = info.status, names[game_id]
        row: dict[str, Any] = {
            "game_id": game_id, "game": info.slug, "title": title, "seat": seat, "name": seat_names[seat],
            "players": [name or f"seat {n}" for n, name in enumerate(seat_names)],
            "deadline": None, "result": None, "since_ms": status.since_ms, "seq": info.length or 0,
        }
        if info.finished:
            row |= {"state": "finished", "result": result_text(status.outcome, seat, seat_names), "rematch": rematch_of(rematches, game_id, info.players, status.bots, seat_names, seat)}
        elif waiting_for_players.get(game_id):
            row |= {"state": "waiting for players", "open_seats": waiting_for_players[game_id]}
        elif status.waiting == "salts":  # nobody is to act: the opening deal waits (docs/fairness.md)
            row |= {"state": "waiting for salts"}
        elif seat in status.to_act and seat not in status.bots:
            clock = clocks.get(game_id)
            due = None if clock is None else clock.due_ms(seat)
            row |= {"state": "your turn", "deadline": None if due is None else iso(due), "due_ms": due}
        else:
            row |= {"state": "waiting", "waiting_for": [seat_names[s] or f"seat {s}" for s in status.to_act]}
        rows.append(row)

    def order(row: dict[str, Any]) -> tuple:
        due = row.get("due_ms")
        if row["state"] == "finished":
            return (2, -row["since_ms"])
        return (ORDER[row["state"]], due is None, due or 0, row["since_ms"])

    rows.sort(key=order)
    for row in rows:
        row.pop("due_ms", None)
    return rows


def rematch_of(rematches: Rematches, game_id: str, players: int, bots: tuple[int, ...], names: list[str | None], reader: int) -> dict[str, Any] | None:
    """A finished game's rematch as the person's page lists it (pbm/rematch.py): its game and whom
    it waits for ("you" for the `reader`'s seat); None when nobody has asked for one."""
    proposal = rematches.of(game_id)
    if proposal is None:
        return None
    waiting = proposal.waiting_for(seat for seat in range(players) if seat not in bots)
    return {"game_id": proposal.game_id, "waiting_for": ["you" if seat == reader else names[seat] or f"seat {seat}" for seat in waiting]}


def iso(time_ms: int) -> str:
    from events.clock import iso as iso_of

    return iso_of(time_ms) or ""


def result_text(outcome: Mapping[str, Any] | None, seat: int, names: list[str | None]) -> str:
    """A finished game's result for one seat: "you won", "won by Ann", with every score."""
    if not outcome:
        return "over"
    winners = list(outcome.get("winners", []))
    called = [("you" if n == seat else (names[n] or f"seat {n}")) for n in range(len(names))]
    if not winners:
        said = "nobody won"
    elif seat in winners and len(winners) == 1:
        said = "you won"
    else:
        said = "won by " + " and ".join(called[n] for n in winners)
    scores = outcome.get("scores") or []
    if scores:
        said += " (" + ", ".join(f"{called[n]} {score}" for n, score in enumerate(scores)) + ")"
    return said
