"""The seat's page: `GET /play/{token}`, the seat's link, which leaves the token in the seat's cookie
and redirects (303) to `GET /play/g/{game}/{seat}`, the page itself, read by that cookie
(pbm/web/seat_cookie.py); and what the page needs (its forms' POSTs, its live updates, its
stylesheet and script), all under the page's path and by the same cookie. It plays through the
command path exactly as the JSON API does, and never writes a token into a URL, a log line, an
error or another site's Referer.

Without JavaScript every move is a plain form POST to <page>/move that redirects back to the page
(POST-redirect-GET); what happened (played, refused with the reason, or stale) waits in a page
note (pbm/web/notes.py) that the redirect's URL names, so neither the move (the seat's own hidden
cards) nor its refusal goes into a URL. With JavaScript (static/page.js) the same forms are posted
by fetch with `Accept: application/json`, answered 200/409/422 like the API, and the page redraws
in place when <page>/events, a stream of server-sent events, says the log has grown. The move
text is composed from a form in one place (pictures.compose), for both paths.

A cookie is an ambient credential: every form carries a CSRF token (an HMAC of the seat's token)
and must come from the page's own origin (Sec-Fetch-Site, Origin), beside the cookie's SameSite.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

import core
from core.orders import MAX_ORDERS, is_order_text
from events.server import FAILURES, explain
from events import keys
from events import orders as standing_orders
from events.joining import open_seats_of
from events.orders import Orders
from events.seats import normal
from events.store import Conflict
from events.rematch import Rematches
from pbm import clock_control, rematch, seating, turn_report
from pbm.rules import notes as rules_notes
from pbm.web import notes, seat_cookie
from pbm.web.api import command_id, seat_view, taken_back
from pbm.web.auth import NOT_A_SEAT, SeatAccess, mover_for, seat_for, unauthorized
from pbm.web.context import Server, current
from pbm.web.errors import ApiError
from pbm.web.pictures import compose
from pbm.web.render import STATIC, environment, render_page

router = APIRouter(include_in_schema=False)
log = logging.getLogger("pbm.web")

# No inline script or style anywhere on these pages: the stylesheet and the script are files.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",  # a link's URL holds the seat's token; the page's, its game and seat
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",  # the page shows the seat's hand
}
STATIC_TYPES = {
    "page.css": "text/css; charset=utf-8",
    "page.js": "text/javascript; charset=utf-8",
    "review.js": "text/javascript; charset=utf-8",
    "icon.svg": "image/svg+xml",
}
STATIC_BYTES = {name: (STATIC / name).read_bytes() for name in STATIC_TYPES}
# The files' URLs change with their content, so browsers may keep them for a long time.
STATIC_PATH = "/static/pbm/" + hashlib.sha256(b"".join(STATIC_BYTES.values())).hexdigest()[:12]
SALT_FORM_CHARS = 1000  # more than a salt may be: core refuses a longer one by its own limit
NOTICES = {
    "stale": "Someone moved first: your move was not played. Here is the table now.",
    "vacation": "Your vacation has begun: your clock is stopped until it ends.",
    "salted": "Your salt is in: the cards are dealt once every player's is.",
    "orders": "Your standing orders are saved.",
    "orders cleared": "Your standing orders are all taken off.",
    "rematch": "You are in for the rematch: it begins once every player has accepted.",
    "rematch-begun": "Everyone is in: the rematch has begun.",
    "confirm on": "Saved: your page asks you before it sends a move.",
    "confirm off": "Saved: your page sends a move as soon as you choose it.",
}
ORDER_FIELD_CHARS = 300  # more than an order may be: core.orders refuses a longer one by its own limit
EVENTS_POLL_S = 1.0
EVENTS_STREAM_S = 300  # a stream ends after this long; the browser's EventSource reconnects
EVENTS_KEEPALIVE_S = 15


def secured(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    return response


def csrf_token(server: Server, token: str) -> str:
    """A form's CSRF token: an HMAC of the seat's token under a key every replica shares (kept in
    Redis, made by the first server that needs it)."""
    pipe = server.seats.redis.pipeline(transaction=False)
    pipe.set(keys.web_secret(), secrets.token_hex(32), nx=True)
    pipe.get(keys.web_secret())
    secret = pipe.execute()[1]
    return hmac.new(secret, b"csrf:" + (normal(token) or "").encode(), hashlib.sha256).hexdigest()


NO_COOKIE = "this page opens from your seat's link: open the link in your invitation or your latest turn mail again"
SEAT_PAGE = "/play/g/{game_id}/{seat}"  # seat_cookie.seat_path


def not_a_seat(
    status: int = 401, message: str = NOT_A_SEAT, headers: dict[str, str] | None = None, heading: str = "This link does not open a seat"
) -> Response:
    """A page of one line saying why: a link or a cookie that opens no seat, or (`heading`) a request refused."""
    html = environment.get_template("refused.html").render(heading=heading, message=message, static=STATIC_PATH)
    return secured(HTMLResponse(html, status_code=status, headers=headers))


@router.get(STATIC_PATH + "/{name}")
async def static_file(name: str) -> Response:
    if name not in STATIC_TYPES:
        return Response(status_code=404)
    headers = {"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}
    return Response(STATIC_BYTES[name], media_type=STATIC_TYPES[name], headers=headers)


@router.get("/rules/{game}", response_class=HTMLResponse)
async def rules(game: str) -> Response:
    """A game's rules notes (pbm.rules, as `pbm rules` shows them): no token, so a
    seat's page can link here."""
    if game not in core.GAMES:
        return not_a_seat(404, f"no game {game[:40]!r}")
    text = rules_notes(game)
    html = environment.get_template("rules.html").render(title=core.GAMES[game].title, text=text, static=STATIC_PATH)
    return secured(HTMLResponse(html))


