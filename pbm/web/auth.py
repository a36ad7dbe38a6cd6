"""Who is asking: a seat by its secret token, or the operator by PBM_ADMIN_TOKEN. The dependencies
here are shared by the API and the pages. They never log or echo a token.

A token that is malformed, unknown, replaced or of another game gets the same 401 and the same
message, so a guess learns nothing; each 401 counts against its client address's wrong tokens
(pbm/web/limits.py, Doors), and the operator's endpoints answer a wrong token only so often.
The server's log says which it was, naming the game and seat the token claims (never the rest
of it): an operator can tell a player's mangled link from a guess.
"""

from __future__ import annotations

import hmac
import logging

import attrs
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from events.seats import NotASeat, OverAllowance, TokenCheck, claimed, parse, redacted
from pbm.web.context import Server, current
from pbm.web.errors import ApiError
from pbm.web.limits import too_many

bearer = HTTPBearer(auto_error=False, description="A seat's secret token, or PBM_ADMIN_TOKEN for /api/games")
NOT_A_SEAT = "not a valid seat token (it may have been re-issued: ask the game's operator for your link)"
log = logging.getLogger("pbm.web")


@attrs.frozen
class SeatAccess:
    """The seat a request speaks for."""

    game_id: str
    seat: int
    server: Server


def unauthorized(message: str) -> ApiError:
    return ApiError(401, message, {"WWW-Authenticate": "Bearer"})


def not_a_seat(token: str | None) -> ApiError:
    """The 401 for a refused seat token, after one line in the server's log saying why, with the
    game and seat it claims and nothing else of it."""
    if not token:
        return unauthorized(NOT_A_SEAT)
    if not token.isascii():
        why = "not ASCII (a look-alike of a letter or digit)"
    elif parse(token) is None:
        why = "malformed"
    else:
        why = NOT_THE_SEATS
    logged_refusal(claimed(token), why)
    return unauthorized(NOT_A_SEAT)


NOT_THE_SEATS = "not the seat's (replaced, forged, or of a deleted game)"


def logged_refusal(named: tuple[str, int] | None, why: str) -> None:
    whose = "" if named is None else f" for game {named[0]}, seat {named[1]}"
    # redacted(): a game id is made of a token's own characters, so a mangled token could put a
    # secret where the game id goes.
    log.warning("%s", redacted(f"refused a seat token{whose}: {why}"))


def seat_for(server: Server, token: str | None) -> SeatAccess:
    """The seat of a token (from a header, a link or the seat's cookie), counted against the seat's
    allowance of reads in the same round trip to Redis: a 401 ApiError for a token that is not a
    seat's, 429 past the allowance."""
    reads = server.limits.reads
    check = server.seats.check(token, reads.window_s, reads.requests, kind="reads") if token else None
    if check is None:
        raise not_a_seat(token)
    try:
        check.run()
    except (NotASeat, OverAllowance) as refused:
        raise refusal(refused, check, "requests") from None
    return SeatAccess(check.game_id, check.seat, server)


def token_of(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    return None if credentials is None else credentials.credentials


def me(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> SeatAccess:
    """Dependency: the seat whose token is the request's bearer token."""
    return seat_for(current(request), token_of(credentials))


def move_check(server: Server, token: str | None) -> TokenCheck:
    """The check of a move request's token and its count against the seat's allowance, not yet
    run (it rides on the move's append, events.seats.TokenCheck); 401 for a malformed token."""
    moves = server.limits.moves
    check = server.seats.check(token, moves.window_s, moves.requests)
    if check is None:
        raise not_a_seat(token)
    return check


def checked(check: TokenCheck) -> None:
    """Runs the check if no append ran it yet: 401 for a token that is not the seat's, 429 past
    the seat's allowance."""
    try:
        check.run()
    except (NotASeat, OverAllowance) as refused:
        raise refusal(refused, check) from None


def refusal(refused: NotASeat | OverAllowance, check: TokenCheck, what: str = "moves") -> ApiError:
    if isinstance(refused, NotASeat):
        logged_refusal((check.game_id, check.seat), NOT_THE_SEATS)
        return unauthorized(NOT_A_SEAT)
    return too_many(refused, what, "seat")


def mover_for(server: Server, token: str | None) -> SeatAccess:
    """As seat_for, and counts the request against the seat's move allowance in the same round
    trip to Redis; 429 past it."""
    check = move_check(server, token)
    checked(check)
    return SeatAccess(check.game_id, check.seat, server)


async def admin(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Server:
    """Dependency: the operator, by PBM_ADMIN_TOKEN as the bearer token (no I/O: run on the loop)."""
    server = current(request)
    if not server.admin_token:
        raise unauthorized("the operator's API is off: start the server with PBM_ADMIN_TOKEN set")
    given = token_of(credentials) or ""
    if not hmac.compare_digest(given.encode(), server.admin_token.encode()):
        raise unauthorized("not the operator's token (PBM_ADMIN_TOKEN)")
    return server
