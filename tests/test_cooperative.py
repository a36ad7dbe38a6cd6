"""events/cooperative.py: blocking code run on an event loop by `run` waits for Redis, a backoff and
a lock there, so the loop goes on meanwhile; its results and errors are the code's own; outside
`run` nothing changes. Against a real Redis with pbm's client settings (events.server.timeouts)."""

from __future__ import annotations

import asyncio
import os
import random
import resource
import socket
import threading
import time

import pytest
import redis
import uvloop

from events import cooperative, server
from events.commands import Games
from events.store import Store
from pbm.web.context import MovePool


@pytest.fixture
def client(redis_client) -> redis.Redis:
    """A client with pbm's settings on the tests' Redis, as events.server.connect makes them."""
    if isinstance(redis_client, redis.RedisCluster):
        pytest.skip("a Cluster client's waits do not yield (MovePool keeps its moves on threads)")
    kwargs = {key: value for key, value in redis_client.connection_pool.connection_kwargs.items()
              if key in ("host", "port", "db", "path", "username", "password")}
    made = redis.Redis(connection_pool=redis.ConnectionPool(connection_class=redis_client.connection_pool.connection_class,
                                                            retry=server.RETRY, **kwargs, **server.timeouts()))
    yield made
    made.close()


async def ticking(work) -> tuple[object, int]:
    """`work` (a coroutine) awaited beside a ticker on the same loop: its result and the ticks."""
    ticks = 0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.ensure_future(tick())
    try:
        return await work, ticks
    finally:
        done.set()
        await ticker


def test_a_call_waiting_for_redis_on_the_loop_leaves_the_loop_going(client: redis.Redis) -> None:
    # BLPOP on an empty list holds its reply 0.5 s in Redis: a blocking read would hold the loop
    # as long, and the ticker would not tick.
    result, ticks = asyncio.run(ticking(cooperative.run(lambda: client.blpop("pbm-test-cooperative-empty", 0.5))))
    assert result is None
    assert ticks >= 10, ticks


def test_the_same_blocking_call_outside_run_holds_the_loop(client: redis.Redis) -> None:
    async def blocking():
        return client.blpop("pbm-test-cooperative-empty", 0.5)

    result, ticks = asyncio.run(ticking(blocking()))
    assert result is None and ticks <= 2, ticks  # what `run` is for


def test_a_reply_past_the_timeout_is_redis_pys_timeout_error_and_the_connection_is_not_reused_dirty(client: redis.Redis) -> None:
    slow = redis.Redis(connection_pool=redis.ConnectionPool(connection_class=client.connection_pool.connection_class,
                                                            **{**client.connection_pool.connection_kwargs, "socket_timeout": 0.2}))
    began = time.monotonic()
    with pytest.raises(redis.TimeoutError):
        asyncio.run(cooperative.run(lambda: slow.blpop("pbm-test-cooperative-empty", 2)))
    assert time.monotonic() - began < 1.5
    assert asyncio.run(cooperative.run(lambda: slow.ping())) is True  # the unread reply went with its connection
    slow.close()


def test_results_and_errors_are_the_calls_own(client: redis.Redis) -> None:
    client.set("pbm-test-cooperative-key", b"kept")

    def failing():
        client.get("pbm-test-cooperative-key")
        raise LookupError("after a wait")

    assert asyncio.run(cooperative.run(lambda: client.get("pbm-test-cooperative-key"))) == b"kept"
    with pytest.raises(LookupError, match="after a wait"):
        asyncio.run(cooperative.run(failing))
    with pytest.raises(redis.ResponseError):
        asyncio.run(cooperative.run(lambda: client.execute_command("NO-SUCH-COMMAND")))
    client.delete("pbm-test-cooperative-key")


