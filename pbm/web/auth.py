"""Who is asking: a seat by its secret token, or the operator by PBM_ADMIN_TOKEN. The dependencies
here are shared by the API and the pages. They never log or echo a token.

A token that is malformed, unknown, replaced or of another game gets the same 401 and the same
message, so a guess learns nothing.
"""

from __future__ import annotations

import hmac

import attrs
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from pbm.web.context import Server, current
from pbm.web.errors import ApiError

bearer = HTTPBearer(auto_error=False, description="A seat's secret token, or PBM_ADMIN_TOKEN for /api/games")
NOT_A_SEAT = "not a valid seat token (it may have been re-issued: ask the game's operator for your link)"


@attrs.frozen
class SeatAccess:
    """The seat a request speaks for."""

    game_id: str
    seat: int
    server: Server


def unauthorized(message: str) -> ApiError:
    return ApiError(401, message, {"WWW-Authenticate": "Bearer"})


def seat_for(server: Server, token: str | None) -> SeatAccess:
    """The seat of a token (from a header, a path or a mail address), or a 401 ApiError."""
    found = server.seats.resolve(token) if token else None
    if found is None:
        raise unauthorized(NOT_A_SEAT)
    return SeatAccess(found[0], found[1], server)


def token_of(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    return None if credentials is None else credentials.credentials


def me(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> SeatAccess:
    """Dependency: the seat whose token is the request's bearer token."""
    return seat_for(current(request), token_of(credentials))


def mover_for(server: Server, token: str | None) -> SeatAccess:
    """As seat_for, and counts the request against the seat's move allowance in the same round
    trip to Redis; 429 past it. (Called by the move endpoint itself, not as a dependency, so a
    move costs one hand-over to the thread pool, not two.)"""
    found = server.seats.resolve_counting(token, server.move_window_s) if token else None
    if found is None:
        raise unauthorized(NOT_A_SEAT)
    game_id, seat, count = found
    if count > server.moves_per_window:
        raise ApiError(
            429,
            f"too many moves: at most {server.moves_per_window} every {server.move_window_s} s per seat",
            {"Retry-After": str(server.move_window_s)},
        )
    return SeatAccess(game_id, seat, server)


async def admin(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Server:
    """Dependency: the operator, by PBM_ADMIN_TOKEN as the bearer token (no I/O: run on the loop)."""
    server = current(request)
    if not server.admin_token:
        raise unauthorized("the operator's API is off: start the server with PBM_ADMIN_TOKEN set")
    given = token_of(credentials) or ""
    if not hmac.compare_digest(given.encode(), server.admin_token.encode()):
        raise unauthorized("not the operator's token (PBM_ADMIN_TOKEN)")
    return server