@router.get("/play/{token}", response_class=HTMLResponse)
def link(token: str, request: Request) -> Response:
    """A seat's link, as its mails and its invitation carry it: the token goes into the seat's
    cookie, and the browser on to the seat's page, whose URL holds no token. A plain function, as
    every handler here that asks Redis before it reads a body: FastAPI runs it in the thread pool,
    so a Redis that hangs holds this request for its timeout, not the server's event loop."""
    return opened_link(token, request, seat_cookie.seat_path)


def opened_link(token: str, request: Request, path_of: Callable[[str, int], str]) -> Response:
    """A seat's link opened: its token into the seat's cookies, and a 303 on to path_of(game,
    seat), the seat's page or its replay."""
    server = current(request)
    try:
        access = seat_for(server, token)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, failure.headers)
    response = RedirectResponse(path_of(access.game_id, access.seat), status_code=303)
    seat_cookie.give(response, request, access.game_id, access.seat, token, server.public_url)
    return secured(response)


@router.api_route("/play/{token}/{rest}", methods=["GET", "POST"], response_class=HTMLResponse)
async def old_page_link(token: str, rest: str, request: Request) -> Response:
    """What a page drawn before seats had cookies sends (its forms and its events stream carried
    the token in their paths): taken as its link, so that page is drawn afresh at its new address.
    A move it posted is not played; the page shows whose turn it is."""
    return await run_in_threadpool(link, token, request)


def cookie_seat(request: Request, game_id: str, seat: int, counted=seat_for) -> tuple[SeatAccess, str]:
    """The seat whose page this is, by its cookie, counted by `counted` (a read, or a move with
    mover_for): 401 without a cookie or with one that is not this seat's."""
    token = seat_cookie.token_of(request)
    if token is None:
        raise unauthorized(NO_COOKIE)
    access = counted(current(request), token)
    if (access.game_id, access.seat) != (game_id, seat):
        raise unauthorized(NOT_A_SEAT)
    return access, token


@router.get(SEAT_PAGE, response_class=HTMLResponse)
def page(game_id: str, seat: int, request: Request, note: str | None = None) -> Response:
    try:
        access, token = cookie_seat(request, game_id, seat)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, failure.headers)
    said = notes.take(access.server.seats.redis, game_id, seat, note)
    chosen = {key: value for key, value in request.query_params.items() if key != "note"}
    return secured(HTMLResponse(page_html(access, token, said, chosen)))


