"""The operator's API (bearer PBM_ADMIN_TOKEN): create games (with a clock, if asked), list them
with whom each waits for, since when and until when, one game's public view and clock, its replay
file, its verification, a seat's fresh link, a seat handed to a bot or back, and the clock paused,
resumed or extended; and the spectators' view of a game its creator opened.

Nothing here shows a seat's hidden cards, a token other than the one just issued, or personal data
beyond seat names.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from core.table import Table
from events import channels, keys
from events import clock as clocks
from events.commands import UnreadableGame
from events.joining import open_seats_of
from pbm import clock_control, seating, turn_report
from pbm.web.context import Server, current
from pbm.web.auth import admin
from pbm.web.errors import ApiError
from pbm.web import replay_file
from pbm import people as people_ops
from pbm import joining
from replays.log import from_store
from replays.verify import verify
from workers.bots import bot_seats, check_seats

router = APIRouter(prefix="/api/games")
GameId = Annotated[str, Path(min_length=1, max_length=120, pattern=r"^[A-Za-z0-9_.:-]+$")]
SeatNumber = Annotated[int, Path(ge=0, le=9999)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SeatSpec(Strict):
    # A seat's person (pbm/people.py): `person` (an id), or the person of `email`, made with this
    # name (and `tz`) when nobody has that address yet; a seat with neither is nobody's.
    name: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    # Checked further by events.channels: one address; https:// to a public host, unless allowed.
    email: Annotated[str, Field(min_length=3, max_length=254)] | None = None
    person: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    tz: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    open: bool = False  # nobody's yet: a visitor with the game's join link claims it (pbm/joining.py)
    webhook: Annotated[str, Field(min_length=8, max_length=2000, pattern=r"^https?://")] | None = None
    bot: Annotated[str, Field(min_length=1, max_length=40)] | None = None


class NewGame(Strict):
    game: Annotated[str, Field(min_length=1, max_length=40)]
    players: Annotated[int, Field(ge=1, le=100)]
    seats: Annotated[list[SeatSpec], Field(min_length=1, max_length=100)]
    options: dict[Annotated[str, Field(max_length=40)], StrictBool | StrictInt | StrictStr] | None = Field(None, max_length=20)
    seed: Annotated[int, Field(ge=0, lt=2**256)] | None = None
    spectators: bool = False  # anyone may watch the public view (GET /api/games/{id}/public)
    # The clock (events.clock.settings): each move's time ("5s", "90m", "48h", "2d"), reminders
    # before it ("24h,2h" or a list), vacation days per seat and year, timeouts in a row before
    # the autopilot takes a seat (0: never). No deadline: no clock.
    deadline: Annotated[str, Field(min_length=1, max_length=20)] | None = None
    reminders: Annotated[str, Field(max_length=100)] | Annotated[list[Annotated[str, Field(max_length=20)]], Field(max_length=5)] = ""
    vacation_days: Annotated[int, Field(ge=0, le=365)] = 0
    autopilot_after: Annotated[int, Field(ge=0, le=100)] = 3
    # A person's only legal move: played for them ("auto") or left to them ("ask"); docs/orders.md.
    forced_moves: Annotated[str, Field(pattern=r"^(auto|ask)$")] = "auto"
    # The opening deal waits for a salt from each person's seat, given after the seed's commitment
    # (POST /api/me/salt; docs/fairness.md), so the server cannot pick its seed for a deal it likes.
    # False: dealt at once, as a game of bots only always is.
    late_salts: bool = True


class ClockChange(Strict):
    action: Annotated[str, Field(pattern=r"^(pause|resume|extend)$")]
    by: Annotated[str, Field(min_length=1, max_length=20)] | None = None  # extend: a duration
    seat: Annotated[int, Field(ge=0, le=9999)] | None = None  # extend: only this seat's turn


class Seating(Strict):
    bot: Annotated[str, Field(min_length=1, max_length=40)] | None  # None: back to a person


@router.post("", status_code=201, summary="Create a game; answers each human seat's link once")
def create_game(body: NewGame, request: Request, server: Server = Depends(admin)) -> dict[str, Any]:
    base = server.base_url(request)  # refused before anything is written: no game without its links
    return create(server, base, body)


def create(server: Server, base: str, body: NewGame, game_id: str | None = None, invite: bool = True) -> dict[str, Any]:
    """A new game as `body` asks (the API's, the console's and a rematch's one path): each human
    seat's link, answered once, and the join link when seats are open; each invited person with an
    e-mail address is sent an invitation (unless not `invite`: a rematch sends its own notice).
    Everything is checked before anything is written; under `game_id` (a rematch's), Conflict if
    that game exists, nothing written."""
    people, joins = server.people, server.joins
    if len(body.seats) != body.players:
        raise ApiError(422, f"seats: {len(body.seats)} given for {body.players} players")
    for seat, spec in enumerate(body.seats):  # before the game is made: a refusal leaves nothing behind
        if spec.email is not None:
            channels.checked_email(spec.email, f"seats[{seat}].email")
        if spec.webhook is not None:
            channels.checked_webhook(spec.webhook, f"seats[{seat}].webhook")
    bots = check_seats({seat: spec.bot for seat, spec in enumerate(body.seats) if spec.bot is not None})
    open_seats = [seat for seat, spec in enumerate(body.seats) if spec.open]
    joining.check_open(body.players, open_seats, bots)
    invitations = people_ops.check_invitations(people, [spec.model_dump() for spec in body.seats], bots)  # before anything is written
    clock = None
    if body.deadline is not None:
        clock = clocks.settings(body.deadline, body.reminders, body.vacation_days, body.autopilot_after)
    elif body.reminders or body.vacation_days:
        raise ApiError(422, "reminders and vacation_days need a deadline")
    salting = [seat for seat in range(body.players) if seat not in bots]
    game_id = server.games.create(body.game, body.players, seed=body.seed, options=body.options, bots=bots, clock=clock, game_id=game_id,
                                  forced_moves=body.forced_moves, paused=bool(open_seats), salt_seats=salting if body.late_salts else ())
    if body.spectators:
        server.seats.open_to_spectators(game_id)
    answered, invited = [], []
    for seat, spec in enumerate(body.seats):
        if spec.open:
            answered.append({"seat": seat, "open": True})
            continue
        webhook_secret = secrets.token_hex(32) if spec.webhook else None
        server.seats.set_contact(game_id, seat, name=spec.name, email=spec.email, webhook=spec.webhook, webhook_secret=webhook_secret)
        if seat in bots:
            answered.append({"seat": seat, "name": spec.name, "bot": bots[seat]})
            continue
        token = server.seats.issue(game_id, seat)
        person = invitations[seat] and people_ops.seated(people, server.seats, invitations[seat], game_id, seat)
        entry = {"seat": seat, "name": person.name if person else spec.name, "token": token, "url": seating.link(base, token)}
        if person:
            entry |= {"person": person.id, "person_url": people_ops.link(base, people.token(person.id))}
            if person.email:
                invited.append(seat)
        if webhook_secret:
            entry["webhook_secret"] = webhook_secret  # answered once, like the token
        answered.append(entry)
    if invite:  # before the first turn's notice, which may follow at once (no late salts)
        seating.notify_seats(server.games, server.seats, game_id, invited, "invite")
    if server.games.dispatch is not None and any(spec.email or spec.webhook or spec.person for spec in body.seats):
        # The create dispatched before the seats had channels and tokens: now the first turn's
        # notification can be queued (job ids are unique, so nothing else is queued twice).
        server.games.dispatch(game_id, server.games.table(game_id))
    answer = {"game_id": game_id, "game": body.game, "seats": answered, "clock": clock_control.describe(server.games, game_id) if clock else None}
    if open_seats:
        answer["join_url"] = joining.link(base, joining.open_up(server.games, joins, game_id, open_seats))
    return answer


def names(server: Server, game_id: str, players: int) -> list[str | None]:
    return server.seats.names([(game_id, players)])[game_id]


def status(server: Server, game_id: str, table: Table, seat_names: list[str | None]) -> dict[str, Any]:
    """Where a game stands, folded from its log: whom it waits for and since when."""
    last = server.games.store.read(game_id, table.seq - 1)
    outcome = table.outcome
    waiting = "salts" if table.waiting_for_salts else ""
    return standing(seat_names, table.seq, table.to_act, last[0].time_ms if last else None, None if outcome is None else outcome.to_dict(), waiting)


def standing(seat_names: list[str | None], seq: int | None, to_act: tuple[int, ...], since_ms: int | None, outcome: Any, waiting: str = "") -> dict[str, Any]:
    found = {
        "seq": seq,
        "waiting_for": [{"seat": seat, "name": seat_names[seat]} for seat in to_act],
        "since_ms": since_ms,
        "outcome": outcome,
    }
    if waiting:  # nobody is to act: the opening deal waits for the players' salts
        found["status"] = f"waiting for {waiting}"
    return found


@router.get("", summary="Every game: whom it waits for and since when")
def list_games(server: Server = Depends(admin)) -> dict[str, Any]:
    return listing(server)


def listing(server: Server) -> dict[str, Any]:
    """Every game, whom it waits for and since when (the API's and the console's listing). From the game index's rows (events.store): one read for the rows and one for the names,
    not a fold per game; only a row from before rows were kept is folded from its log."""
    infos = server.games.store.games()
    seat_names = server.seats.names([(info.game_id, info.players) for info in infos])
    due = clocks_of(server, infos)
    unseated = open_seats_of(server.games.store.redis, [info.game_id for info in infos if not info.finished])
    rows = []
    for info in infos:
        listed = {"game_id": info.game_id, "game": info.slug, "players": info.players, "created_ms": info.created_ms}
        if info.game_id in unseated:  # its clock starts when they are taken (pbm/joining.py)
            listed["waiting_for_players"] = unseated[info.game_id]
        if info.game_id in due:
            listed["clock"] = due[info.game_id]
        game_names = seat_names[info.game_id]
        if info.status is not None:
            state = info.status
            rows.append(listed | standing(game_names, info.length, state.to_act, state.since_ms, state.outcome, state.waiting))
            continue
        try:
            table = server.games.table(info.game_id)
        except UnreadableGame as damaged:  # one damaged log must not hide the others
            rows.append(listed | {"error": damaged.reason})
            continue
        rows.append(listed | status(server, info.game_id, table, game_names))
    return {"games": rows}


def clocks_of(server: Server, infos: list) -> dict[str, dict[str, Any]]:
    """The clock of each running game with one (the index's clocked games): from each game's cached
    clock and the envelopes after it (Store.clocks), so a listing reads a game's whole log only
    the first time it lists it."""
    clocked = set(server.games.store.redis.zrange(keys.CLOCKED_GAMES, 0, -1))
    running = [info for info in infos if info.game_id.encode() in clocked and info.status is not None and not info.finished]
    if not running:
        return {}
    found = server.games.store.clocks([info.game_id for info in running])  # a damaged log is left out
    now = clock_control.now_ms()
    return {info.game_id: found[info.game_id].describe(info.status.to_act, info.status.bots, now) for info in running if info.game_id in found}


@router.get("/{game_id}", summary="One game's public view, with its seats and clock")
def get_game(game_id: GameId, server: Server = Depends(admin)) -> dict[str, Any]:
    return game_of(server, game_id)


def game_of(server: Server, game_id: str) -> dict[str, Any]:
    """One game's public view, seats and clock (the API's and the console's)."""
    table = server.games.table(game_id)
    seat_names = names(server, game_id, table.players)
    bots = bot_seats(table.events)
    issued = server.seats.issued(game_id)
    seats = [
        {"seat": seat, "name": seat_names[seat], "bot": bots.get(seat), "link": seat in issued}
        for seat in range(table.players)
    ]
    return {"game_id": game_id, "game": table.game.slug, "players": table.players} | status(server, game_id, table, seat_names) | {
        "seats": seats,
        "spectators": server.seats.spectators_allowed(game_id),
        "waiting_for_players": open_seats_of(server.games.store.redis, [game_id]).get(game_id, []),
        "clock": clock_control.describe(server.games, game_id),
        "view": table.view(None),
    }


@router.post("/{game_id}/clock", summary="Pause, resume or extend a game's clock")
def change_clock(game_id: GameId, body: ClockChange, server: Server = Depends(admin)) -> dict[str, Any]:
    return clock_changed(server, game_id, body)


def clock_changed(server: Server, game_id: str, body: ClockChange) -> dict[str, Any]:
    """The clock paused, resumed or extended (the API's and the console's)."""
    if body.action == "extend":
        if body.by is None:
            raise ApiError(422, "by: extend takes a duration (e.g. \"12h\")")
        described = clock_control.extend(server.games, game_id, body.by, body.seat)
    elif body.by is not None or body.seat is not None:
        raise ApiError(422, f"{body.action} takes no 'by' or 'seat'")
    else:
        described = clock_control.pause(server.games, game_id) if body.action == "pause" else clock_control.resume(server.games, game_id)
    return {"game_id": game_id, "clock": described}


@router.get("/{game_id}/export", summary="The game's replay file (pbm replay import reads it)", response_class=Response)
def export_game(game_id: GameId, server: Server = Depends(admin)) -> Response:
    server.games.table(game_id)  # UnknownGame -> 404
    return replay_file.download(server.games.store, game_id)


@router.get("/{game_id}/verify", summary="Hash chain, seed commitment, deals and every command re-decided")
def verify_game(
    game_id: GameId,
    secret_seed: Annotated[bool, Query(description="A running game: check its deals with the secret seed")] = False,
    server: Server = Depends(admin),
) -> dict[str, Any]:
    return verified(server, game_id, secret_seed)


def verified(server: Server, game_id: str, secret_seed: bool = False) -> dict[str, Any]:
    """The game's verification report (the API's and the console's)."""
    server.games.table(game_id)
    store = server.games.store
    report = verify(from_store(store, game_id), store.seed(game_id) if secret_seed else None)
    return {
        "game_id": game_id,
        "ok": report.ok,
        "first_bad_seq": report.first_bad_seq,
        "findings": [{"status": f.status, "check": f.check, "seq": f.seq, "text": f.text} for f in report.findings],
    }


@router.post("/{game_id}/seats/{seat}/token", summary="A fresh link for a seat; the old one stops working")
def reissue(game_id: GameId, seat: SeatNumber, request: Request, server: Server = Depends(admin)) -> dict[str, Any]:
    return reissued(server, server.base_url(request), game_id, seat)  # the base before the old link stops working


def reissued(server: Server, base: str, game_id: str, seat: int) -> dict[str, Any]:
    """A seat's fresh link, answered once (the API's and the console's)."""
    token = seating.reinvite(server.games, server.seats, game_id, seat)
    return {"game_id": game_id, "seat": seat, "token": token, "url": seating.link(base, token)}


@router.put("/{game_id}/seats/{seat}", summary="Hand a seat to a bot, or back to a person")
def seat_player(game_id: GameId, seat: SeatNumber, body: Seating, request: Request, server: Server = Depends(admin)) -> dict[str, Any]:
    base = server.base_url(request) if body.bot is None else None  # a person's new link: before the seat changes hands
    return handed(server, base, game_id, seat, body.bot)


def handed(server: Server, base: str | None, game_id: str, seat: int, bot: str | None) -> dict[str, Any]:
    """A seat handed to a bot, or back to a person with a fresh link if it had none (the API's
    and the console's)."""
    token = seating.hand_over(server.games, server.seats, game_id, seat, bot)
    answer: dict[str, Any] = {"game_id": game_id, "seat": seat, "bot": bot_seats(server.games.table(game_id).events).get(seat)}
    if token is not None:
        answer |= {"token": token, "url": seating.link(base, token)}
    return answer


spectators = APIRouter(prefix="/api/games")


@spectators.get("/{game_id}/public", summary="A spectator's view and story, when the game's creator allows it")
def spectate(game_id: GameId, request: Request) -> dict[str, Any]:
    server = current(request)
    if not server.seats.spectators_allowed(game_id):
        raise ApiError(404, f"no game {game_id!r} open to spectators")
    table = server.games.table(game_id)
    # The story is text for a person: the seats by name, as every other story names them.
    return {"game_id": game_id, "view": table.view(None), "log": turn_report.story(table, None, seating.names(server.seats, game_id, table))}
