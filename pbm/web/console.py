"""The operator's console, `/admin`: server-rendered pages and plain forms (no JavaScript needed)
over the SAME operations as the operator's API and the CLI (pbm/web/operator.py's functions,
pbm.seating, pbm.clock_control, pbm.joining, pbm.people, pbm.deleting, pbm.disputes). It decides nothing about
games itself, and it must not put a secret into a URL, a redirect or a log line.

Signed in with PBM_ADMIN_TOKEN by a form, then by a session cookie (pbm/web/console_session.py). A
wrong token answers 401, so it counts against the address's wrong tokens as the API's do
(pbm/web/limits.py, Doors). Every form carries the session's CSRF token and must come from the
console's own origin (Sec-Fetch-Site, Origin), as the seat's forms must.

Post/Redirect/Get: an action that changes something redirects (303) to the page it came from, with
a word saying what was done (`?done=paused`); an action whose answer is a secret (a new game's
links, a fresh seat link, a join link, a new person's link) answers that page itself, once, never
cached. Bad input answers the form again with a one-line error, nothing changed.
"""

from __future__ import annotations

import functools
import hmac
import inspect
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

import pydantic
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

import core
from events.commands import UnknownGame, UnreadableGame
from events.joining import JoinRefused
from events.store import Conflict, NotPlayable
from pbm import deleting, disputes, joining, seating
from pbm import people as people_ops
from pbm.web import console_session, operator, replay_file, review
from pbm.web.console_session import Session
from pbm.web.context import Server, current
from pbm.web.errors import ApiError, validation_message
from pbm.web.pages import STATIC_PATH, posted_form, same_origin, secured
from pbm.web.render import environment
from replays import audit
from replays.log import from_store
from workers.bots import KINDS as BOT_KINDS

router = APIRouter(prefix="/admin", include_in_schema=False)
HOME = "/admin"

# What a redirect's `done` word says on the page it lands on: fixed texts, so a URL holds no input.
DONE = {
    "signed-out": "Signed out.",
    "paused": "The clock is paused.",
    "resumed": "The clock runs again.",
    "extended": "The deadline is extended.",
    "to-bot": "The seat is a bot's now.",
    "to-person": "The seat is a person's again.",
    "revoked": "The join link is revoked: it opens nothing now.",
    "deleted": "The game is deleted.",
    "settled": "The dispute is settled: every seat is sent the audit at its seq, with your words.",
    "edited": "Saved.",
    "erased": "The person is erased; their seats are named \"a former player\".",
}
SEAT_KINDS = ("name", "email", "person", "bot", "open")  # a seat of the new-game form


class Refused(Exception):
    """A console request refused with a page: raised by the checks, answered by each route."""

    def __init__(self, response: Response) -> None:
        self.response = response


def failure_of(error: Exception) -> tuple[int, str]:
    """The status and one line for an operation's refusal, as the API answers it."""
    if isinstance(error, ApiError):
        return error.status, error.message
    if isinstance(error, pydantic.ValidationError):
        return 422, validation_message(error)
    for kind, status in ((Conflict, 409), (NotPlayable, 409), (UnreadableGame, 409), (UnknownGame, 404), (JoinRefused, 409), (core.SetupError, 422), (core.IllegalMove, 422)):
        if isinstance(error, kind):
            return status, str(error)
    raise error


REFUSALS = (ApiError, pydantic.ValidationError, Conflict, NotPlayable, UnreadableGame, UnknownGame, JoinRefused, core.SetupError, core.IllegalMove)


def html(template: str, status: int = 200, session: Session | None = None, **context: Any) -> Response:
    # The environment's undefined is strict: what a page may leave out is given as None here.
    given = {"notice": None, "shown": None, "error": None, "error_at": ""} | context
    page = environment.get_template(template).render(static=STATIC_PATH, csrf=session.csrf if session else "", signed_in=session is not None, **given)
    return secured(HTMLResponse(page, status_code=status))


def back(path: str, done: str) -> Response:
    return secured(RedirectResponse(f"{path}?done={done}", status_code=303))