def page_html(access: SeatAccess, token: str, said: Mapping[str, str], chosen: Mapping[str, str] | None = None) -> str:
    """The seat's page, with what a note `said` (played, refused, move, at, notice), at the steps to
    a move `chosen` so far (the page's query: ?card=18&cell=c2, core.menus)."""
    server, game_id = access.server, access.game_id
    me = seat_view(access)
    table = server.games.table(game_id)
    contacts = [server.seats.contact(game_id, seat) for seat in range(table.players)]
    names = [contact.get("name") for contact in contacts]
    notice = NOTICES.get(said.get("notice") or "")
    if said.get("played") and not notice:
        notice = played_notice(said["played"][:200])
    unseated = open_seats_of(server.seats.redis, [game_id]).get(game_id)
    if unseated and not notice:  # pbm/joining.py: the clock starts when they are taken
        notice = f"Waiting for players: seat{'s' if len(unseated) != 1 else ''} {', '.join(map(str, unseated))} {'are' if len(unseated) != 1 else 'is'} open."
    name = seating.names(server.seats, game_id, table, access.seat)
    report = turn_report.dated_since_last_move(table, server.games.store.since_move(game_id, access.seat, table.seq - 1), access.seat,
                                               Orders(server.games.store).notes(game_id, access.seat), name)
    return render_page(
        me["view"],
        game_id=game_id,
        options=dict(table.started.options),
        names=names,
        bots=sorted(table.bots),
        report=report,  # me["report"], each line with when it happened
        story=turn_report.story(table, access.seat, name),
        base_path=seat_cookie.seat_path(game_id, access.seat),
        static=STATIC_PATH,
        csrf=csrf_token(server, token),
        deadline=(me.get("clock") or {}).get("deadline"),
        vacation=vacation_of(me, table),
        salt_wanted=access.seat in table.waiting_for_salts,
        salts_due=me["salts_due"],
        notice=notice,
        refusal=(said.get("refused") or "")[:300] or None,
        refused_move=(said.get("move") or "")[:200] or None,
        refused_at=(said.get("at") or "")[:40] or None,
        review_url=seat_cookie.review_path(game_id, access.seat),
        plan=plan_of(access, table, me["orders"]),
        rematch=rematch_of(server, game_id, table, access.seat),
        person_url="/me" if server.people.holder(game_id, access.seat) else None,  # their page opens from their cookie
        chosen=chosen,
        confirm_moves=confirms(contacts[access.seat]),
    )


def confirms(contact: Mapping[str, str]) -> bool:
    """Whether the seat asked its page to confirm each move before sending it (its setting)."""
    return contact.get("confirm_moves") == "1"


def plan_of(access: SeatAccess, table: core.Table, orders: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What the page's "Plan ahead" shows: the seat's standing orders, the game's conditions (as
    `pbm rules` lists them) and the notes of the seat's orders dropped (the newest first); None
    once the game is over."""
    if table.outcome is not None:
        return None
    notes_held = standing_orders.Orders(access.server.games.store).notes(access.game_id, access.seat)
    return {
        "orders": orders,
        "conditions": list(getattr(table.game.conditions, "CONDITIONS", ())),
        "dropped": [turn_report.dropped_line(note) for note in reversed(notes_held)],
        "full": len(orders) >= MAX_ORDERS,
        "url": seat_cookie.seat_path(access.game_id, access.seat) + "/orders",
    }


def rematch_of(server: Server, game_id: str, table: core.Table, seat: int) -> dict[str, Any] | None:
    """A finished game's rematch as its page shows it (`asked` false when nobody has yet); None
    while the game runs."""
    if table.outcome is None:
        return None
    found = rematch.of(server.games, Rematches(server.seats.redis), game_id, seat)
    if found is None:
        return {"asked": False, "started": False, "accepted": False, "waiting_for": []}
    names = [server.seats.contact(game_id, s).get("name") for s in range(table.players)]
    return found.public(names) | {"asked": True}


def played_notice(move: str) -> str:
    """What the page says of the seat's own move once it is in: "You played 7Su." for a card
    played, else the move as sent ("Your move is in: bid 300.")."""
    return f"You played {move[5:]}." if move.startswith("play ") else f"Your move is in: {move}."


def vacation_of(me: Mapping[str, Any], table: core.Table) -> dict[str, Any] | None:
    """The seat's vacation bank for its page's form: None in a game without a clock, over, or
    whose seat a bot plays (as POST /api/me/vacation refuses those)."""
    clock = me.get("clock")
    if clock is None or table.outcome is not None or me["seat"] in table.bots:
        return None
    return {"left": clock["vacation_days_left"], "until": clock["on_vacation_until"]}


def whole_number(text: str, most_digits: int) -> int | None:
    """A form field's whole number: ASCII digits only (str.isdigit also takes '²', which int()
    refuses, and other scripts' digits), at most `most_digits` of them; else None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= most_digits else None


