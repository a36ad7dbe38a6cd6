"""What every request of one app shares: the command path (with its folded-table cache), the seat
store, the server's settings and limits, and how long moves have been taking. Stateless apart from that cache,
so replicas can run side by side.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor

import attrs
import redis
from fastapi import Request

from events import cooperative
from events.commands import Games
from events.limits import Counter, Slots
from events.joining import Joins
from events.people import People
from events.seats import Seats
from pbm.web.errors import ApiError
from pbm.web.limits import Limits

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})  # as the Host header names them


class MovePool:
    """Where POST /api/me/moves runs: on the event loop's thread, its waits for Redis awaited by
    the loop (events.cooperative), when the app's Redis client is one whose waits can be; else on
    threads of its own, never the loop itself, where a Redis that hangs held every request of the
    server for its timeout (PBM_REDIS_TIMEOUT_S), one move after another.

    Handing a move to a thread and back cost about as much CPU as the move (bench/serve.py:
    0.77-0.87 ms a move in the pool against 0.50-0.59 on the loop, the app called in process); a
    Cluster client's calls go through redis-py's own cluster code, whose waits do not yield.

    While Redis fails, the moves go to the threads: a connection made again (a TCP connect, a
    Sentinel's lookup) does not yield, and against a Redis that is unreachable each would hold
    the loop for its connect timeout. A move on the loop that fails so sends the moves after it
    to the threads, until one of them goes through.
    """

    def __init__(self, threads: int = 8, on_the_loop: bool = False, linger_s: float = cooperative.LINGER_S) -> None:
        self.on_the_loop = on_the_loop
        self.linger_s = linger_s  # after a move on the loop, how long it looks for the next before it sleeps
        self.redis_failing = False
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="pbm-move")  # its threads start when first used

    @classmethod
    def for_clients(cls, *clients) -> MovePool:
        """On the loop when every connection of these clients reads with events.cooperative's parser."""
        return cls(on_the_loop=cooperative.yields(*clients))

    async def run(self, call):
        """`call()` (with the request's context variables): on the loop, or on one of the pool's threads."""
        if self.on_the_loop and not self.redis_failing:
            try:
                return await cooperative.run(call)
            except (redis.ConnectionError, redis.TimeoutError):
                self.redis_failing = True
                raise
            finally:
                asyncio.get_running_loop().call_soon(cooperative.linger, self.linger_s)  # once the answer is written
        answer = await asyncio.get_running_loop().run_in_executor(self.pool, contextvars.copy_context().run, call)
        self.redis_failing = False
        return answer


@attrs.define
class Server:
    games: Games
    seats: Seats
    admin_token: str | None = None
    public_url: str | None = None  # the links' base (PBM_PUBLIC_URL); else a loopback request's own
    limits: Limits = Limits()  # what every door lets through (pbm/web/limits.py)
    move_pool: MovePool = attrs.Factory(lambda self: MovePool.for_clients(self.games.store.redis, self.seats.redis), takes_self=True)  # where POST /api/me/moves runs (pbm/web/api.py)
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
