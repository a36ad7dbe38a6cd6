"""People on the web: the operator's API over them (/api/people, bearer PBM_ADMIN_TOKEN), a
person's own API (GET /api/people/me, their person token as the bearer token) and their page (their
link /me/{token} leaves the token in their cookie and redirects to /me, whose URL holds none). Every operation is
pbm.people's, as the CLI's are; this module only reads requests and shapes answers.

A person token opens that person's own page and, through it, only the seats they hold (pbm.people
.open_seat checks it): never another person's, never the operator's API. A token that is malformed,
unknown or replaced gets the same 401 and the same message, and no answer or error repeats a token
other than the one just issued, or an address to anyone but the operator.
"""

from __future__ import annotations

from typing import Annotated, Any

import asyncio
import logging


from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, ConfigDict, Field, StrictStr
from starlette.concurrency import run_in_threadpool

from events import keys
from events.server import FAILURES, explain
from pbm import clock_control
from pbm import people as ops
from pbm.web import seat_cookie
from pbm.web.auth import admin, bearer, token_of, unauthorized
from pbm.web.context import Server, current
from pbm.web.errors import ApiError
from pbm.web.link_cookie import LinkCookie
from pbm.web.pages import STATIC_PATH, not_a_seat, secured
from pbm.web.render import environment

router = APIRouter(prefix="/api/people")
pages = APIRouter(include_in_schema=False)  # the person's page: /me/{person token}...
PersonId = Annotated[str, Path(min_length=1, max_length=40, pattern=r"^p-[0-9a-f]{12}$")]
log = logging.getLogger("pbm.web")
NOT_A_PERSON = "not a valid person link (it may have been replaced: ask the game's operator for yours)"
Loose = Annotated[StrictStr, Field(max_length=2000)]  # bounded here, checked by events.people for a clear message


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewPerson(Strict):
    name: Loose
    email: Loose | None = None
    tz: Loose | None = None


class PersonChange(Strict):
    name: Loose | None = None
    email: Loose | None = None  # null removes it
    tz: Loose | None = None  # null removes it



def person_link(server: Server, request: Request, token: str | None) -> str | None:
    return None if token is None else ops.link(server.base_url(request), token)


def known(person_id: PersonId, request: Request) -> str:
    """Dependency: a person id that names a person, or 404."""
    if current(request).people.get(person_id) is None:
        raise ApiError(404, f"no person {person_id!r}")
    return person_id


def person_for(request: Request, token: str | None) -> str:
    """The person id of a person token, or a 401 ApiError."""
    found = current(request).people.resolve(token) if token else None
    if found is None:
        raise unauthorized(NOT_A_PERSON)
    return found