async def posted_form(request: Request) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """A form post's fields in order, and each name's first value."""
    fields = parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    return fields, {name: value for name, value in reversed(fields)}


def form_refusal(server: Server, token: str, request: Request, first: Mapping[str, str]) -> str | None:
    """Why a form of the page may not be acted on (it came from another site, or from a page
    older than the form's CSRF token), or None."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return "a form must come from your own page"
    # The page's Referrer-Policy (no-referrer) makes a browser send `Origin: null` with the page's
    # own posts: only an origin that names another site is refused here.
    origin = request.headers.get("origin")
    if origin is not None and origin != "null" and not same_origin(server, request, origin):
        return "a form must come from your own page"
    if not hmac.compare_digest(first.get("csrf", ""), csrf_token(server, token)):
        return "this form is out of date: the page has been reloaded, try again"
    return None


def same_origin(server: Server, request: Request, origin: str) -> bool:
    """Whether `origin` is this server's: the host the request was sent to, or PBM_PUBLIC_URL's."""
    parts = urlsplit(origin)
    if parts.netloc and parts.netloc == request.headers.get("host"):
        return True
    public = urlsplit(server.public_url or "")
    return bool(public.netloc) and (parts.scheme, parts.netloc) == (public.scheme, public.netloc)


def back_to_page(server: Server, game_id: str, seat: int, said: Mapping[str, str]) -> Response:
    """The 303 back to the seat's page after a form post, naming the note that holds `said`."""
    url = seat_cookie.seat_path(game_id, seat)
    if said:
        url += "?note=" + notes.leave(server.seats.redis, game_id, seat, dict(said))
    if "refused" in said:  # drawn in the form that sent it: the browser scrolls there
        url += "#refusal"
    return secured(RedirectResponse(url, status_code=303))


@router.post(SEAT_PAGE + "/move")
async def post_move(game_id: str, seat: int, request: Request) -> Response:
    """One move from a form of the page. With `Accept: application/json` (the page's script) it
    answers like POST /api/me/moves; otherwise it redirects back to the page (303). The body is
    read here, on the event loop; everything after it asks Redis, so it runs in the thread pool
    (a Redis that hangs holds this request for its timeout, not every request of the server)."""
    fields, first = await posted_form(request)
    return await run_in_threadpool(form_move, game_id, seat, request, fields, first)


def form_move(game_id: str, seat: int, request: Request, fields: list[tuple[str, str]], first: Mapping[str, str]) -> Response:
    wants_json = "application/json" in request.headers.get("accept", "")
    server = current(request)
    sent_from = first.get("at", "")
    at = {"at": sent_from[:40]} if sent_from else {}  # the composing form that sent the move

    def answer(status: int, said: Mapping[str, str], error: str | None = None) -> Response:
        if wants_json:
            body = {"error": error} if error else dict(said)
            return secured(JSONResponse(body, status_code=status))
        return back_to_page(server, game_id, seat, {**said, **at} if "refused" in said else said)

    try:
        access, token = cookie_seat(request, game_id, seat, counted=mover_for)
    except ApiError as failure:
        if failure.status == 401:
            return secured(JSONResponse({"error": failure.message}, 401)) if wants_json else not_a_seat(401, failure.message)
        return answer(failure.status, {"refused": failure.message}, failure.message)
    stopped = form_refusal(server, token, request, first)
    if stopped is not None:
        return answer(403, {"refused": stopped}, stopped)
    text = compose(fields)
    if text and first.get("confirmed") != "1" and confirms(server.seats.contact(game_id, seat)):
        return asked_to_confirm(access, token, text, first, wants_json)
    expected = first.get("expected_seq", "")
    try:
        _before, expected_seq = taken_back(access, whole_number(expected, 9))
        submitted = server.games.submit(
            access.game_id,
            access.seat,
            text,
            command_id=command_id(access.seat, first.get("idempotency_key") or None),
            expected_seq=expected_seq,
        )
    except Conflict:
        return answer(409, {"notice": "stale"}, NOTICES["stale"])
    except (core.IllegalMove, ApiError) as refusal:
        reason = refusal.message if isinstance(refusal, ApiError) else str(refusal)
        return answer(422, {"refused": reason, "move": text}, reason)
    return answer(200, {"played": text, "seq": str(submitted.seq), "notice": played_notice(text)} if wants_json else {"played": text})


