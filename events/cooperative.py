"""Blocking code run on an event loop without holding it: `run(call)` runs `call()` in a greenlet
on the loop's own thread, and wherever that call waits (for a reply from Redis, a retry's backoff,
a game's lock) the loop serves everything else meanwhile. It decides nothing, and outside `run`
nothing changes: every wait blocks its thread as it always did.

Why: POST /api/me/moves costs a few hundred microseconds of CPU, and handing it to a thread and
back cost about as much again (bench/serve.py); run on the loop with blocking waits, a Redis that
hung held every request of the server for its timeout (tests/test_redis_hangs.py). With this, the
move's code (the command path, the token's check, the seat's names) stays the one code that
threads run too; only its waits yield to the loop, as an `await` would.

What yields: a reply read by a connection whose parser is `Parser` (events.server's clients all
have it), a backoff of `Backoff`, and `acquire`. Anything else that blocks (a TCP connect, a
Sentinel's lookup when a connection is made again) still blocks the loop for its own timeout.

Where the loop has nothing else to do, its thread looks for what comes next without pause for a
moment instead of sleeping at once: a call alone on an idle loop looks for its reply for up to
SPIN_S before it hands the wait to the loop (`_spun`), and after a call `linger` looks for the
loop's next work for up to LINGER_S. Nothing is held up meanwhile, and a core kept awake answers
sooner: on a VM, waking a halted core costs tens of microseconds, a tenth of a move's time with
one client at a time (bench/serve.py, docs/serve.md "Speed"). Schedulers do the same (Erlang's
busy wait before a scheduler sleeps, Linux's busy polling of sockets).
"""

from __future__ import annotations

import asyncio
import contextvars
import select
import threading
import time
from typing import Any

import redis
from greenlet import getcurrent, greenlet
from redis._parsers import _HiredisParser
from redis._parsers.socket import SENTINEL
from redis.backoff import ExponentialWithJitterBackoff

LOCK_POLL_S = 0.0005  # how often a call on the loop looks again at a lock a thread holds


class _OnTheLoop(greenlet):
    """Runs the calls `run` gives it, one after another, each in its own context; their waits are
    awaited by its parent, the loop's own greenlet. Kept between calls: a new greenlet cost about
    8 us and a fresh frame stack (an mmap, its page faults and a munmap), 1-2% of a move's CPU.
    Between calls it holds nothing of the last one."""

    def __init__(self) -> None:
        super().__init__(self._calls)
        self.held: dict[Any, int] = {}  # the locks its call holds (an RLock may be taken again): how often
        self.next: tuple[contextvars.Context, Any] | None = None  # the call to run, in its context
        self.ended: tuple[Any, Exception | None] = (None, None)  # the call's result, or its exception

    def _calls(self) -> None:
        while True:
            context, call = self.next
            self.next = None
            try:
                self.ended = (context.run(call), None)
            except Exception as failure:  # noqa: BLE001 - handed to `run`, which raises it
                self.ended = (None, failure)
            # Anything else (a cancellation thrown in where it waited, GreenletExit) ends this greenlet.
            del context, call
            self.parent.switch(_ENDED)


_ENDED = object()  # what a greenlet of `run` switches back with once its call has ended
SPARE = 64  # at most this many greenlets kept between calls: as many as wait side by side at a busy moment
SPIN_S = 0.0002  # how long a lone call looks at its socket before the loop watches it
LINGER_S = 0.0003  # how long the loop's thread looks for its next work after a call, before it sleeps


class _Loop(threading.local):
    """What `run` keeps for the loop of its thread (a greenlet runs only on its own thread)."""

    def __init__(self) -> None:
        self.spare: list[_OnTheLoop] = []  # greenlets between calls
        self.running = 0  # calls inside `run` now


_THIS = _Loop()


_HOLDERS: dict[Any, _OnTheLoop] = {}  # a lock held by a call on a loop: which one


def on_the_loop() -> bool:
    """Whether the caller runs inside `run` (its waits then go to the loop)."""
    return type(getcurrent()) is _OnTheLoop


def wait(awaitable: Any) -> Any:
    """The result of `awaitable`, awaited by the loop while the calling code waits (inside `run` only)."""
    return getcurrent().parent.switch(awaitable)


async def run(call: Any) -> Any:
    """`call()` on this loop's thread (with the caller's context variables), every wait of it
    awaited here; its result, or its exception. A cancellation is thrown into the call where it
    waits, as it would be into a coroutine."""
    this = _THIS
    spare = this.spare
    child = spare.pop() if spare else _OnTheLoop()
    child.parent = getcurrent()
    child.next = (contextvars.copy_context(), call)
    this.running += 1
    try:
        asked = child.switch()
        while asked is not _ENDED:
            try:
                answer = await asked
            except BaseException as failure:  # noqa: BLE001 - the call's own to handle, as at an await
                asked = child.throw(failure)
            else:
                asked = child.switch(answer)
    finally:
        this.running -= 1
    (result, failure), child.ended = child.ended, (None, None)
    if not child.held and len(spare) < SPARE:
        spare.append(child)
    if failure is not None:
        raise failure
    return result


def _spun(sock: Any) -> bool:
    """Whether `sock` has bytes to read within SPIN_S, looked at without pause while the loop has
    nothing else to do: this call the only one inside `run`, and nothing ready for the loop (its
    poller's own descriptor, uvloop's or asyncio's, not readable). A call that looks past SPIN_S,
    or sees the loop wanted, hands the wait to the loop."""
    if _THIS.running != 1:
        return False
    if _tls_pending(sock):
        return True
    others = _poller_of(asyncio.get_running_loop())
    if others is None:
        return False
    ready = _looked_for((sock.fileno(), others), SPIN_S)
    return bool(ready) and others not in ready


