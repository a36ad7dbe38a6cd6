"""The limits on every door of the web front end: what each allows (Limits), and the middleware that
refuses a request before the app sees it (Doors: headers over a size, 431; a client address past its
requests or its wrong tokens, 429). Counted in Redis (events/limits.py), where a seat's move
allowance is counted, so they hold across server replicas. It decides nothing about who a request
speaks for; a seat's own allowances are counted with its token's check (pbm/web/auth.py).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable

import attrs
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from events import keys
from events.limits import OverAllowance, window
from events.server import REDIS_ERRORS
from pbm.web.errors import ApiError, error


@attrs.frozen
class Allowance:
    requests: int
    window_s: int


@attrs.frozen
class Limits:
    """What each door lets through. Per seat token: its moves (POST /api/me/moves, the page's forms;
    PBM_MOVES_PER_10S) and its reads (its link, its page, GET /api/me and /api/me/log, an event
    stream's opening), and at most `streams_per_seat` event streams open at once. Per client
    address: every request but a move through the API (counted per seat on its own round trip,
    the hot path) and the static files, and its wrong tokens (401s, a seat's or the operator's):
    past those, every request from that address is refused until the window ends, so a guess
    learns nothing even when it is right."""

    moves: Allowance = Allowance(30, 10)
    reads: Allowance = Allowance(60, 10)
    address: Allowance = Allowance(600, 10)  # a household or an office behind one address: generous
    wrong_tokens: Allowance = Allowance(20, 60)
    streams_per_seat: int = 4  # a phone, a laptop and a tab or two; one token opened 300
    stream_lease_s: int = 30  # a stream's slot frees itself this long after its server died
    header_bytes: int = 8 * 1024  # a browser sends 1-2 KiB; a seat's cookie is one token


def too_many(over: OverAllowance, what: str, per: str) -> ApiError:
    """The one answer past any allowance: 429, saying which, with Retry-After."""
    return ApiError(
        429,
        f"too many {what}: at most {over.allowance} every {over.window_s} s per {per}",
        {"Retry-After": str(over.window_s)},
    )


def client_address(scope: Scope) -> str:
    """The address a request's limits count under: its client's (uvicorn puts the one a proxy on
    127.0.0.1 forwards there, FORWARDED_ALLOW_IPS), an IPv6 address by its /64, which one
    household or host is given."""
    client = scope.get("client")
    host = client[0] if client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class Doors:
    """Refuses a request whose headers are over `limits.header_bytes` (431), or whose client address
    is past its allowance of requests or of wrong tokens (429), before the app sees it; counts the
    address's wrong tokens from the app's 401 answers. An address past its wrong tokens is
    remembered here until its window ends, so it costs no round trip to Redis while refused; a
    replica that has not seen it yet learns it at its next wrong token (the count is shared).

    A Redis that does not answer lets the request through (the app then meets the same failure
    and says so, 503): a limit must not turn an outage into a different error."""

    def __init__(self, app: ASGIApp, exempt: Callable[[Scope], bool]) -> None:
        self.app = app
        self.exempt = exempt  # requests not counted per address (a move through the API, a static file)
        self.blocked: dict[str, float] = {}  # address -> when its wrong tokens' window ends

    @staticmethod
    def server(scope: Scope):
        """The app's Server context (pbm/web/context.py), as the routes find it: its limits and its
        counter are the app's at the time of the request."""
        return scope["app"].state.pbm

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        server = self.server(scope)
        limits = server.limits
        if sum(len(name) + len(value) for name, value in scope["headers"]) > limits.header_bytes:
            return await answer(send, 431, f"request headers over {limits.header_bytes} bytes")
        counted = not self.exempt(scope)
        # A move through the API, when no address is refused, needs no address: it is the hot path.
        address = client_address(scope) if counted or self.blocked else None
        until = self.blocked.get(address) if address is not None else None
        if until is not None:
            left = until - time.time()
            if left > 0:
                wrong = limits.wrong_tokens
                message = f"too many wrong tokens from your address: at most {wrong.requests} every {wrong.window_s} s"
                return await answer(send, 429, message, {"Retry-After": str(math.ceil(left))})
            del self.blocked[address]
        if counted:
            allowance = limits.address
            try:
                # In the thread pool: on the event loop, a Redis that hangs held every request for
                # its timeout, one after the other (the moves through the API are not counted here).
                await run_in_threadpool(server.counter.count, keys.address_rate(address, "requests", window(allowance.window_s)), allowance.requests, allowance.window_s)
            except OverAllowance as over:
                refused = too_many(over, "requests", "client address")
                return await answer(send, refused.status, refused.message, refused.headers)
            except REDIS_ERRORS:
                pass

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                await run_in_threadpool(self.wrong_token, server, address or client_address(scope))
            await send(message)

        await self.app(scope, receive, watched)

    def wrong_token(self, server, address: str) -> None:
        wrong = server.limits.wrong_tokens
        number = window(wrong.window_s)
        try:
            server.counter.count(keys.address_rate(address, "wrong-tokens", number), wrong.requests, wrong.window_s)
        except OverAllowance:
            if len(self.blocked) > 10_000:  # many addresses at once: forget those whose window ended
                now = time.time()
                self.blocked = {held: end for held, end in self.blocked.items() if end > now}
            self.blocked[address] = (number + 1) * wrong.window_s
        except REDIS_ERRORS:
            pass


async def answer(send: Send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    await error(status, message, headers)({"type": "http"}, _no_body, send)


async def _no_body() -> Message:
    return {"type": "http.disconnect"}