def test_a_call_after_another_runs_in_its_greenlet_in_its_own_context_and_keeps_nothing_of_it(client: redis.Redis) -> None:
    import contextvars
    import functools
    import gc
    import weakref

    from greenlet import getcurrent

    name = contextvars.ContextVar("name", default="unset")
    seen = []

    class Request:  # what a move's call holds: it must not outlive the call in a kept greenlet
        pass

    def call(value: str, request: Request) -> str:
        seen.append((getcurrent(), name.get()))
        name.set("set by " + value)  # in the call's own copy of the context
        client.ping()  # a wait: the call leaves and re-enters its greenlet
        if value == "failing":
            raise LookupError("failing call")
        return value

    async def calls() -> list:
        kept = Request()
        dropped = weakref.ref(kept)
        name.set("the caller's")
        first = await cooperative.run(functools.partial(call, "first", kept))
        del kept
        gc.collect()
        alive_after_call = dropped() is not None
        with pytest.raises(LookupError, match="failing call"):
            await cooperative.run(lambda: call("failing", Request()))
        third = await cooperative.run(lambda: call("third", Request()))
        return [first, third, alive_after_call, name.get()]

    first, third, alive_after_call, callers_name = asyncio.run(calls())
    assert (first, third) == ("first", "third")
    assert not alive_after_call  # the greenlet kept for the next call holds nothing of the last
    assert callers_name == "the caller's"  # a call's context variables stay its own
    assert [value for _greenlet, value in seen] == ["the caller's"] * 3  # each starts from the caller's, not the last call's
    assert seen[0][0] is seen[1][0] is seen[2][0]  # one greenlet, kept between calls (a failure too)


LOOPS = pytest.mark.parametrize("new_loop", [asyncio.new_event_loop, uvloop.new_event_loop], ids=["asyncio", "uvloop"])


def on_a_loop(new_loop, work):
    with asyncio.Runner(loop_factory=new_loop) as runner:
        return runner.run(work())


def turned_before_the_reply(client: redis.Redis):
    """A call that pings and says whether the loop turned (ran what was scheduled) before the reply was read."""
    turned = []
    asyncio.get_running_loop().call_soon(turned.append, True)
    return lambda: (client.ping(), bool(turned))[1]


@LOOPS
def test_a_lone_call_looks_for_its_reply_without_handing_the_wait_to_the_loop(client: redis.Redis, new_loop) -> None:
    # Nothing else for the loop to do: the reply is looked for at once (up to SPIN_S), the core
    # kept awake for it. On a busy machine a reply may come later than that: one of 50 will do.
    client.ping()

    async def lone():
        return [await cooperative.run(turned_before_the_reply(client)) for _ in range(50)]

    assert not all(on_a_loop(new_loop, lone))


@LOOPS
def test_a_call_beside_another_hands_its_wait_to_the_loop(client: redis.Redis, new_loop) -> None:
    async def beside():
        other = asyncio.ensure_future(cooperative.run(lambda: client.blpop("pbm-test-cooperative-beside", 0.5)))
        await asyncio.sleep(0.05)  # the other call now waits inside `run`
        turned = [await cooperative.run(turned_before_the_reply(client)) for _ in range(20)]
        await other
        return turned

    assert all(on_a_loop(new_loop, beside))


@LOOPS
def test_a_lone_call_hands_its_wait_to_the_loop_when_the_loop_has_something_ready(client: redis.Redis, new_loop) -> None:
    client.ping()  # connected: the call's one wait is its reply's
    readable, writer = socket.socketpair()

    async def with_a_socket_ready():
        loop = asyncio.get_running_loop()
        loop.add_reader(readable, readable.recv, 1)
        await asyncio.sleep(0)  # watched from now on (uvloop adds a reader to its poller at its next turn)
        turned = []
        for _ in range(20):
            writer.send(b"x")  # something for the loop to do
            turned.append(await cooperative.run(turned_before_the_reply(client)))
        loop.remove_reader(readable)
        return turned

    try:
        assert all(on_a_loop(new_loop, with_a_socket_ready))
    finally:
        readable.close()
        writer.close()


