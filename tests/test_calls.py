"""The store's direct calls (events/calls.py): the same answers as redis-py's own calls, through a
flushed script cache, a dropped connection, a fork and threads; a Cluster goes through redis-py."""

from __future__ import annotations

import os
import threading

import pytest
import redis

from events import keys
from events.calls import Calls
from events.server import RETRY
from events.store import Store
from tests.test_store import sealed_bytes


def test_a_plain_redis_is_called_directly_and_a_cluster_through_redis_py(redis_client) -> None:
    # On the test Cluster (PBM_TEST_CLUSTER=1) redis_client is a RedisCluster.
    assert Calls(redis_client).direct is not isinstance(redis_client, redis.RedisCluster)
    assert not Calls(redis.Redis(single_connection_client=True)).direct


def test_reads_give_what_redis_py_gives(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 5)
    store.append(game_id, 0, raw)
    entries = store.redis.xrange(keys.log(game_id))
    assert store.read_raw(game_id) == [(keys.seq_of(entry), fields[b"e"]) for entry, fields in entries]
    assert store.read_raw(game_id, 1, 3) == list(enumerate(raw))[1:4]


def test_an_entry_without_an_envelope_field_is_a_key_error(store: Store, game_id: str) -> None:
    store.redis.xadd(keys.log(game_id), {"x": b"1", "y": b"2"}, id="0-1")
    try:
        with pytest.raises(KeyError):
            store.read_raw(game_id)
    finally:
        store.redis.delete(keys.log(game_id))  # a log no reader could read: not left for pbm reindex's tests


def test_stores_on_one_client_share_its_connections(redis_client, game_id: str) -> None:
    """A Store is made per request or per recovery pass: none may keep a connection of its own
    (the pool stops at 100), so a thousand of them in turn hold one."""
    raw = sealed_bytes(game_id, 0, 1000)
    Store(redis_client).append(game_id, 0, raw[:1])
    calls = Store(redis_client)._calls
    held = len(calls._idle.connections) if calls.direct else 0  # earlier tests' threads left some
    for seq in range(1, 1000):
        Store(redis_client).append(game_id, seq, raw[seq : seq + 1])
    if calls.direct:
        assert len(calls._idle.connections) == held >= 1


def test_a_flushed_script_cache_loads_the_script_again(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 3)
    store.append(game_id, 0, raw[:1])
    store.redis.script_flush()  # as after a restart of Redis without its scripts
    assert store.append(game_id, 1, raw[1:]).count == 2
    assert store.read_raw(game_id) == list(enumerate(raw))


def test_a_dropped_connection_is_reconnected_and_the_append_made_once(redis_client, game_id: str) -> None:
    if not Calls(redis_client).direct:
        pytest.skip("redis-py's own retry carries a Cluster client's calls")
    # With the retry policy pbm's own clients have (events.server.RETRY): the test session's client
    # for a REDIS_URL has redis-py's default, which retries nothing.
    pool = redis_client.connection_pool
    retrying = redis.Redis(connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **{**pool.connection_kwargs, "retry": RETRY}))
    store = Store(retrying)
    try:
        raw = sealed_bytes(game_id, 0, 3)
        store.append(game_id, 0, raw[:1])
        connection = store._calls._idle.connections[-1]
        connection.send_command("CLIENT", "ID")
        store.redis.client_kill_filter(_id=connection.read_response())  # as a Redis restart would
        appended = store.append(game_id, 1, raw[1:])
        assert (appended.count, appended.duplicate) == (2, False)
        assert store.read_raw(game_id) == list(enumerate(raw))
    finally:
        retrying.close()


def test_a_forked_child_uses_connections_of_its_own(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 4)
    store.append(game_id, 0, raw[:1])  # the parent holds a connection now
    pid = os.fork()
    if pid == 0:  # the child: appends on the parent's Store, as rq's work horse does
        try:
            store.append(game_id, 1, raw[1:2])
            os._exit(0 if store.read_raw(game_id) == list(enumerate(raw[:2])) else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # The parent's connection was not disturbed by the child's (the replies went to their senders).
    assert store.append(game_id, 2, raw[2:]).count == 2
    assert store.read_raw(game_id) == list(enumerate(raw))


def test_threads_appending_at_once_each_get_their_own_answers(store: Store) -> None:
    game_ids = [f"calls-threads-{number}-{os.getpid()}" for number in range(8)]
    logs = {game_id: sealed_bytes(game_id, 0, 40) for game_id in game_ids}
    failures = []

    def play(game_id: str) -> None:
        try:
            for seq, raw in enumerate(logs[game_id]):
                appended = store.append(game_id, seq, [raw])
                assert (appended.first, appended.count) == (seq, 1)
        except BaseException as error:  # reported below: an assert in a thread fails nothing
            failures.append((game_id, error))

    threads = [threading.Thread(target=play, args=(game_id,)) for game_id in game_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for game_id in game_ids:
        assert store.read_raw(game_id) == list(enumerate(logs[game_id]))
    if store._calls.direct:
        assert 1 <= len(store._calls._idle.connections) <= len(game_ids) + 1
    store.redis.delete(*[keys.log(game_id) for game_id in game_ids], *[keys.meta(game_id) for game_id in game_ids])


def test_a_batch_of_reads_answers_in_order_and_an_error_leaves_nothing_unread(redis_client, game_id: str) -> None:
    calls = Calls(redis_client)
    if not calls.direct:
        pytest.skip("a Cluster client reads through redis-py's pipeline")
    seed, meta = keys.seed(game_id), keys.meta(game_id)
    redis_client.set(seed, b"7")
    redis_client.hset(meta, mapping={"slug": "holly-oak", "players": 3})
    try:
        assert calls.reads([("GET", seed), ("HMGET", meta, "slug", "players", "nope")]) == [b"7", [b"holly-oak", b"3", None]]
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            calls.reads([("GET", seed), ("HGET", seed, "x"), ("GET", seed)])
        assert calls.command(("GET", seed)) == b"7"  # the batch's last reply was read, not left for this
    finally:
        redis_client.delete(seed, meta)
