"""The seat's page: `GET /play/{token}` and what it needs (its move form's POST, its live updates,
its stylesheet and script). It plays through the command path exactly as the JSON API does, and
never writes a token into a log line, an error or another site's Referer.

Without JavaScript every move is a plain form POST to /play/{token}/move that redirects back to the
page (POST-redirect-GET), carrying what happened in the query (played, refused with the reason, or
stale). With JavaScript (static/page.js) the same forms are posted by fetch with
`Accept: application/json`, answered 200/409/422 like the API, and the page redraws in place when
/play/{token}/events, a stream of server-sent events, says the log has grown. The move text is
composed from a form in one place (pictures.compose), for both paths.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse

import core
from events import keys
from events.store import Conflict
from pbm import clock_control, turn_report
from pbm.rules import notes as rules_notes
from pbm.web.api import command_id, seat_view, taken_back
from pbm.web.auth import NOT_A_SEAT, SeatAccess, mover_for, seat_for
from pbm.web.context import Server, current
from pbm.web.errors import ApiError
from pbm.web.pictures import compose
from pbm.web.render import STATIC, environment, render_page

router = APIRouter(include_in_schema=False)

# No inline script or style anywhere on these pages: the stylesheet and the script are files.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",  # the page's URL holds the seat's token
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",  # the page shows the seat's hand
}
STATIC_TYPES = {
    "page.css": "text/css; charset=utf-8",
    "page.js": "text/javascript; charset=utf-8",
    "icon.svg": "image/svg+xml",
}
STATIC_BYTES = {name: (STATIC / name).read_bytes() for name in STATIC_TYPES}
# The files' URLs change with their content, so browsers may keep them for a long time.
STATIC_PATH = "/static/pbm/" + hashlib.sha256(b"".join(STATIC_BYTES.values())).hexdigest()[:12]
NOTICES = {
    "stale": "Someone moved first: your move was not played. Here is the table now.",
    "vacation": "Your vacation has begun: your clock is stopped until it ends.",
}
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
    return hmac.new(secret, b"csrf:" + token.strip().lower().encode(), hashlib.sha256).hexdigest()


def not_a_seat(status: int = 401, message: str = NOT_A_SEAT) -> Response:
    html = environment.get_template("refused.html").render(message=message, static=STATIC_PATH)
    return secured(HTMLResponse(html, status_code=status))


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
async def page(
    token: str,
    request: Request,
    played: str | None = None,
    refused: str | None = None,
    move: str | None = None,
    at: str | None = None,
    notice: str | None = None,
) -> Response:
    server = current(request)
    try:
        access = seat_for(server, token)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message)
    return secured(HTMLResponse(page_html(access, token, played=played, refused=refused, move=move, at=at, notice=notice)))


def page_html(access: SeatAccess, token: str, **said: str | None) -> str:
    server, game_id = access.server, access.game_id
    me = seat_view(access)
    table = server.games.table(game_id)
    names = [server.seats.contact(game_id, seat).get("name") for seat in range(table.players)]
    notice = NOTICES.get(said["notice"] or "")
    if said["played"] and not notice:
        notice = f"You played {said['played'][:200]}."
    return render_page(
        me["view"],
        game_id=game_id,
        options=dict(table.started.options),
        names=names,
        report=me["report"],
        story=turn_report.story(table, access.seat),
        base_path=f"/play/{token}",
        static=STATIC_PATH,
        csrf=csrf_token(server, token),
        deadline=(me.get("clock") or {}).get("deadline"),
        vacation=vacation_of(me, table),
        notice=notice,
        refusal=(said["refused"] or "")[:300] or None,
        refused_move=(said["move"] or "")[:200] or None,
        refused_at=(said["at"] or "")[:40] or None,
    )


def vacation_of(me: Mapping[str, Any], table: core.Table) -> dict[str, Any] | None:
    """The seat's vacation bank for its page's form: None in a game without a clock, over, or
    whose seat a bot plays (as POST /api/me/vacation refuses those)."""
    clock = me.get("clock")
    if clock is None or table.outcome is not None or me["seat"] in table.bots:
        return None
    return {"left": clock["vacation_days_left"], "until": clock["on_vacation_until"]}


async def posted_form(request: Request) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """A form post's fields in order, and each name's first value."""
    fields = parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    return fields, {name: value for name, value in reversed(fields)}


def form_refusal(server: Server, token: str, request: Request, first: Mapping[str, str]) -> str | None:
    """Why a form of the page may not be acted on (it came from another site, or from a page
    older than the form's CSRF token), or None."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return "a form must come from your own page"
    if not hmac.compare_digest(first.get("csrf", ""), csrf_token(server, token)):
        return "this form is out of date: the page has been reloaded, try again"
    return None


@router.post("/play/{token}/move")
async def post_move(token: str, request: Request) -> Response:
    """One move from a form of the page. With `Accept: application/json` (the page's script) it
    answers like POST /api/me/moves; otherwise it redirects back to the page (303)."""
    wants_json = "application/json" in request.headers.get("accept", "")
    fields, first = await posted_form(request)
    server = current(request)
    back = f"/play/{token}"
    sent_from = first.get("at", "")
    at = {"at": sent_from[:40]} if sent_from else {}  # the composing form that sent the move

    def answer(status: int, said: Mapping[str, str], error: str | None = None) -> Response:
        if wants_json:
            body = {"error": error} if error else dict(said)
            return secured(JSONResponse(body, status_code=status))
        if "refused" in said:  # drawn in the form that sent it: the browser scrolls there
            return secured(RedirectResponse(f"{back}?{urlencode(said | at)}#refusal", status_code=303))
        return secured(RedirectResponse(back + ("?" + urlencode(said) if said else ""), status_code=303))

    try:
        access = mover_for(server, token)
    except ApiError as failure:
        if failure.status == 401:
            return secured(JSONResponse({"error": failure.message}, 401)) if wants_json else not_a_seat()
        return answer(failure.status, {"refused": failure.message}, failure.message)
    stopped = form_refusal(server, token, request, first)
    if stopped is not None:
        return answer(403, {"refused": stopped}, stopped)
    text = compose(fields)
    expected = first.get("expected_seq", "")
    try:
        _before, expected_seq = taken_back(access, int(expected) if expected.isdigit() and len(expected) < 10 else None)
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
    return answer(200, {"played": text, "seq": str(submitted.seq)} if wants_json else {"played": text})


@router.post("/play/{token}/vacation")
async def post_vacation(token: str, request: Request) -> Response:
    """The page's vacation form: the seat's clock stops for `days` days, out of its yearly bank
    (pbm.clock_control.take_vacation, as POST /api/me/vacation). Redirects back to the page (303), with
    the refusal drawn in the form when there is one."""
    server = current(request)
    back = f"/play/{token}"
    try:
        access = mover_for(server, token)  # counted as a move is: a form posted in a loop gets 429
    except ApiError as failure:
        if failure.status == 401:
            return not_a_seat()
        return refused_vacation(back, failure.message)
    _fields, first = await posted_form(request)
    stopped = form_refusal(server, token, request, first)
    if stopped is not None:
        return refused_vacation(back, stopped)
    days = first.get("days", "").strip()
    try:
        clock_control.take_vacation(server.games, access.game_id, access.seat, int(days) if days.isdigit() and len(days) < 4 else days[:20])
    except core.SetupError as refusal:
        return refused_vacation(back, str(refusal))
    return secured(RedirectResponse(back + "?" + urlencode({"notice": "vacation"}), status_code=303))


def refused_vacation(back: str, reason: str) -> Response:
    return secured(RedirectResponse(f"{back}?{urlencode({'refused': reason, 'at': 'vacation'})}#refusal", status_code=303))


@router.get("/play/{token}/events")
async def events(token: str, request: Request) -> Response:
    """Server-sent events: `seq` with the log's length, when the stream opens and whenever it
    grows. A poll of one XLEN a second per open page: cheap, and it needs no second connection."""
    server = current(request)
    try:
        access = seat_for(server, token)
    except ApiError as failure:
        return secured(JSONResponse({"error": failure.message}, failure.status))
    store = server.games.store

    async def stream():
        last = None
        loop = asyncio.get_running_loop()
        end = loop.time() + EVENTS_STREAM_S
        quiet_since = loop.time()
        yield "retry: 2000\n\n"
        while loop.time() < end and not await request.is_disconnected():
            seq = store.length(access.game_id)
            if seq != last:
                last, quiet_since = seq, loop.time()
                yield f"event: seq\ndata: {seq}\n\n"
            elif loop.time() - quiet_since > EVENTS_KEEPALIVE_S:
                quiet_since = loop.time()
                yield ": still here\n\n"
            await asyncio.sleep(EVENTS_POLL_S)

    return secured(StreamingResponse(stream(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"}))