@LOOPS
def test_the_loop_lingers_for_its_next_work_only_while_it_has_none_and_no_call_runs(client: redis.Redis, new_loop) -> None:
    # Bounds far apart, so that a busy machine cannot blur them: a linger of 5 s that ends within
    # 2 s ended for what it saw.
    readable, writer = socket.socketpair()

    async def lingered() -> dict[str, float]:
        loop = asyncio.get_running_loop()
        loop.add_reader(readable, readable.recv, 1)
        await asyncio.sleep(0)  # watched from now on
        took = {}
        began = time.perf_counter()
        cooperative.linger(0.2)
        took["nothing to do"] = time.perf_counter() - began
        writer.send(b"x")
        began = time.perf_counter()
        cooperative.linger(5)
        took["a socket ready"] = time.perf_counter() - began
        await asyncio.sleep(0.05)  # the loop reads it
        waiting = asyncio.ensure_future(cooperative.run(lambda: client.blpop("pbm-test-cooperative-linger", 10)))
        await asyncio.sleep(0.05)  # that call now waits inside `run`, its reply held by Redis
        began = time.perf_counter()
        cooperative.linger(5)
        took["a call inside run"] = time.perf_counter() - began
        client.lpush("pbm-test-cooperative-linger", b"done")  # its reply
        assert await waiting == (b"pbm-test-cooperative-linger", b"done")
        loop.remove_reader(readable)
        return took

    try:
        took = on_a_loop(new_loop, lingered)
    finally:
        readable.close()
        writer.close()
    assert took["nothing to do"] >= 0.2
    assert took["a socket ready"] < 2
    assert took["a call inside run"] < 2


def test_after_a_move_on_the_loop_the_pool_lingers_for_the_next(client: redis.Redis) -> None:
    moves = MovePool(on_the_loop=True, linger_s=0.3)

    async def after_a_move() -> float:
        await moves.run(client.ping)
        began = time.perf_counter()
        await asyncio.sleep(0)  # the loop's next turn: the linger the move left comes first
        return time.perf_counter() - began

    assert asyncio.run(after_a_move()) >= 0.3


def test_many_calls_wait_side_by_side_on_one_loop(client: redis.Redis) -> None:
    async def together():
        return await asyncio.gather(*(cooperative.run(lambda n=n: client.blpop(f"pbm-test-cooperative-{n}", 0.3)) for n in range(10)))

    began = time.monotonic()
    assert asyncio.run(together()) == [None] * 10
    assert time.monotonic() - began < 2.0  # ten waits of 0.3 s at once, not one after the other (3 s)


def test_an_rlock_lets_one_call_on_the_loop_in_at_a_time(client: redis.Redis) -> None:
    lock, inside, seen = threading.RLock(), [], []

    def holding(name: str):
        assert cooperative.acquire(lock, 5)
        try:
            assert cooperative.acquire(lock, 5)  # again, by the call holding it: an RLock's
            cooperative.release(lock)
            inside.append(name)
            seen.append(tuple(inside))
            client.blpop("pbm-test-cooperative-empty", 0.2)  # waits on the loop, holding the lock
            inside.remove(name)
        finally:
            cooperative.release(lock)

    async def both():
        await asyncio.gather(cooperative.run(lambda: holding("a")), cooperative.run(lambda: holding("b")))

    asyncio.run(both())
    assert seen == [("a",), ("b",)]  # never both inside at once, though they share the loop's thread


def test_a_lock_a_thread_holds_is_waited_for_on_the_loop_and_times_out_there() -> None:
    lock, taken, free = threading.RLock(), threading.Event(), threading.Event()

    def holder():
        with lock:
            taken.set()
            free.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    taken.wait(5)
    try:
        got, ticks = asyncio.run(ticking(cooperative.run(lambda: cooperative.acquire(lock, 0.3))))
        assert got is False and ticks >= 8, ticks  # refused after its timeout, the loop going all along
    finally:
        free.set()
        thread.join()
    assert asyncio.run(cooperative.run(lambda: cooperative.acquire(lock, 1) and (cooperative.release(lock) or True))) is True