def signed_in(request: Request) -> Session | None:
    return console_session.find(current(request).seats.redis, console_session.id_of(request))


def sign_in_page(request: Request, status: int = 200, error: str | None = None) -> Response:
    server = current(request)
    response = html("console_sign_in.html", status, off=not server.admin_token, error=error, notice=DONE.get(request.query_params.get("done", "")))
    if console_session.id_of(request):  # an ended session's cookie: gone too
        console_session.take_away(response)
    return response


def viewer(request: Request) -> Session:
    """A page's session, or Refused with the sign-in page."""
    session = signed_in(request)
    if session is None:
        raise Refused(sign_in_page(request))
    return session


def form_of(request: Request) -> dict[str, str]:
    """A form post's first value of each field, as `refusing` read them (pages.posted_form)."""
    return request.state.form


def poster(request: Request) -> tuple[Session, dict[str, str]]:
    """A form post's session and fields: Refused (401 and the sign-in page) without a session,
    (403) from another site or without the session's CSRF token."""
    server = current(request)
    session = signed_in(request)
    if session is None:
        raise Refused(sign_in_page(request, 401, "your session has ended: sign in again"))
    first = form_of(request)
    origin = request.headers.get("origin")
    cross = request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none") or (
        origin is not None and origin != "null" and not same_origin(server, request, origin)
    )
    if cross or not console_session.csrf_matches(session, first.get("csrf", "")):
        raise Refused(html("console_refused.html", 403, session, error="this form is not from this console's own page, or is out of date: reload it and try again"))
    return session, first


def console_form(request: Request, act: Callable[[Server, dict[str, str]], Any], refused: Callable[[Session, int, str], Response],
                       done: Callable[[Session, Any], Response]) -> Response:
    """Every console form but signing in: the session and its CSRF check (poster), then `act` (one
    of the operations the API and the CLI use); a refusal drawn by `refused` (the page again, the
    one line beside the form that sent it), else `done` with what `act` answered."""
    session, fields = poster(request)
    try:
        answer = act(current(request), fields)
    except REFUSALS as failure:
        status, message = failure_of(failure)
        return refused(session, status, message)
    return done(session, answer)


def refusing(handler):
    """A console route: its body read on the event loop, then the handler (which asks Redis) in
    the thread pool, so a Redis that hangs holds this request for its timeout and not the server's
    event loop; a Refused answered with its page. The handler is a plain function (a coroutine run
    in the pool would answer the coroutine itself)."""
    if inspect.iscoroutinefunction(handler):
        raise TypeError(f"{handler.__name__}: a console route is a plain function, run in the thread pool")

    @functools.wraps(handler)
    async def answered(request: Request, **kwargs):
        _fields, request.state.form = await posted_form(request)  # form_of reads it there
        try:
            return await run_in_threadpool(handler, request=request, **kwargs)
        except Refused as refused:
            return refused.response

    return answered


# Signing in and out.


@router.get("")
@refusing
def home(request: Request) -> Response:
    session = signed_in(request)
    if session is None:
        return sign_in_page(request)
    server = current(request)
    games = operator.listing(server)["games"]
    groups: dict[str, list[dict[str, Any]]] = {"waiting for players": [], "running": [], "finished": []}
    for row in games:
        row["since"] = people_ops.iso(row["since_ms"]) if row.get("since_ms") else None
        state = "finished" if row.get("outcome") else "waiting for players" if row.get("waiting_for_players") else "running"
        groups[state].append(row)
    open_ones = [{"game_id": game_id, **dispute.to_json(), "raised": people_ops.iso(dispute.raised_ms)} for game_id, dispute in disputes.open_disputes(server.games)]
    return html("console_games.html", 200, session, groups=groups, disputes=open_ones, notice=DONE.get(request.query_params.get("done", "")))


