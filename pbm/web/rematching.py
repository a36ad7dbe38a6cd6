"""Rematches on the web: a finished game's seat asks for one (or accepts it) from its page (a form
POST to <page>/rematch, back to the page) or by the API (POST /api/me/rematch, its seat token as
bearer; GET for where it stands), and opens its seat in the rematch once it has begun (GET
<page>/rematch: the new seat's cookie, and on to its page). Every operation is pbm.rematch's; the
new game is made through the operator's one path (pbm/web/operator.py create).

No answer carries a token of any seat but the asking seat's own seat in the rematch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from events.rematch import Rematches
from pbm import rematch, seating
from pbm.web import operator, seat_cookie
from pbm.web.auth import SeatAccess, me
from pbm.web.context import Server
from pbm.web.errors import ApiError
from pbm.web.pages import SEAT_PAGE, back_to_page, cookie_seat, not_a_seat, seat_form, secured

router = APIRouter()


def asked(request: Request, server: Server, game_id: str, seat: int) -> rematch.Rematch:
    """The seat's request: pbm.rematch.ask, making the game (when it is the last to accept) as
    POST /api/games would, under the rematch's id."""
    base = server.base_url(request)

    def create(body: dict[str, Any], new_id: str) -> None:
        operator.create(server, base, operator.NewGame.model_validate(body), game_id=new_id, invite=False)  # its own notice tells them

    return rematch.ask(server.games, server.seats, server.people, Rematches(server.seats.redis), game_id, seat, create)


def answer(request: Request, access: SeatAccess, found: rematch.Rematch | None) -> dict[str, Any]:
    """Where the rematch stands for this seat; once begun, its own new seat's link."""
    server = access.server
    if found is None:
        return {"of": access.game_id, "game_id": None, "started": False}
    table = server.games.table(access.game_id)
    body = found.public(server.seats.names([(access.game_id, table.players)])[access.game_id])
    token = server.seats.remade(found.game_id, found.seat) if found.started else None
    if token is not None:
        body |= {"token": token, "url": seating.link(server.base_url(request), token)}
    return body


@router.post("/api/me/rematch", summary="Ask for a rematch of your finished game, or accept it (seat token as bearer)")
def api_rematch(request: Request, access: SeatAccess = Depends(me)) -> dict[str, Any]:
    return answer(request, access, asked(request, access.server, access.game_id, access.seat))


@router.get("/api/me/rematch", summary="Your finished game's rematch: who has accepted, and your seat in it once begun")
def api_rematch_state(request: Request, access: SeatAccess = Depends(me)) -> dict[str, Any]:
    return answer(request, access, rematch.of(access.server.games, Rematches(access.server.seats.redis), access.game_id, access.seat))


@router.post(SEAT_PAGE + "/rematch", include_in_schema=False)
async def post_rematch(game_id: str, seat: int, request: Request) -> Response:
    """The page's rematch button: asked for or accepted; back to the page, which says where it stands."""

    def ask(server: Server, access: SeatAccess, _first: Mapping[str, str]) -> str:
        return "rematch-begun" if asked(request, server, access.game_id, access.seat).started else "rematch"

    return await seat_form(request, game_id, seat, "rematch", ask, notice="rematch")


@router.get(SEAT_PAGE + "/rematch", include_in_schema=False)
def open_rematch(game_id: str, seat: int, request: Request) -> Response:
    """The seat's seat in the rematch, by the finished game's seat cookie: that seat's cookie and a
    303 to its page; back to the finished game's page while the rematch waits."""
    try:
        access, _token = cookie_seat(request, game_id, seat)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, failure.headers)
    server = access.server
    found = rematch.of(server.games, Rematches(server.seats.redis), game_id, seat)
    token = server.seats.remade(found.game_id, found.seat) if found is not None and found.started else None
    if token is None:
        return back_to_page(server, game_id, seat, {"notice": "rematch"} if found is not None else {})
    response = RedirectResponse(seat_cookie.seat_path(found.game_id, found.seat), status_code=303)
    seat_cookie.give(response, request, found.game_id, found.seat, token, server.public_url)
    return secured(response)