def asked_to_confirm(access: SeatAccess, token: str, move: str, first: Mapping[str, str], wants_json: bool) -> Response:
    """The question a seat that confirms its moves is asked before `move` is sent: "Send 7Su?".
    To the page's script, as JSON (it asks in place and posts the form again, confirmed); without
    it, a page of its own whose Send posts the move again (in the form, never in a URL) with the
    form's expected seq and idempotency key, and whose Change goes back to the seat's page."""
    question = f"Send {move[5:] if move.startswith('play ') else move}?"
    if wants_json:
        return secured(JSONResponse({"confirm": move, "question": question}))
    server = access.server
    html = environment.get_template("confirm.html").render(
        question=question,
        move=move,
        kept={name: first.get(name, "")[:200] for name in ("expected_seq", "idempotency_key", "at")},
        csrf=csrf_token(server, token),
        move_url=seat_cookie.seat_path(access.game_id, access.seat) + "/move",
        page_url=seat_cookie.seat_path(access.game_id, access.seat),
        static=STATIC_PATH,
    )
    return secured(HTMLResponse(html))


@router.post(SEAT_PAGE + "/settings")
async def post_settings(game_id: str, seat: int, request: Request) -> Response:
    """The page's settings form: `confirm_moves` checked makes the page ask before it sends each
    move (events.seats' set_confirm_moves, the seat's own setting kept with its personal data)."""

    def save(server: Server, access: SeatAccess, first: Mapping[str, str]) -> str:
        on = first.get("confirm_moves") == "on"
        server.seats.set_confirm_moves(access.game_id, access.seat, on)
        return "confirm on" if on else "confirm off"

    return await seat_form(request, game_id, seat, "settings", save, notice="confirm off")


@router.post(SEAT_PAGE + "/vacation")
async def post_vacation(game_id: str, seat: int, request: Request) -> Response:
    """The page's vacation form: the seat's clock stops for `days` days, out of its yearly bank
    (pbm.clock_control.take_vacation, as POST /api/me/vacation)."""

    def take(server: Server, access: SeatAccess, first: Mapping[str, str]) -> None:
        days = first.get("days", "").strip()
        clock_control.take_vacation(server.games, access.game_id, access.seat, days[:20] if (number := whole_number(days, 3)) is None else number)

    return await seat_form(request, game_id, seat, "vacation", take, notice="vacation")


@router.post(SEAT_PAGE + "/salt")
async def post_salt(game_id: str, seat: int, request: Request) -> Response:
    """The page's salt for the opening deal (Games.give_salt, as POST /api/me/salt): the page's
    script makes it with crypto.getRandomValues and sends it on the first visit, so the server never
    sees it before it is sent; without JavaScript the player types one."""

    def give(server: Server, access: SeatAccess, first: Mapping[str, str]) -> None:
        server.games.give_salt(access.game_id, access.seat, first.get("salt", "")[:SALT_FORM_CHARS])

    return await seat_form(request, game_id, seat, "salt", give, notice="salted")


@router.post(SEAT_PAGE + "/orders")
async def post_orders(game_id: str, seat: int, request: Request) -> Response:
    """The page's "Plan ahead" forms (`do`): `add` one order (its move, an optional condition and
    `after` chain, composed into the order's text form and read by core.orders' one parser, as PUT
    /api/me/orders and mail read theirs), `remove`, `up` or `down` one by its `id`, or `clear` them
    all (events.orders)."""

    def change(server: Server, access: SeatAccess, first: Mapping[str, str]) -> str | None:
        games, how = server.games, first.get("do", "")
        if how == "add":
            standing_orders.add(games, access.game_id, access.seat, order_text(first))
        elif how == "clear":
            standing_orders.clear(games, access.game_id, access.seat)
            return "orders cleared"
        else:
            standing_orders.rearrange(games, access.game_id, access.seat, first.get("id", "")[:40], how[:20])
        return None

    return await seat_form(request, game_id, seat, "orders", change, notice="orders")


def order_text(first: Mapping[str, str]) -> str:
    """An order's text form from the page's fields: `move`, then `when` (a condition, "if" or not)
    and `after` (a chain, `1 play 3Su, 2 play 4Su`), each optional. A whole order typed into the
    move field (`if Winter is led: play 9Wi`, as a mail has it) is taken as it is."""
    move, when, after = (first.get(name, "").strip()[:ORDER_FIELD_CHARS] for name in ("move", "when", "after"))
    if not when and not after and is_order_text(move):
        return move
    when = when[3:].strip() if when[:3].lower() == "if " else when
    after = after[6:].strip() if after[:6].lower() == "after " else after
    head = " ".join(part for part in (after and f"after {after}", when and f"if {when}") if part)
    return f"{head or 'next'}: {move}"