def me(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> str:
    """Dependency: the person whose token is the request's bearer token."""
    return person_for(request, token_of(credentials))


def page_of(request: Request, person_id: str, token: str | None) -> dict[str, Any]:
    """A person and every seat they hold, as their page and GET /api/people/me show them."""
    server = current(request)
    people = server.people
    person = people.need(person_id)
    seats = ops.holdings(server.games, server.seats, people, person_id, clock_control.now_ms())
    if token is not None:
        for row in seats:
            row["url"] = server.base_url(request) + ops.seat_link(token, row["game_id"], row["seat"])
    return {"person": person.public(), "seats": seats}


@router.get("/me", summary="Your page as JSON: every seat you hold, your turns first (person token as bearer)")
def get_me(request: Request, person_id: str = Depends(me), credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> dict[str, Any]:
    return page_of(request, person_id, token_of(credentials).strip().lower())


@router.post("", status_code=201, summary="Add a person; answers their link once")
def add_person(body: NewPerson, request: Request, server: Server = Depends(admin)) -> dict[str, Any]:
    person, token = ops.add(current(request).people, body.name, body.email, body.tz)
    return person.public() | {"token": token, "url": person_link(server, request, token)}


@router.get("", summary="Every person, with how many seats they hold")
def list_people(request: Request, _server: Server = Depends(admin)) -> dict[str, Any]:
    people = current(request).people
    return {"people": [person.public() | {"seats": len(people.seats(person.id))} for person in people.all()]}


@router.get("/{person_id}", summary="A person and every seat they hold")
def get_person(request: Request, _server: Server = Depends(admin), person_id: str = Depends(known)) -> dict[str, Any]:
    return page_of(request, person_id, None)


@router.patch("/{person_id}", summary="Change a person's name, address or time zone (null removes the last two)")
def edit_person(body: PersonChange, request: Request, server: Server = Depends(admin), person_id: str = Depends(known)) -> dict[str, Any]:
    changes = {field: getattr(body, field) for field in ("email", "tz") if field in body.model_fields_set}
    return ops.edit(current(request).people, server.seats, person_id, name=body.name, **changes).public()


@router.delete("/{person_id}", summary="Erase a person: their seats are named \"a former player\"; the logs stay")
def erase_person(request: Request, server: Server = Depends(admin), person_id: str = Depends(known)) -> dict[str, Any]:
    held = ops.erase(current(request).people, server.seats, person_id)
    return {"id": person_id, "erased": True, "seats": [{"game_id": game_id, "seat": seat} for game_id, seat in held]}


@router.post("/{person_id}/token", summary="A fresh link for a person; the old one stops working")
def reissue(request: Request, server: Server = Depends(admin), person_id: str = Depends(known)) -> dict[str, Any]:
    token = current(request).people.issue(person_id)
    return {"id": person_id, "token": token, "url": person_link(server, request, token)}


# The person's page. A person's link, /me/{token}, leaves the token in the person's cookie
# (pbm/web/link_cookie.py, Path=/me) and redirects to /me, the page itself, whose URL holds no
# token. Its links to their seats go through /me/seat/{game}/{seat}, which checks that the person
# holds that seat and only then gives the seat's cookie and redirects to the seat's page: the page
# holds no seat token, and Redis holds none in clear (pbm.people.open_seat makes it again).

GROUPS = {"your turn": "your turn", "waiting": "waiting", "waiting for players": "waiting", "waiting for salts": "waiting", "finished": "finished"}
NOT_YOURS = "this link opens no seat of yours"
COOKIE = LinkCookie("pbm_person")
PAGE = "/me"
NO_COOKIE = "this page opens from your person link: open the link in your invitation or a turn mail again"


def cookie_person(request: Request) -> tuple[str, str]:
    """The person whose cookie the request carries, and their token: a 401 ApiError without one
    or with one that is not a person's."""
    token = COOKIE.token_of(request)
    if token is None:
        raise unauthorized(NO_COOKIE)
    return person_for(request, token), token.strip().lower()


@pages.get(PAGE, response_class=HTMLResponse)
def person_page(request: Request) -> Response:
    try:
        person_id, token = cookie_person(request)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, heading="This link does not open a person's page")
    found = page_of(request, person_id, None)
    person = found["person"]
    for row in found["seats"]:
        row["group"] = GROUPS[row["state"]]
        row["path"] = f"{PAGE}/seat/{row['game_id']}/{row['seat']}"
    html = environment.get_template("person.html").render(
        person=person,
        seats=found["seats"],
        turns=sum(row["state"] == "your turn" for row in found["seats"]),
        seq=sum(row["seq"] for row in found["seats"]),
        events_url=f"{PAGE}/events",
        static=STATIC_PATH,
    )
    return secured(HTMLResponse(html))


EVENTS_POLL_S = 1.0
EVENTS_STREAM_S = 300  # then the browser's EventSource reconnects


@pages.get(PAGE + "/events")
async def person_events(request: Request) -> Response:
    """Server-sent events: `seq`, the sum of the lengths of the person's games' logs, when the
    stream opens and whenever it grows, a new game of theirs included (the page's script then
    redraws it, as a seat's page does)."""
    # Redis is asked from the thread pool throughout, as a seat's stream asks it (pbm/web/pages.py).
    try:
        person_id, _token = await run_in_threadpool(cookie_person, request)
    except ApiError as failure:
        return secured(JSONResponse({"error": failure.message}, failure.status))
    people, client = current(request).people, current(request).seats.redis
    held: dict[str, Any] = {"index": None, "game_ids": []}  # the person's seats index as last read, and its games

    def total() -> int:
        # A seat they come to hold (a rematch begun, a seat claimed, a game made for them) counts
        # too: the index of their seats is read with the logs, and when it changed, so do the games.
        pipe = client.pipeline(transaction=False)
        pipe.zcard(keys.person_seats(person_id))
        for game_id in held["game_ids"]:
            pipe.xlen(keys.log(game_id))
        index, *lengths = pipe.execute()
        if index == held["index"]:
            return sum(lengths)
        held["index"], held["game_ids"] = index, sorted({game_id for game_id, _seat in people.seats(person_id)})
        return total()

    async def stream():
        last = None
        loop = asyncio.get_running_loop()
        end = loop.time() + EVENTS_STREAM_S
        yield "retry: 2000\n\n"
        while loop.time() < end and not await request.is_disconnected():
            try:
                seq = await run_in_threadpool(total)
            except FAILURES as failure:
                log.error("%s", explain(failure))  # the answer has begun: the stream ends, the browser reconnects
                return
            if seq != last:
                last = seq
                yield f"event: seq\ndata: {seq}\n\n"
            await asyncio.sleep(EVENTS_POLL_S)

    return secured(StreamingResponse(stream(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"}))


@pages.get(PAGE + "/seat/{game_id}/{seat}")
def cookie_open_seat(game_id: str, seat: str, request: Request) -> Response:
    """One of the person's seats, by their cookie (the links of their page)."""
    try:
        person_id, _token = cookie_person(request)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message)
    return opened_seat(request, person_id, game_id, seat)


def opened_seat(request: Request, person_id: str, game_id: str, seat: str, person_token: str | None = None) -> Response:
    """A redirect (303) to one of the person's seats' page with that seat's cookie, if they hold
    it (and, with `person_token`, the person's cookie too); the same 404 for a seat of someone
    else's, a seat nobody holds and a game that is not there."""
    seat_token = None
    if seat.isascii() and seat.isdigit() and len(seat) <= 4 and len(game_id) <= 120:
        seat_token = ops.open_seat(current(request).people, current(request).seats, person_id, game_id, int(seat))
    if seat_token is None:
        return not_a_seat(404, NOT_YOURS)
    public_url = current(request).public_url
    response = RedirectResponse(seat_cookie.seat_path(game_id, int(seat)), status_code=303)
    seat_cookie.give(response, request, game_id, int(seat), seat_token, public_url)
    if person_token is not None:
        COOKIE.give(response, request, person_token, (PAGE,), public_url)
    return secured(response)


@pages.get("/me/{token}")
def link_opened(token: str, request: Request) -> Response:
    """A person's link, as their mails and invitations carry it: the token into the person's
    cookie, and a 303 on to /me."""
    try:
        person_for(request, token)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, heading="This link does not open a person's page")
    response = RedirectResponse(PAGE, status_code=303)
    COOKIE.give(response, request, token, (PAGE,), current(request).public_url)
    return secured(response)


@pages.get("/me/{token}/seat/{game_id}/{seat}")
def open_seat(token: str, game_id: str, seat: str, request: Request) -> Response:
    """One of the person's seats by their link (GET /api/people/me answers these, and pages drawn
    before the person's cookie link so): both cookies, and on to the seat's page."""
    try:
        person_id = person_for(request, token)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message)
    return opened_seat(request, person_id, game_id, seat, token)
