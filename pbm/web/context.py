"""What every request of one app shares: the command path (with its folded-table cache), the seat
store, the server's settings and limits, and how long moves have been taking. Stateless apart from that cache,
so replicas can run side by side.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from concurrent.futures import ThreadPoolExecutor

import attrs
from fastapi import Request

from events.commands import Games
from events.limits import Counter, Slots
from events.joining import Joins
from events.people import People
from events.seats import Seats
from pbm.web.errors import ApiError
from pbm.web.limits import Limits

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})  # as the Host header names them


class Pace:
    """Where a move runs: on the event loop while its Redis round trips are quick, else in the
    thread pool.

    A move is CPU and two Redis round trips of tens of microseconds on a local Redis: handing it to
    a thread and back costs more CPU than that (bench/serve.py), so while the loop waits little it
    is cheaper to wait there. When it waits longer (Redis far away or overloaded, a machine so busy
    that Redis is not scheduled, or a Redis that does not answer until its timeout), the loop would
    stand idle that long for every move, while the pool lets other requests go on meanwhile. So a
    move on the loop measures how long it waited (its wall time less its CPU time); once the
    average passes `limit_s`, the next `away` moves go to the pool, and then one on the loop
    measures afresh.

    The pool is the moves' own (`pool`), reached by the loop's run_in_executor: anyio's to_thread,
    which FastAPI uses for plain endpoints, cost about 0.5 ms more CPU a move (bench/serve.py, the
    app called in process: 0.98-1.00 ms a move in the pool against 0.46-0.52 this way).
    """

    def __init__(self, limit_s: float = 0.0005, away: int = 50, weight: float = 0.2, threads: int = 8) -> None:
        self.limit_s = limit_s
        self.away = away
        self.weight = weight
        self.average_s = 0.0  # of the waits of the latest moves on the loop
        self.pooled = 0  # how many moves are still to go to the pool
        self.probing = False
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="pbm-move")

    async def in_pool(self, call):
        """`call()` on one of the pool's threads (with the request's context variables)."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, contextvars.copy_context().run, call)

    def on_loop(self) -> bool:
        """Whether the next move runs on the loop (then through `timed`)."""
        if self.pooled == 0:
            return True
        self.pooled -= 1
        self.probing = self.pooled == 0
        return False

    def timed(self, call, *args):
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return call(*args)
        finally:
            self.record((time.perf_counter() - wall) - (time.thread_time() - cpu))

    def record(self, waited: float) -> None:
        """A move on the loop waited `waited` seconds: where the next ones run follows."""
        self.average_s = waited if self.probing else self.average_s + self.weight * (waited - self.average_s)
        self.probing = False
        if self.average_s > self.limit_s:
            self.pooled = self.away


@attrs.define
class Server:
    games: Games
    seats: Seats
    admin_token: str | None = None
    public_url: str | None = None  # the links' base (PBM_PUBLIC_URL); else a loopback request's own
    limits: Limits = Limits()  # what every door lets through (pbm/web/limits.py)
    move_pace: Pace = attrs.Factory(Pace)  # where POST /api/me/moves runs (pbm/web/api.py)
    counter: Counter = attrs.field(init=False)  # counts allowances in Redis
    streams: Slots = attrs.field(init=False)  # each seat's open event streams
    people: People = attrs.field(init=False)  # the people store (it keeps the site's link key, as the seat store does)
    joins: Joins = attrs.field(init=False)  # the join store (its link key, its claim script)

    def __attrs_post_init__(self) -> None:
        self.counter = Counter(self.seats.redis)
        self.streams = Slots(self.seats.redis, self.limits.stream_lease_s)
        self.people = People(self.seats.redis)
        self.joins = Joins(self.seats.redis)

    def base_url(self, request: Request) -> str:
        """The base of the links this server hands out: PBM_PUBLIC_URL; without it, the request's
        own address only when the request names a loopback host. A link made from any other Host
        header would be whatever the sender wrote there (`Host: evil.example` made
        http://evil.example/play/<token>), and a seat's link goes to a person who trusts it."""
        if self.public_url:
            return self.public_url
        if request.url.hostname not in LOOPBACK_HOSTS:
            raise ApiError(421, f"no links for the host {str(request.url.hostname)[:60]!r}: set PBM_PUBLIC_URL to the server's public address")
        return str(request.base_url).rstrip("/")


def current(request: Request) -> Server:
    return request.app.state.pbm
