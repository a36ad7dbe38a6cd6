"""The player's JSON API (/api/me...): a seat's view, its story and its moves, by its token. Each
endpoint turns a request into one call of the command path or one view; the rules are not here.

The endpoints are plain functions on purpose: FastAPI runs them in its thread pool, so while one
request waits on Redis others go on (the command path takes a game's lock per call, so one game's
folded table is never touched by two threads at once).

The move endpoint, the one a busy server answers most, is reached past the rest of the stack
(pbm/web/app.py, Shortcut) and routed by MoveRoute: the same function, the same spec, but its
arguments are read straight from the request instead of through FastAPI's general dependency
solving and validation; it runs on the event loop's thread with its waits for Redis yielding to
the loop (pbm/web/context.py, MovePool; events/cooperative.py), not handed to a thread and back,
and never blocking the loop, which a Redis that hangs would hold; and its token's check rides on
the move's own append (events.seats.TokenCheck). Each cost the server about as much CPU as the
move itself (bench/serve.py; docs/serve.md "Speed").
"""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

import core
from events import clock as clocks
from pbm import clock_control, disputes, seating, turn_report
from events.disputes import Disputes
from events.orders import Orders
from events.seats import NotASeat, OverAllowance, TokenCheck
from events.server import FAILURES
from pbm.web.auth import SeatAccess, bearer, checked, me, move_check, refusal, token_of
from pbm.web.context import current
from pbm.web.errors import ApiError, JSONAnswer
from pbm.web import replay_file

router = APIRouter(prefix="/api/me")
Text = Annotated[str, Field(min_length=1, max_length=200)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Move(Strict):
    move: Text
    expected_seq: Annotated[int, Field(ge=0, le=10**9)] | None = None


class Salt(Strict):
    salt: Annotated[str, Field(strict=True, min_length=1, max_length=200)]


class DisputeBody(Strict):
    # Bounds are events.disputes' (one line naming what is wrong), not the model's: one message a rule.
    seq: Annotated[int, Field(strict=True)]
    reason: str


class Vacation(Strict):
    days: Annotated[int, Field(ge=1, le=365)]


def command_id(seat: int, idempotency_key: str | None) -> str | None:
    """The client's Idempotency-Key, kept to its seat: one seat cannot replay another's command."""
    if idempotency_key is None:
        return None
    if not 0 < len(idempotency_key) <= 200 or not idempotency_key.isprintable():
        raise ApiError(422, "Idempotency-Key: 1 to 200 printable characters")
    return f"web:{seat}:{idempotency_key}"


def seat_view(access: SeatAccess) -> dict[str, Any]:
    games = access.server.games
    table, clock = games.table_with_clock(access.game_id)
    deadline = clock_control.deadline_of(table, clock)
    orders = Orders(games.store)  # the seat's own: its orders, and the notes of those dropped
    return {
        "game_id": access.game_id,
        "seat": access.seat,
        "view": table.view(access.seat),
        # The report is text for a person, with the seats' names; the view's fields keep seat numbers.
        "report": turn_report.since_last_move(table, games.store.since_move(access.game_id, access.seat, table.seq - 1), access.seat,
                                              orders.notes(access.game_id, access.seat), seating.names(access.server.seats, access.game_id, table, access.seat)),
        "orders": [order.to_json() for order in orders.read(access.game_id, access.seat)],
        # The due time (ISO 8601 UTC) of the turn in progress, null without a clock or while paused;
        # whose it is and a line to read are in "clock".
        "deadline": None if deadline is None else deadline["due"],
        # While the opening deal waits for salts: when the salt deadline deals it at the latest
        # (ISO 8601 UTC; null when the deal does not wait, or while the clock is paused).
        "salts_due": clocks.iso(clock.salts_due_ms(table.waiting_for_salts[0])) if table.waiting_for_salts else None,
        "clock": None if clock.settings is None else {
            "deadline": deadline,
            "paused": clock.paused_since_ms is not None,
            "vacation_days_left": clock.vacation_left(access.seat, clock_control.now_ms()),
            "on_vacation_until": clocks.iso(clock.on_vacation_until(access.seat, clock_control.now_ms())),
        },
    }


@router.get("", summary="Your seat: its view and what happened since your last move")
def get_me(access: SeatAccess = Depends(me)) -> dict[str, Any]:
    return seat_view(access)


@router.get("/log", summary="The whole story of your game, as your seat may see it")
def get_my_log(access: SeatAccess = Depends(me)) -> dict[str, Any]:
    table = access.server.games.table(access.game_id)
    name = seating.names(access.server.seats, access.game_id, table, access.seat)
    return {"game_id": access.game_id, "seat": access.seat, "log": turn_report.story(table, access.seat, name)}


@router.get("/export", summary="Your game's replay file, once it is over (pbm replay verify FILE checks it)", response_class=Response,
            responses={409: {"description": "The game is still running"}})
def get_my_export(access: SeatAccess = Depends(me)) -> Response:
    """The same bytes as the operator's export. The log holds every seat's hidden cards and the
    secret seed's commitment, so a seat may have it only once the game is over and the seed is out."""
    return replay_file.for_a_seat(access.server.games, access.game_id)


class MoveRoute(APIRoute):
    """POST /api/me/moves, read lean. FastAPI still builds the spec from post_move's signature;
    the request is read here the way FastAPI would read it for that signature: the body as JSON
    (its Content-Type must say so) validated by the same Move model, the bearer token by the same
    HTTPBearer, the Idempotency-Key header as it is (command_id bounds it). A refusal raises what
    FastAPI raises, so the app's error answers are the same."""

    def get_route_handler(self):
        endpoint = self.endpoint

        async def handler(request: Request) -> Response:
            raw = await request.body()
            kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if raw and not (kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))):
                raise ApiError(422, "body: send the move as JSON (Content-Type: application/json)")
            try:
                body = Move.model_validate_json(raw or b"null")
            except ValidationError as invalid:
                raise RequestValidationError([{**problem, "loc": ("body", *problem["loc"])} for problem in invalid.errors(include_url=False)]) from None
            credentials = await bearer(request)
            play = partial(endpoint, body, request, credentials, request.headers.get("idempotency-key"))
            return await current(request).move_pool.run(play)

        return handler


