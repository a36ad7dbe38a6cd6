"""A seat's replay page: `GET /review/g/{game}/{seat}?seq=N`, the game step by step (one event a
step) as that seat saw it, read by the seat's cookie as its page is (`GET /review/{token}` is a
link that sets the cookie and redirects, through the page's own code), and, once the game is
over, its replay file by the same cookie (`.../export`). It reads the log and writes nothing
but a seat's dispute of the step it shows (`.../disputes`, kept beside the log: events/disputes.py).

What a step shows comes from replays.log and replays.steps for one reader, never anything wider:
while the game runs, the reader is the seat itself (its own view at that step, its own lines);
only once the game is over (the seed revealed, every card may be told) may it ask for another
seat's view (`?as=N`) and see the whole state. The table is drawn by the seat's page's own
templates and pictures (pbm/web/render.py), without the controls of any move. The operator's
console shows the same page for any seat (replay_html, pbm/web/console.py), as that seat would see it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import secrets

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

import core
from events import disputes
from events.disputes import MAX_REASON_CHARS, BadDispute, Disputes

from pbm import seating, turn_report
from pbm.view_text import state_lines
from pbm.web import notes, replay_file, seat_cookie
from pbm.web.api import command_id
from pbm.web.auth import SeatAccess, mover_for
from pbm.web.context import Server, current
from pbm.web.errors import ApiError
from pbm.web.pages import STATIC_PATH, cookie_seat, csrf_token, form_refusal, not_a_seat, opened_link, posted_form, secured, whole_number
from pbm.web.render import render_review
from replays.audit import CLOCK_COLUMNS
from replays.log import Log, from_store, plain
from replays.steps import ROUND_FIELD, Walk, changes, command_shown, view_at

router = APIRouter(include_in_schema=False)

REVIEW_PAGE = "/review/g/{game_id}/{seat}"  # seat_cookie.review_path
ROUND_WORD = {"holly-oak": "round", "holidays": "hand", "holiday-board": "day"}
KEYS = {"first": "Home", "prev": "ArrowLeft", "next": "ArrowRight", "last": "End"}  # review.js's


class BadStep(ValueError):
    """A request for a step that cannot be shown; the text is one line, with its status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@router.get("/review/{token}", response_class=HTMLResponse)
def link(token: str, request: Request) -> Response:
    """A seat's link to its replay: as /play/{token}, on to the replay page (a plain function, so
    in the thread pool: it asks Redis)."""
    return opened_link(token, request, seat_cookie.review_path)


@router.get(REVIEW_PAGE, response_class=HTMLResponse)
def review(game_id: str, seat: int, request: Request) -> Response:
    # A plain function: FastAPI runs it in its thread pool, so folding a long log holds no other request.
    try:
        access, _token = cookie_seat(request, game_id, seat)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, failure.headers)
    log = from_store(access.server.games.store, game_id)
    try:
        step, as_seat = asked(log, seat, request.query_params)
    except BadStep as refused:
        return not_a_seat(refused.status, str(refused), heading="This step cannot be shown")
    said = notes.take(access.server.seats.redis, game_id, seat, request.query_params.get("note"))
    return secured(HTMLResponse(review_html(access, log, step, as_seat, csrf_token(access.server, _token), said)))


@router.post(REVIEW_PAGE + "/disputes")
async def post_dispute(game_id: str, seat: int, request: Request) -> Response:
    """The replay page's dispute form: the step shown, and a reason (events.disputes, as POST
    /api/me/disputes). Back to that step (303), with a note saying it is raised or why not. The
    body is read on the event loop, the rest (Redis) in the thread pool, as the seat page's forms."""
    _fields, first = await posted_form(request)
    return await run_in_threadpool(disputed, game_id, seat, request, first)


def disputed(game_id: str, seat: int, request: Request, first: Mapping[str, str]) -> Response:
    server = current(request)
    step = whole_number(first.get("seq", ""), 9)
    back = seat_cookie.review_path(game_id, seat) + ("" if step is None else f"?seq={step}")

    def answer(said: dict[str, str]) -> Response:
        joiner = "&" if "?" in back else "?"
        return secured(RedirectResponse(f"{back}{joiner}note={notes.leave(server.seats.redis, game_id, seat, said)}#dispute", status_code=303))

    try:
        access, token = cookie_seat(request, game_id, seat, counted=mover_for)
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, failure.headers)
    stopped = form_refusal(server, token, request, first)
    if stopped is not None:
        return answer({"refused": stopped})
    try:
        if step is None:
            raise BadDispute("the dispute names the step shown: a whole number")
        key = first.get("idempotency_key") or None
        dispute, _again = disputes.raise_dispute(server.games, game_id, access.seat, step, first.get("reason", "")[: MAX_REASON_CHARS * 4], command_id(access.seat, key))
    except (core.IllegalMove, ApiError) as refusal:
        return answer({"refused": refusal.message if isinstance(refusal, ApiError) else str(refusal)})
    return answer({"disputed": dispute.id})


