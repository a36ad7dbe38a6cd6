"""The ASGI app: create_app() wires the routers, the error answers, the limits at the door and the
request size limit over one Server context. It holds no game state of its own beyond the command path's table cache.

Front ends add their routes here with one include_router line (the seat's pages: pbm/web/pages.py).
"""

from __future__ import annotations

import os

import attrs
import redis
from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from events import server as redis_server
from events.commands import Games
from events.seats import Seats
from events.store import Store
from pbm.web import api, console, docs, errors, joining, operator, orders_api, pages, people, rematching, review, settings
from pbm.web.context import Server
from pbm.web.limits import Allowance, Doors, Limits, answer

MAX_BODY_BYTES = 16 * 1024  # a move or a new game's seats: far below this


def create_app(
    client: redis.Redis | None = None,
    *,
    games: Games | None = None,
    admin_token: str | None = None,
    public_url: str | None = None,
    moves_per_window: int | None = None,
    move_window_s: int | None = None,
    limits: Limits | None = None,
) -> FastAPI:
    """The app over `client` (default: REDIS_URL or the embedded Redis). `games` defaults to a
    dispatching command path on that client; settings default to PBM_ADMIN_TOKEN, PBM_PUBLIC_URL
    and the limits' variables (PBM_MOVES_PER_10S and others: settings.LIMIT_SETTINGS). A setting that would leave a public server open raises SettingError
    (pbm/web/settings.py), in one line."""
    client = client or redis_server.connect()
    if games is None:
        from workers.dispatch import Dispatcher  # rq is the workers' dependency, loaded only here

        games = Games(Store(client), dispatch=Dispatcher(redis_server.connect_queues(client), log=client))
    context = Server(
        games=games,
        seats=Seats(client),
        # Refused here, before anything listens: a guessable operator's token, a base for links
        # that is not one.
        admin_token=settings.admin_token(admin_token if admin_token is not None else os.environ.get("PBM_ADMIN_TOKEN")),
        public_url=settings.public_url(public_url or os.environ.get("PBM_PUBLIC_URL")),
        limits=with_moves(settings.limits(limits), moves_per_window, move_window_s),
    )
    # The spec and its page are pbm/web/docs.py's, served with a Content-Security-Policy and no
    # CDN; FastAPI's own (Swagger UI and ReDoc from a CDN) are off.
    # FastAPI's own OpenTelemetry off: pbm exports no traces, and the check for a configured
    # provider on every request cost more than parsing a move's body (bench/serve.py).
    app = FastAPI(title="pbm", summary="Board and card games played a move a day", version="1", docs_url=None, redoc_url=None, openapi_url=None,
                  telemetry={"tracing": False, "metrics": False, "logs": False})
    app.state.pbm = context
    errors.install(app)
    app.include_router(api.router)
    app.include_router(orders_api.router)
    app.include_router(people.router)  # before operator's: /api/people/me is not a person id
    app.include_router(operator.router)
    app.include_router(operator.spectators)
    app.include_router(rematching.router)  # before pages': its paths are under a seat's page
    app.include_router(pages.router)
    app.include_router(review.router)
    app.include_router(docs.router)
    app.include_router(people.pages)
    app.include_router(joining.router)
    app.include_router(console.router)
    app.add_middleware(Shortcut, route=api.move_route(), handlers=app.exception_handlers)
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)
    # Outermost: a request refused at the door costs no parsing, routing or body.
    app.add_middleware(Doors, exempt=uncounted)
    return app


def with_moves(limits: Limits, per_window: int | None, window_s: int | None) -> Limits:
    """`limits` with a seat's move allowance as given (else as PBM_MOVES_PER_10S or its default)."""
    if per_window is None and window_s is None:
        return limits
    moves = limits.moves
    return attrs.evolve(limits, moves=Allowance(per_window or moves.requests, window_s or moves.window_s))


def uncounted(scope: Scope) -> bool:
    """Requests a client address's allowance does not count: a move through the API (the hot path,
    counted per seat in its own round trip) and the static files (in memory, cached for a year)."""
    path = scope["path"]
    return (path == "/api/me/moves" and scope["method"] == "POST") or path.startswith("/static/")


class Shortcut:
    """Sends a request for one route straight to that route's handler, past the rest of the
    stack (FastAPI's exception middleware, its exit stack, the router's match over every route):
    for POST /api/me/moves, the request a busy server answers most, that stack cost about as much
    of the server's CPU as the move itself (bench/serve.py). An exception the handler raises is
    answered by the app's own exception handlers, found as Starlette finds them (by the
    exception's class, then its bases); any other goes on up, to the 500 answer of the server
    error middleware, as it would from the router."""

    def __init__(self, app: ASGIApp, route: APIRoute, handlers: dict) -> None:
        self.app = app
        self.path = route.path
        self.methods = route.methods
        self.handle = route.get_route_handler()
        self.handlers = handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path or scope["method"] not in self.methods or scope.get("root_path"):
            return await self.app(scope, receive, send)
        request = Request(scope, receive, send)
        try:
            response = await self.handle(request)
        except Exception as failure:
            answer = next((self.handlers[kind] for kind in type(failure).__mro__ if kind in self.handlers), None)
            if answer is None:
                raise
            response = await answer(request, failure)
        await response(scope, receive, send)


class BodyLimit:
    """Refuses a request body over `limit` bytes with 413, by its Content-Length or as it streams.
    (FastAPI's own max_body_size answers in plain text; every error here is JSON.)"""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        # A length is read only when it has few enough digits to be a length: int() of thousands of
        # digits raises (Python's 4,300-digit limit), and any such header is over the limit anyway.
        if declared is not None and (not (declared.isascii() and declared.isdigit()) or len(declared) > 12 or int(declared) > self.limit):
            return await self._refuse(send)
        seen = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        await answer(send, 413, f"request body over {self.limit} bytes")


class BodyTooLarge(HTTPException):
    """Raised while the body streams in: FastAPI passes an HTTPException on to the error answers."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body over {limit} bytes")