def post_move(
    body: Move,
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> JSONAnswer:
    server = current(request)
    # The token's check rides on the move's append (one round trip to Redis): whatever ends the
    # request otherwise (a refusal, a conflict, a repeated command) is told only once it has run.
    check = move_check(server, token_of(credentials))
    access = SeatAccess(check.game_id, check.seat, server)
    games, seat = server.games, access.seat
    try:
        before, expected_seq = taken_back(access, body.expected_seq, check)
        check.reads = server.seats.name_reads([(access.game_id, before.players)])  # the report's names, on the append's round trip
        submitted = games.submit(access.game_id, seat, body.move, command_id(seat, idempotency_key), expected_seq, check=check)
    except (NotASeat, OverAllowance) as refused:
        raise refusal(refused, check) from None
    except FAILURES:
        raise  # the check would wait on the same Redis again: a 503 tells nothing of the token
    except Exception:
        checked(check)
        raise
    checked(check)
    stop = submitted.seq + len(submitted.events)
    after = games.table_at(access.game_id, stop)  # this process folded its own append: no read
    name = seating.names(server.seats, access.game_id, after, seat, read=check)
    if submitted.duplicate or before.seq != submitted.seq or before.seq != expected_seq:
        report = turn_report.lines_between(after, seat, submitted.seq, stop, name)
    else:  # only the new events are narrated, from the state before them
        report = turn_report.lines_after(before, after.events[submitted.seq : stop], seat, name)
    # A response of its own skips FastAPI's encoding pass over the return value: the dict is JSON already.
    return JSONAnswer({"seq": submitted.seq, "duplicate": submitted.duplicate, "view": after.view(seat), "report": report})


router.add_api_route("/moves", post_move, methods=["POST"], summary="Play a move for your seat", route_class_override=MoveRoute)


def move_route() -> APIRoute:
    """The route of POST /api/me/moves (pbm/web/app.py sends its requests straight there)."""
    return next(route for route in router.routes if isinstance(route, MoveRoute))


def taken_back(access: SeatAccess, expected_seq: int | None, check: TokenCheck | None = None) -> tuple[core.Table, int | None]:
    """The table before a seat's move (held at `expected_seq`, it comes without a read: a newer
    log is learnt by a Conflict) and the seq the move is then expected at.

    A seat the clock handed to the autopilot (timeouts in a row) is its player's again when they
    move: the hand-back is appended first, and the move expected right after it. A seat the
    operator handed to a bot stays the bot's: its person's link still shows the game but plays no
    move (it would race the bot's job). A token `check` not run yet runs before either."""
    games, seat = access.server.games, access.seat
    before = games.table_at(access.game_id, expected_seq)
    if check is not None and seat in before.bots:
        checked(check)
    try:
        handed = clock_control.take_back(games, access.game_id, seat, before)
    except clock_control.PlayedByBot as refusal:
        raise ApiError(409, str(refusal)) from None
    if handed is not None and expected_seq is not None and handed.seq == expected_seq:
        expected_seq = handed.seq + len(handed.events)
    return before, expected_seq


@router.post("/salt", summary="Give your seat's salt for the opening deal (once, before the deal)")
def post_salt(body: Salt, access: SeatAccess = Depends(me)) -> dict[str, Any]:
    """Mixed with the seed into every draw (docs/fairness.md): made where the server cannot see
    it first (the seat's page makes one in the browser). 422 for a second salt or one after the deal."""
    games = access.server.games
    submitted = games.give_salt(access.game_id, access.seat, body.salt)
    table = games.table(access.game_id)
    return {"seq": submitted.seq, "dealt": not table.waiting_for_salts, "view": table.view(access.seat)}


@router.post("/vacation", summary="Stop your seat's clock for some days, out of its yearly bank")
def post_vacation(body: Vacation, access: SeatAccess = Depends(me)) -> dict[str, Any]:
    return {"game_id": access.game_id, "seat": access.seat, "clock": clock_control.take_vacation(access.server.games, access.game_id, access.seat, body.days)}


@router.post("/disputes", status_code=201, summary="Dispute what happened at a seq of your game, with a reason")
def post_dispute(body: DisputeBody, access: SeatAccess = Depends(me), idempotency_key: Annotated[str | None, Header(max_length=200)] = None) -> JSONAnswer:
    """Kept beside the log (a dispute is no move); the operator sees it and settles it, and every
    seat is then sent the audit report at that seq with the operator's words. 422 for a seq the
    log does not hold, an empty or overlong reason; the same Idempotency-Key raises it once (200)."""
    dispute, duplicate = disputes.raise_dispute(access.server.games, access.game_id, access.seat, body.seq, body.reason,
                                                command_id(access.seat, idempotency_key))
    return JSONAnswer({"dispute": dispute.to_json(), "duplicate": duplicate}, status_code=200 if duplicate else 201)


@router.get("/disputes", summary="The disputes your seat has raised, and how each was settled")
def get_disputes(access: SeatAccess = Depends(me)) -> dict[str, Any]:
    mine = [d.to_json() for d in Disputes(access.server.games.store).all(access.game_id) if d.seat == access.seat]
    return {"game_id": access.game_id, "seat": access.seat, "disputes": mine}