@router.post("/sign-in")
@refusing
def sign_in(request: Request) -> Response:
    server = current(request)
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return sign_in_page(request, 403, "the sign-in form must come from this console's own page")
    first = form_of(request)
    given = first.get("token", "").strip()
    if not server.admin_token:
        return sign_in_page(request, 401, "the console is off: start the server with PBM_ADMIN_TOKEN set")
    if not hmac.compare_digest(given.encode(), server.admin_token.encode()):
        # 401: Doors counts it against this address's wrong tokens, as it counts the API's.
        return sign_in_page(request, 401, "not the operator's token (PBM_ADMIN_TOKEN)")
    session = console_session.open_session(server.seats.redis, console_session.MAX_AGE_S)
    response = secured(RedirectResponse(HOME, status_code=303))
    console_session.give(response, request, session, server.public_url, console_session.MAX_AGE_S)
    return response


@router.post("/sign-out")
@refusing
def sign_out(request: Request) -> Response:
    session, _first = poster(request)
    console_session.end(current(request).seats.redis, session.id)
    response = back(HOME, "signed-out")
    console_session.take_away(response)
    return response


# A new game.


def new_game_form(request: Request, session: Session, fields: Mapping[str, str], status: int = 200, error: str | None = None) -> Response:
    slug = fields.get("game", "")
    game = core.GAMES.get(slug)
    players = fields.get("players", "")
    count = int(players) if players.isdigit() and game is not None and game.min_players <= int(players) <= game.max_players else None
    return html(
        "console_new.html", status, session, games=list(core.GAMES.values()), game=game, players=count, fields=fields,
        people=current(request).people.all(), bot_kinds=BOT_KINDS, seat_kinds=SEAT_KINDS, error=error,
    )


@router.get("/new")
@refusing
def new_game(request: Request) -> Response:
    """Two steps without a script: the game and its number of players (a GET form), then each
    seat and the options."""
    session = viewer(request)
    return new_game_form(request, session, dict(request.query_params))


def seat_spec(fields: Mapping[str, str], seat: int) -> dict[str, Any]:
    """One seat of the new-game form as the API's seat spec (operator.SeatSpec)."""
    kind = fields.get(f"kind{seat}", "name")
    name = fields.get(f"name{seat}", "").strip() or None
    if kind == "open":
        return {"open": True}
    if kind == "person":
        return {"person": fields.get(f"person{seat}", "")}
    if kind == "bot":
        return {"bot": fields.get(f"bot{seat}", ""), "name": name}
    if kind == "email":
        return {"name": name, "email": fields.get(f"email{seat}", "").strip()}
    if kind != "name":
        raise core.SetupError(f"seat {seat}: no kind of seat {kind[:20]!r}")
    return {"name": name}


def game_options(game: core.Game, fields: Mapping[str, str]) -> dict[str, Any]:
    """The game's options from the form, only those that differ from their defaults."""
    chosen: dict[str, Any] = {}
    for name, default in game.options.items():
        given = fields.get(f"option:{name}")
        if isinstance(default, bool):
            value: Any = given is not None
        elif given is None or given.strip() == "":
            continue
        elif isinstance(default, int):
            text = given.strip()
            if not text.lstrip("-").isdigit() or len(text) > 12:
                raise core.SetupError(f"option {name} is a whole number, not {text[:20]!r}")
            value = int(text)
        else:
            value = given
        if value != default:
            chosen[name] = value
    return chosen


def new_game_body(fields: Mapping[str, str]) -> operator.NewGame:
    game = core.GAMES.get(fields.get("game", ""))
    if game is None:
        raise core.SetupError(f"no game {fields.get('game', '')[:40]!r}")
    players = fields.get("players", "")
    if not players.isdigit() or len(players) > 3:
        raise core.SetupError("players: a whole number")
    body: dict[str, Any] = {
        "game": game.slug,
        "players": int(players),
        "seats": [seat_spec(fields, seat) for seat in range(int(players))],
        "forced_moves": fields.get("forced_moves", "auto"),
        "late_salts": "late_salts" in fields,
        "spectators": "spectators" in fields,
    }
    options = game_options(game, fields)
    if options:
        body["options"] = options
    for name in ("deadline", "reminders"):
        if fields.get(name, "").strip():
            body[name] = fields[name].strip()
    for name in ("vacation_days", "autopilot_after", "seed"):
        text = fields.get(name, "").strip()
        if text:
            if not text.isdigit() or len(text) > 80:
                raise core.SetupError(f"{name}: a whole number, not {text[:20]!r}")
            body[name] = int(text)
    return operator.NewGame.model_validate(body)