@router.get(REVIEW_PAGE + "/export")
def export(game_id: str, seat: int, request: Request) -> Response:
    """The game's replay file, as GET /api/me/export answers it (by the cookie here, for a link)."""
    try:
        access, _token = cookie_seat(request, game_id, seat)
        return secured(replay_file.for_a_seat(access.server.games, game_id))
    except ApiError as failure:
        return not_a_seat(failure.status, failure.message, failure.headers, heading="No replay file here")


def is_over(log: Log) -> bool:
    return log.table().outcome is not None


def asked(log: Log, seat: int, query: Mapping[str, str]) -> tuple[int, int | None]:
    """The step (`seq`, default the last) and whose view (`as`, None: the seat's own) a query asks
    for; BadStep for anything else. Another seat's view is refused while the game runs."""
    step = number(query.get("seq"), "seq", log.last_seq, default=log.last_seq)
    players = log.started.players
    as_seat = number(query.get("as"), "as", players - 1, default=None)
    if as_seat is not None and as_seat != seat and not is_over(log):
        raise BadStep("another seat's view is shown only once the game is over: its hand is still hidden from you", 403)
    return step, as_seat


def number(text: str | None, name: str, top: int, default: int | None) -> int | None:
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise BadStep(f"{name} must be a whole number from 0 to {top}, not {text[:20]!r}")
    if int(text) > top:
        raise BadStep(f"no {name} {int(text)}: this game has {name} 0 to {top}")
    return int(text)


def review_html(access: SeatAccess, log: Log, step: int, as_seat: int | None, csrf: str = "", said: Mapping[str, str] | None = None) -> str:
    """The seat's own replay page: the step (replay_html), its dispute form and its file."""
    server, game_id = access.server, access.game_id
    here = seat_cookie.review_path(game_id, access.seat)
    return replay_html(
        server, log, access.seat, step, as_seat, here,
        page_url=seat_cookie.seat_path(game_id, access.seat),
        export_url=here + "/export" if is_over(log) else None,
        csrf=csrf,
        dispute_url=here + "/disputes",
        dispute_key=secrets.token_urlsafe(12),  # a form sent twice raises one dispute
        disputed=(said or {}).get("disputed"),
        dispute_refused=((said or {}).get("refused") or "")[:300] or None,
        my_disputes=[d for d in Disputes(server.games.store).all(game_id) if d.seat == access.seat],
    )


def replay_html(server: Server, log: Log, seat: int, step: int, as_seat: int | None, here: str, **framing: Any) -> str:
    """A replay page at one step as `seat` saw it (`as_seat`'s view once over, asked() checks),
    every link `here?seq=N`; `framing` is what the page around it adds (review.html): the seat's
    page its dispute form and its file (review_html), the console its clock table (pbm/web/console.py)."""
    game_id = log.game_id
    reader = seat if as_seat is None else as_seat
    over = is_over(log)

    def url(seq: int, whose: int | None = as_seat) -> str:
        return f"{here}?seq={seq}" + ("" if whose is None else f"&as={whose}")

    view = view_at(log, step, reader)
    targets = Walk(log, reader).targets(step)
    round_word = ROUND_WORD.get(log.game.slug, "round")
    ways = [
        ("first", "First", KEYS["first"]),
        ("prev", "Previous", KEYS["prev"]),
        ("next", "Next", KEYS["next"]),
        ("last", "Last", KEYS["last"]),
        ("prev_mine", "My previous move", None),
        ("next_mine", "My next move", None),
        ("prev_skipping", "Previous, skipping passes and forced moves", None),
        ("next_skipping", "Next, skipping passes and forced moves", None),
    ]
    if log.game.slug in ROUND_FIELD:
        ways += [("prev_round", f"Previous {round_word}", None), ("next_round", f"Next {round_word}", None)]
    naming = seating.names(server.seats, game_id, log.table(), reader)  # the reader's names for the seats
    story = [dict(entry, url=url(int(entry["seq"]))) for entry in turn_report.story(log.table(), reader, naming)]
    names = list(naming.names)
    step_state = plain(log.table(step).state) if over else None
    page = {"export_url": None, "dispute_url": None, "clock": None, "back_label": "Back to the table"} | framing
    return render_review(
        view,
        options=dict(log.started.options),
        names=names,
        bots=sorted(log.table().bots),
        game_id=game_id,
        static=STATIC_PATH,
        step=step,
        last=log.last_seq,
        over=over,
        as_seat=as_seat,
        ways=ways,
        urls={name: None if seq is None else url(seq) for name, seq in targets.items()},
        review_url=here,
        line=naming.text(log.narrate(step, reader)),
        command=command_shown(log, step, reader),
        changes=changes(view_at(log, step - 1, reader) if step else None, view),
        view_json=json.dumps(view, indent=1, sort_keys=True),
        story=story,
        seats_shown=[(s, url(step, s)) for s in range(log.started.players)] if over else [],
        state_lines=state_lines(game_id, log.game.slug, step, step_state) if step_state is not None else None,
        clock_columns=CLOCK_COLUMNS,
        **page,
    )