def test_a_backoff_is_slept_by_the_loop_inside_run_and_by_the_thread_outside() -> None:
    backoff = cooperative.Backoff(base=10, cap=0.2)  # jittered from 0 to 20 s, capped at 0.2
    random.seed(1)  # its first draw, 0.13, makes it 2.7 s: the cap's 0.2
    inside, ticks = asyncio.run(ticking(cooperative.run(lambda: backoff.compute(1))))
    assert inside == 0 and ticks >= 5, ticks  # slept there: redis-py then sleeps nothing
    assert 0 <= backoff.compute(1) <= 0.2  # outside: the seconds, for redis-py to sleep


def test_moves_run_on_the_loop_only_with_clients_whose_waits_yield(client: redis.Redis, redis_client) -> None:
    assert MovePool.for_clients(client, client).on_the_loop
    assert MovePool.for_clients(server.connect()).on_the_loop  # pbm's own clients all yield
    plain = redis.Redis(connection_pool=redis.ConnectionPool(connection_class=client.connection_pool.connection_class,
                                                             **{k: v for k, v in client.connection_pool.connection_kwargs.items() if k != "parser_class"}))
    assert not MovePool.for_clients(client, plain).on_the_loop


def test_a_game_played_by_calls_on_the_loop_is_the_game_played_by_threads(client: redis.Redis) -> None:
    # The command path's own code, its waits yielding: a game's moves appended from calls on one
    # loop, two at a time on the same game (its lock keeps them apart), fold to the log's game.
    games = Games(Store(client))
    game_id = games.create("holly-oak", 4, seed=5, forced_moves="ask")

    def one_move():
        table = games.table(game_id)
        if table.outcome is not None:
            return None
        seat = table.to_act[0]
        return games.submit(game_id, seat, table.legal_moves(seat)[0])

    async def play():
        for _ in range(40):
            await asyncio.gather(cooperative.run(one_move), cooperative.run(lambda: games.table(game_id).seq))

    asyncio.run(play())
    folded = Games(Store(client)).table(game_id)  # another process's view: the log alone
    assert folded.seq == games.table(game_id).seq >= 40
    assert folded.state == games.table(game_id).state


def test_while_redis_fails_the_moves_go_to_threads_until_one_there_goes_through(client: redis.Redis, tmp_path) -> None:
    # A connection made again does not yield (a TCP connect): against an unreachable Redis each
    # move on the loop would hold it for the connect timeout.
    gone = redis.Redis(connection_pool=redis.ConnectionPool(connection_class=redis.UnixDomainSocketConnection,
                                                            path=str(tmp_path / "no-redis.sock"), **server.timeouts()))
    moves = MovePool.for_clients(client)
    where = lambda: (client.ping(), threading.current_thread() is threading.main_thread())[1]  # noqa: E731

    async def play():
        on_the_loop = [await moves.run(where)]
        with pytest.raises(redis.ConnectionError):
            await moves.run(gone.ping)
        on_the_loop += [await moves.run(where), await moves.run(where)]
        return on_the_loop

    assert asyncio.run(play()) == [True, False, True]  # on the loop; after the failure on a thread; back once it went through


def test_a_look_for_a_reply_takes_a_descriptor_past_select_s_limit() -> None:
    # A busy server holds thousands of sockets (each open seat page's stream): its Redis
    # connections' descriptors can be past 1,023, which select.select refuses.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2100:
        pytest.skip(f"descriptors limited to {hard} here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2100), hard))
    ours, theirs = socket.socketpair()
    high = socket.socket(fileno=os.dup2(ours.fileno(), 2000))
    try:
        assert not cooperative._has_bytes(high)
        theirs.sendall(b"+OK\r\n")
        assert cooperative._has_bytes(high)
    finally:
        high.close()
        ours.close()
        theirs.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