@router.post("/new")
@refusing
def create_game(request: Request) -> Response:
    """The new game, and the page with each seat's link and the join link: shown once, here."""
    fields: dict[str, str] = {}

    def create(server: Server, given: dict[str, str]) -> dict[str, Any]:
        fields.update(given)  # drawn again in the form on a refusal
        return operator.create(server, server.base_url(request), new_game_body(given))

    return console_form(request, create, lambda session, status, message: new_game_form(request, session, fields, status, message),
                              lambda session, created: html("console_created.html", 201, session, created=created))


# One game.


def game_page(request: Request, session: Session, game_id: str, status: int = 200, error: str | None = None, error_at: str = "", shown: Mapping[str, Any] | None = None) -> Response:
    server = current(request)
    try:
        game = operator.game_of(server, game_id)
    except REFUSALS as refused:
        code, message = failure_of(refused)
        return html("console_refused.html", code, session, error=message)
    game["title"] = core.GAMES[game["game"]].title
    game["disputes"] = [{**d.to_json(), "raised": people_ops.iso(d.raised_ms), "settled": d.settled_ms and people_ops.iso(d.settled_ms)}
                        for d in disputes.Disputes(server.games.store).all(game_id)]
    return html(
        "console_game.html", status, session, g=game, bot_kinds=BOT_KINDS, error=error, error_at=error_at, shown=shown,
        notice=DONE.get(request.query_params.get("done", "")), path=game_path(game_id),
    )


def game_path(game_id: str) -> str:
    return f"{HOME}/games/{quote(game_id, safe='')}"


@router.get("/games/{game_id}")
@refusing
def one_game(game_id: str, request: Request) -> Response:
    return game_page(request, viewer(request), game_id)


def game_form(request: Request, game_id: str, at: str, act: Callable[[Server, dict[str, str]], Any], done: Callable[[Session, Any], Response]) -> Response:
    """A form of one game's page (console_form): a refusal drawn on that page beside the form `at`."""
    return console_form(request, act, lambda session, status, message: game_page(request, session, game_id, status, message, at), done)


def shown_on_game_page(request: Request, game_id: str, what: Callable[[Any], str]) -> Callable[[Session, Any], Response]:
    """A form's answer: the game's page with the link it made, shown once there."""
    return lambda session, answer: game_page(request, session, game_id, shown={"what": what(answer), "url": answer["url"]})


def seat_number(text: str) -> int:
    if not text.isdigit() or len(text) > 4:
        raise core.SetupError(f"no seat {text[:10]!r}")
    return int(text)


@router.post("/games/{game_id}/seats/{seat}/reinvite")
@refusing
def reinvite(game_id: str, seat: str, request: Request) -> Response:
    """A fresh link for the seat, shown once on the page this POST answers."""
    return game_form(
        request, game_id, f"seat{seat}",
        lambda server, _fields: operator.reissued(server, server.base_url(request), game_id, seat_number(seat)),
        shown_on_game_page(request, game_id, lambda answer: f"Seat {answer['seat']}'s new link (the old one opens nothing now)"),
    )


@router.post("/games/{game_id}/seats/{seat}/hand")
@refusing
def hand(game_id: str, seat: str, request: Request) -> Response:
    """The seat to a bot (`bot` names its kind) or back to a person (`bot` empty); a person who
    takes a seat with no link gets one, shown once here."""

    def handed(server: Server, fields: dict[str, str]) -> dict[str, Any]:
        bot = fields.get("bot", "").strip() or None
        return operator.handed(server, server.base_url(request) if bot is None else None, game_id, seat_number(seat), bot)

    def done(session: Session, answer: dict[str, Any]) -> Response:
        if "url" in answer:
            return shown_on_game_page(request, game_id, lambda answer: f"Seat {answer['seat']} is a person's again; its link")(session, answer)
        return back(game_path(game_id), "to-bot" if answer["bot"] else "to-person")

    return game_form(request, game_id, f"seat{seat}", handed, done)