def linger(seconds: float = LINGER_S) -> None:
    """After a call, on the loop (call_soon it): while no call is inside `run`, look for the loop's
    next work (its poller readable) without pause for up to `seconds` before the loop sleeps. A
    client that sends again at once (a person's next move, a bot's) is then read by an awake core."""
    if _THIS.running:
        return
    others = _poller_of(asyncio.get_running_loop())
    if others is not None:
        _looked_for((others,), seconds)


def _looked_for(descriptors: tuple[int, ...], seconds: float) -> list[int]:
    """Those of `descriptors` readable within `seconds`, looked at without pause ([] if none):
    the core stays awake meanwhile."""
    poller = select.poll()
    for descriptor in descriptors:
        poller.register(descriptor, select.POLLIN)
    deadline = time.perf_counter() + seconds
    while not (ready := poller.poll(0)):
        if time.perf_counter() > deadline:
            return []
    return [descriptor for descriptor, _events in ready]


def _poller_of(loop: asyncio.AbstractEventLoop) -> int | None:
    """The descriptor of the loop's poller (readable when anything it watches is), None if unknown."""
    backend = getattr(loop, "_get_backend_id", None)  # uvloop: libuv's epoll
    if backend is not None:
        return backend()
    selector = getattr(loop, "_selector", None)  # asyncio's selector loops
    fileno = getattr(selector, "fileno", None)
    return fileno() if fileno is not None else None


async def _readable(sock: Any, timeout_s: float | None) -> bool:
    """Whether `sock` has something to read within `timeout_s` (None: however long it takes).
    First after one turn of the loop: on a busy server Redis has answered by then, and a look costs
    less than watching the socket (the loop's add_reader and remove_reader were a tenth of a move's
    CPU in a profile of bench/serve.py)."""
    await asyncio.sleep(0)
    if _has_bytes(sock):
        return True
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    descriptor = sock.fileno()
    loop.add_reader(descriptor, _settle, ready, True)
    timer = None if timeout_s is None else loop.call_later(timeout_s, _settle, ready, False)
    try:
        return await ready
    finally:
        loop.remove_reader(descriptor)
        if timer is not None:
            timer.cancel()


def _has_bytes(sock: Any) -> bool:
    """Whether `sock` has bytes to read now: in a TLS socket's own buffer (which the descriptor
    does not show), or the descriptor's (poll: select refuses descriptors past 1,023)."""
    return _tls_pending(sock) or bool(_looked_for((sock.fileno(),), 0))


def _tls_pending(sock: Any) -> bool:
    """Whether a TLS socket holds decrypted bytes of its own, which its descriptor does not show."""
    return getattr(sock, "pending", None) is not None and sock.pending() > 0


def _settle(future: asyncio.Future, value: bool) -> None:
    if not future.done():
        future.set_result(value)


class Parser(_HiredisParser):
    """redis-py's hiredis parser, whose wait for a reply, inside `run`, is the loop's: it reads
    only once the socket has something (or its timeout passed, which is redis-py's TimeoutError
    as before)."""

    def read_from_socket(self, timeout: Any = SENTINEL, raise_on_timeout: bool = True) -> bool:
        sock = self._sock
        if sock is not None and on_the_loop():
            seconds = self._socket_timeout if timeout is SENTINEL else timeout
            if seconds != 0 and not _spun(sock) and not wait(_readable(sock, seconds)):
                if raise_on_timeout:
                    raise redis.TimeoutError("Timeout reading from socket")
                return False
        return super().read_from_socket(timeout, raise_on_timeout)


class Backoff(ExponentialWithJitterBackoff):
    """redis-py's exponential backoff with jitter between retries, slept by the loop inside `run`
    (redis-py sleeps what compute() answers: here nothing, once the loop has slept it)."""

    def compute(self, failures: int) -> float:
        seconds = super().compute(failures)
        if seconds > 0 and on_the_loop():
            wait(asyncio.sleep(seconds))
            return 0
        return seconds


def acquire(lock: Any, timeout_s: float) -> bool:
    """`lock.acquire(timeout=timeout_s)`; inside `run`, waited for by the loop, and held by one
    call on a loop at a time: all of a loop's calls share its thread, and an RLock would let a
    second one in as that thread's."""
    me = getcurrent()
    if type(me) is not _OnTheLoop:
        return lock.acquire(timeout=timeout_s)
    deadline = time.monotonic() + timeout_s
    while True:
        if _HOLDERS.get(lock, me) is me and lock.acquire(blocking=False):
            _HOLDERS[lock] = me
            me.held[lock] = me.held.get(lock, 0) + 1
            return True
        if time.monotonic() >= deadline:
            return False
        wait(asyncio.sleep(LOCK_POLL_S))


def release(lock: Any) -> None:
    """Undo one `acquire` of `lock`."""
    me = getcurrent()
    if type(me) is _OnTheLoop:
        me.held[lock] -= 1
        if not me.held[lock]:
            del me.held[lock]
            del _HOLDERS[lock]
    lock.release()


def yields(*clients: Any) -> bool:
    """Whether these clients' waits for a reply yield inside `run`: plain clients (a Cluster's
    calls go through redis-py's cluster code) whose connections read with `Parser`."""
    return all(
        isinstance(client, redis.Redis) and getattr(client, "connection_pool", None) is not None
        and client.connection_pool.connection_kwargs.get("parser_class") is Parser
        for client in clients
    )