async def seat_form(request: Request, game_id: str, seat: int, form: str, act: Any, notice: str) -> Response:
    """A form of the page other than a move: by the seat's cookie, counted as a move is (a form
    posted in a loop gets 429), refused from another site, then `act`; back to the page (303)
    with `notice` (NOTICES, unless `act` answers another of them) or the refusal drawn in that form. The
    body is read on the event loop, the rest (Redis) in the thread pool, as a move's form."""
    _fields, first = await posted_form(request)
    return await run_in_threadpool(acted_form, request, game_id, seat, first, form, act, notice)


def acted_form(request: Request, game_id: str, seat: int, first: Mapping[str, str], form: str, act: Any, notice: str) -> Response:
    server = current(request)

    def refused(reason: str) -> Response:
        return back_to_page(server, game_id, seat, {"refused": reason, "at": form})

    try:
        access, token = cookie_seat(request, game_id, seat, counted=mover_for)
    except ApiError as failure:
        return not_a_seat(401, failure.message) if failure.status == 401 else refused(failure.message)
    stopped = form_refusal(server, token, request, first)
    if stopped is not None:
        return refused(stopped)
    try:
        said = act(server, access, first)
    except (core.SetupError, core.IllegalMove) as refusal:
        return refused(str(refusal))
    return back_to_page(server, game_id, seat, {"notice": said if isinstance(said, str) and said in NOTICES else notice})


@router.get(SEAT_PAGE + "/events")
async def events(game_id: str, seat: int, request: Request) -> Response:
    """Server-sent events: `seq` with the log's length, when the stream opens and whenever it
    grows. A poll of one XLEN a second per open page: cheap, and it needs no second connection.
    A seat has at most Limits.streams_per_seat open at once (each holds a slot, renewed while it
    lasts); one more is refused with 429, and that page works on without live updates."""
    server = current(request)
    try:
        access, _token = await run_in_threadpool(cookie_seat, request, game_id, seat)
    except ApiError as failure:
        return secured(JSONResponse({"error": failure.message}, failure.status, headers=failure.headers))
    store, streams, lease_s = server.games.store, server.streams, server.limits.stream_lease_s
    held = keys.seat_streams(access.game_id, access.seat)
    # Redis is asked from the thread pool throughout: on the event loop, a Redis that hangs held
    # every request of the server for its timeout, one open page after another.
    slot = await run_in_threadpool(streams.take, held, server.limits.streams_per_seat)
    if slot is None:
        cap = server.limits.streams_per_seat
        message = f"too many open pages of this seat: at most {cap} at once, close one"
        return secured(JSONResponse({"error": message}, 429, headers={"Retry-After": str(lease_s)}))

    async def stream():
        try:
            last = None
            loop = asyncio.get_running_loop()
            end = loop.time() + EVENTS_STREAM_S
            quiet_since = renewed = loop.time()
            yield "retry: 2000\n\n"
            while loop.time() < end and not await request.is_disconnected():
                try:
                    if loop.time() - renewed > lease_s / 3:
                        if not await run_in_threadpool(streams.renew, held, slot):
                            break  # its lease lapsed (Redis was away): the browser reconnects for a new one
                        renewed = loop.time()
                    seq = await run_in_threadpool(store.length, access.game_id)
                except FAILURES as failure:
                    # The answer has begun: no 503 can be sent now. The stream ends, said in one line
                    # in the server's log; the browser reconnects and is answered then.
                    log.error("%s", explain(failure))
                    return
                if seq != last:
                    last, quiet_since = seq, loop.time()
                    yield f"event: seq\ndata: {seq}\n\n"
                elif loop.time() - quiet_since > EVENTS_KEEPALIVE_S:
                    quiet_since = loop.time()
                    yield ": still here\n\n"
                await asyncio.sleep(EVENTS_POLL_S)
        finally:
            try:
                streams.give_back(held, slot)  # here, not in the pool: a cancelled stream awaits nothing more
            except FAILURES:
                pass  # its lease ends by itself

    return secured(StreamingResponse(stream(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"}))