@router.post("/games/{game_id}/clock")
@refusing
def clock(game_id: str, request: Request) -> Response:
    def changed(server: Server, fields: dict[str, str]) -> str:
        action = fields.get("action", "")
        seat = fields.get("seat", "").strip()
        change: dict[str, Any] = {"action": action}
        if action == "extend":
            change["by"] = fields.get("by", "").strip()
            if seat:
                change["seat"] = seat_number(seat)
        operator.clock_changed(server, game_id, operator.ClockChange.model_validate(change))
        return action

    return game_form(request, game_id, "clock", changed,
                           lambda _session, action: back(game_path(game_id), {"pause": "paused", "resume": "resumed"}.get(action, "extended")))


@router.post("/games/{game_id}/join-link")
@refusing
def join_link(game_id: str, request: Request) -> Response:
    """The game's join link shown (again, or anew once revoked; once, here), or revoked."""

    def invited(server: Server, fields: dict[str, str]) -> dict[str, Any] | None:
        base = server.base_url(request)
        server.games.table(game_id)  # UnknownGame, as the API's join-link routes
        token = joining.invite(server.joins, game_id, revoke=fields.get("revoke") == "1")
        return None if token is None else {"url": joining.link(base, token)}

    shown = shown_on_game_page(request, game_id, lambda _answer: "The game's join link")
    return game_form(request, game_id, "join", invited,
                           lambda session, answer: back(game_path(game_id), "revoked") if answer is None else shown(session, answer))


@router.get("/games/{game_id}/export")
@refusing
def export(game_id: str, request: Request) -> Response:
    session = viewer(request)
    server = current(request)
    try:
        server.games.table(game_id)
    except REFUSALS as refused:
        status, message = failure_of(refused)
        return html("console_refused.html", status, session, error=message)
    return secured(replay_file.download(server.games.store, game_id))


@router.get("/games/{game_id}/review/{seat}")
@refusing
def review_seat(game_id: str, seat: str, request: Request) -> Response:
    """A seat's replay page (pbm/web/review.py's own code) for the operator, no seat token asked:
    while the game runs, that seat's view at the step as the seat would see it; once over, any
    seat's view and the whole state. Under it, the audit's clock table (replays.audit)."""
    session = viewer(request)
    server = current(request)
    try:
        number = seat_number(seat)
        seating.check_seat(server.games, game_id, number)  # UnknownGame; IllegalMove for a seat out of range
        log = from_store(server.games.store, game_id)
        step, as_seat = review.asked(log, number, request.query_params)
    except review.BadStep as refused:
        return html("console_refused.html", refused.status, session, error=str(refused))
    except REFUSALS as refused:
        status, message = failure_of(refused)
        return html("console_refused.html", 404 if isinstance(refused, core.IllegalMove) else status, session, error=message)
    naming = seating.names(server.seats, game_id, log.table(), None)
    page = review.replay_html(server, log, number, step, as_seat, f"{game_path(game_id)}/review/{number}",
                              page_url=game_path(game_id), back_label="Back to the game in the console",
                              export_url=f"{game_path(game_id)}/export" if review.is_over(log) else None,
                              clock=audit.clock_story(log, naming))
    return secured(HTMLResponse(page))


@router.get("/games/{game_id}/verify")
@refusing
def verify(game_id: str, request: Request) -> Response:
    session = viewer(request)
    secret_seed = request.query_params.get("secret_seed") == "1"
    try:
        report = operator.verified(current(request), game_id, secret_seed)
    except REFUSALS as refused:
        status, message = failure_of(refused)
        return html("console_refused.html", status, session, error=message)
    return html("console_verify.html", 200, session, report=report, path=game_path(game_id), secret_seed=secret_seed)


