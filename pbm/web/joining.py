"""Join links on the web: the visitor's page (the link /join/{join token} leaves the token in the
game's join cookie and redirects to /join/g/{game}: a form for a name, an optional address and a
seat; works without JavaScript), its JSON twin (POST /api/join, the join token as
bearer) and the operator's join link shown again or revoked (/api/games/{id}/join-link). Every
operation is pbm.joining's, as the CLI's are; this module reads requests and shapes answers.

A claim answers the seat's link and the person's link once, on the page that the form's POST
returns (no redirect: the links would go into a URL), never cached and sent nowhere else.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, ConfigDict, Field, StrictStr
from starlette.concurrency import run_in_threadpool

from events.joining import JoinRefused
from events.people import PersonError
from pbm import joining, seating
from pbm import people as people_ops
from pbm.web import people as people_page
from pbm.web.auth import admin, bearer, token_of, unauthorized
from pbm.web.context import Server, current
from pbm.web.errors import ApiError
from pbm.web.link_cookie import LinkCookie
from pbm.web.pages import STATIC_PATH, not_a_seat, secured
from pbm.web.render import environment

router = APIRouter()



class Join(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON's true is not seat 1
    name: Annotated[StrictStr, Field(max_length=2000)]
    email: Annotated[StrictStr, Field(max_length=2000)] | None = None
    seat: Annotated[int, Field(ge=0, le=9999)] | None = None


def claimed(request: Request, token: str, name: str, email: str | None, seat: int | None) -> dict[str, Any]:
    """The claim, and what it answers: the seat's link and the person's."""
    server = current(request)
    try:
        joined = joining.claim(server.games, server.seats, current(request).people, current(request).joins, token, name, email, seat)
    except JoinRefused as refused:
        raise ApiError(409 if refused.taken else 404, str(refused)) from None
    seat_token = joined.claimed.token
    return {
        "game_id": joined.claimed.game_id,
        "seat": joined.claimed.seat,
        "name": joined.person.name,
        "token": seat_token,
        "url": seating.link(server.base_url(request), seat_token),
        "person": joined.person.id,
        "person_token": joined.person_token,
        "person_url": people_ops.link(server.base_url(request), joined.person_token),
        "open_seats_left": joined.claimed.left,
    }


@router.post("/api/join", status_code=201, summary="Claim an open seat with a game's join link (its token as bearer)")
def api_join(body: Join, request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> dict[str, Any]:
    token = token_of(credentials)
    if not token or current(request).joins.game_of(token) is None:
        raise unauthorized(joining.LINK_GONE)
    return claimed(request, token, body.name, body.email, body.seat)


@router.post("/api/games/{game_id}/join-link", summary="The game's join link (again, or anew once revoked)")
def join_link(game_id: str, request: Request, server: Server = Depends(admin)) -> dict[str, Any]:
    server.games.table(game_id)  # UnknownGame -> 404
    token = joining.invite(current(request).joins, game_id)
    return {"game_id": game_id, "open_seats": current(request).joins.open_seats(game_id), "join_url": joining.link(server.base_url(request), token)}


@router.delete("/api/games/{game_id}/join-link", summary="Revoke the game's join link")
def revoke_join_link(game_id: str, request: Request, server: Server = Depends(admin)) -> dict[str, Any]:
    server.games.table(game_id)
    joining.invite(current(request).joins, game_id, revoke=True)
    return {"game_id": game_id, "join_url": None, "open_seats": current(request).joins.open_seats(game_id)}


COOKIE = LinkCookie("pbm_join")
NO_COOKIE = "this page opens from the game's join link: open the link you were sent again"


def join_path(game_id: str) -> str:
    """The join page of a game, where its join cookie is sent: no secret in it."""
    return f"/join/g/{game_id}"


def join_page(request: Request, token: str, status: int = 200, refusal: str | None = None, name: str = "", email: str = "") -> Response:
    joins = current(request).joins
    game_id = joins.game_of(token)
    if game_id is None:
        return not_a_seat(404, joining.LINK_GONE)
    table = current(request).games.table(game_id)
    html = environment.get_template("join.html").render(
        title=table.game.title, game_id=game_id, players=table.players, open_seats=joins.open_seats(game_id),
        names=current(request).seats.names([(game_id, table.players)])[game_id],
        action=join_path(game_id), refusal=refusal, name=name, email=email, joined=None, static=STATIC_PATH,
    )
    return secured(HTMLResponse(html, status_code=status))


@router.get("/join/{token}", include_in_schema=False)
def get_join(token: str, request: Request) -> Response:
    """A game's join link, as the operator hands it out: the token into the game's join cookie,
    and a 303 on to the game's join page, whose URL holds no token."""
    game_id = current(request).joins.game_of(token)
    if game_id is None:
        return not_a_seat(404, joining.LINK_GONE)
    response = RedirectResponse(join_path(game_id), status_code=303)
    COOKIE.give(response, request, token, (join_path(game_id),), current(request).public_url)
    return secured(response)


def cookie_token(request: Request, game_id: str) -> str | None:
    """The join token of the request's cookie, if it is this game's working join link."""
    token = COOKIE.token_of(request)
    return token if token is not None and current(request).joins.game_of(token) == game_id else None


@router.get("/join/g/{game_id}", response_class=HTMLResponse, include_in_schema=False)
def get_join_page(game_id: str, request: Request) -> Response:
    token = cookie_token(request, game_id)
    if token is None:
        return not_a_seat(404, joining.LINK_GONE if COOKIE.token_of(request) else NO_COOKIE)
    return join_page(request, token)


@router.post("/join/g/{game_id}", include_in_schema=False)
async def post_join_page(game_id: str, request: Request) -> Response:
    """The join form, by the game's join cookie."""
    token = await run_in_threadpool(cookie_token, request, game_id)
    if token is None:
        return not_a_seat(404, joining.LINK_GONE if COOKIE.token_of(request) else NO_COOKIE)
    return await post_join(token, request)


@router.post("/join/{token}", include_in_schema=False)
async def post_join(token: str, request: Request) -> Response:
    """The join form (posted here by pages drawn before the join cookie): the page with the seat's
    and the person's links, and the person's cookie, or the form again with the refusal (a bad
    name or address: 422; the seat taken meanwhile: 409)."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return not_a_seat(403, "a join form must come from its own page")
    fields = dict(parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True))
    name, email, seat = fields.get("name", ""), fields.get("email", "").strip() or None, fields.get("seat", "")
    chosen = int(seat) if seat.isascii() and seat.isdigit() and len(seat) <= 4 else None
    try:
        answer = await run_in_threadpool(claimed, request, token, name, email, chosen)
    except (ApiError, PersonError) as refused:
        status = refused.status if isinstance(refused, ApiError) else 422
        message = refused.message if isinstance(refused, ApiError) else str(refused)
        if status == 404:
            return not_a_seat(404, message)
        return await run_in_threadpool(join_page, request, token, status, message, name[:100], (email or "")[:254])
    table = await run_in_threadpool(current(request).games.table, answer["game_id"])
    html = environment.get_template("join.html").render(
        title=table.game.title, game_id=answer["game_id"], players=table.players, open_seats=[], names=[],
        action="", refusal=None, name="", email="", joined=answer, static=STATIC_PATH,
    )
    response = HTMLResponse(html, status_code=201)
    people_page.COOKIE.give(response, request, answer["person_token"], (people_page.PAGE,), current(request).public_url)
    return secured(response)