@router.post("/games/{game_id}/disputes/{dispute_id}/settle")
@refusing
def settle_dispute(game_id: str, dispute_id: str, request: Request) -> Response:
    """Settle a dispute with the operator's words (pbm.disputes.settle, as `pbm disputes --settle`):
    every seat is sent the audit at its seq with them."""
    return game_form(request, game_id, "disputes", lambda server, fields: disputes.settle(server.games, game_id, dispute_id, fields.get("note", "")),
                           lambda _session, _answer: back(game_path(game_id), "settled"))


@router.post("/games/{game_id}/delete")
@refusing
def delete(game_id: str, request: Request) -> Response:
    def deleted(server: Server, fields: dict[str, str]) -> None:
        if fields.get("confirm", "") != game_id:
            raise core.SetupError("type the game's id to delete it: nothing deleted")
        deleting.delete(server.games, [game_id], force="force" in fields)

    return game_form(request, game_id, "delete", deleted, lambda _session, _answer: back(HOME, "deleted"))


# People.


def people_page(request: Request, session: Session, status: int = 200, error: str | None = None, error_at: str = "", shown: Mapping[str, Any] | None = None) -> Response:
    people = current(request).people
    rows = [person.public() | {"seats": len(people.seats(person.id))} for person in people.all()]
    return html("console_people.html", status, session, people=rows, error=error, error_at=error_at, shown=shown, notice=DONE.get(request.query_params.get("done", "")))


@router.get("/people")
@refusing
def people(request: Request) -> Response:
    return people_page(request, viewer(request))


def people_form(request: Request, at: str, act: Callable[[Server, dict[str, str]], Any], done: Callable[[Session, Any], Response]) -> Response:
    """A form of the people page (console_form): a refusal drawn there beside the form `at`."""
    return console_form(request, act, lambda session, status, message: people_page(request, session, status, message, at), done)


def optional(fields: Mapping[str, str], name: str) -> str | None:
    return fields.get(name, "").strip() or None


@router.post("/people")
@refusing
def add_person(request: Request) -> Response:
    """A new person, and their link shown once on the page this POST answers."""

    def added(server: Server, fields: dict[str, str]) -> dict[str, str]:
        base = server.base_url(request)
        person, token = people_ops.add(server.people, fields.get("name", ""), optional(fields, "email"), optional(fields, "tz"))
        return {"what": f"{person.name}'s link (all their games)", "url": people_ops.link(base, token)}

    return people_form(request, "add", added, lambda session, shown: people_page(request, session, 201, shown=shown))


@router.post("/people/{person_id}/link")
@refusing
def reissue_person(person_id: str, request: Request) -> Response:
    """A fresh link for a person (as `pbm people link` and POST /api/people/{id}/token make it),
    shown once on the page this POST answers; their old link opens nothing from now on."""

    def issued(server: Server, _fields: dict[str, str]) -> dict[str, str]:
        base = server.base_url(request)  # before the old link stops working
        name = server.people.need(person_id).name
        return {"what": f"{name}'s new link (the old one opens nothing now)", "url": people_ops.link(base, server.people.issue(person_id))}

    return people_form(request, person_id, issued, lambda session, shown: people_page(request, session, shown=shown))


@router.post("/people/{person_id}")
@refusing
def edit_person(person_id: str, request: Request) -> Response:
    """A person's name, address and time zone as the form has them (empty: removed)."""

    def edited(server: Server, fields: dict[str, str]) -> None:
        server.people.need(person_id)
        people_ops.edit(server.people, server.seats, person_id, name=fields.get("name", ""), email=optional(fields, "email"), tz=optional(fields, "tz"))

    return people_form(request, person_id, edited, lambda _session, _answer: back(f"{HOME}/people", "edited"))


@router.post("/people/{person_id}/erase")
@refusing
def erase_person(person_id: str, request: Request) -> Response:
    return people_form(request, person_id, lambda server, _fields: people_ops.erase(server.people, server.seats, person_id),
                             lambda _session, _answer: back(f"{HOME}/people", "erased"))
