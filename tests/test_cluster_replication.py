"""Acknowledged means replicated on a Redis Cluster too (PBM_MIN_REPLICAS): on a local cluster of
three masters with a replica each, an append is answered only once the replica of the master
holding its game's slot has it (the WAIT follows the script on that master's connection); a
replica that lags makes it the same "may or may not stand" (a 503 through the API), and the same
command id sent again is answered once the replica has it. A failover the client has not heard
of yet (CLUSTER FAILOVER) is a MOVED answer, followed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from fastapi.testclient import TestClient

from bench.cluster import Cluster, redis_cluster
from events import keys
from events.commands import Games
from events.seats import Seats
from events.server import NotReplicated
from events.store import Store
from pbm.web import create_app
from tests.test_replication import ADMIN, lagging


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with redis_cluster(masters=3, replicas=1) as started:
        yield started


@pytest.fixture
def client(cluster: Cluster) -> Iterator[redis.RedisCluster]:
    connected = redis.RedisCluster.from_url(cluster.url())
    yield connected
    connected.close()


def shard_of(cluster: Cluster, client: redis.RedisCluster, game_id: str) -> tuple[redis.Redis, redis.Redis]:
    """Plain clients of (the master holding the game's slot, its replica, read as it is)."""
    master = client.get_node_from_key(keys.log(game_id)).port
    return cluster.client(master), cluster.reader(cluster.replica_of(master))


def play(games: Games, game_id: str, command_id: str):
    table = games.table(game_id)
    seat = table.to_act[0]
    return games.submit(game_id, seat, table.legal_moves(seat)[0], command_id=command_id, expected_seq=table.seq)


def test_an_append_is_answered_once_the_replica_of_its_shard_has_it(cluster, client) -> None:
    games = Games(Store(client, replication=(1, 2000)))
    made, shards = [], set()
    while len(shards) < 3 or len(made) < 6:  # games on every shard (their ids are drawn at random)
        made.append(games.create("holly-oak", 3, seed=len(made), forced_moves="ask"))
        shards.add(client.get_node_from_key(keys.log(made[-1])).name)
    for game_id in made:
        _master, replica = shard_of(cluster, client, game_id)
        for number in range(3):
            done = play(games, game_id, f"m{number}")
            # Read on the replica at once, no waiting: WAIT answered only once it had the move.
            assert replica.xlen(keys.log(game_id)) == done.events[-1].seq + 1


def test_a_move_the_replica_did_not_confirm_may_stand_and_its_resend_answers_it(cluster, client) -> None:
    store = Store(client, replication=(1, 300))
    games = Games(store)
    game_id = games.create("holly-oak", 3, seed=6, forced_moves="ask")
    master, replica = shard_of(cluster, client, game_id)
    table = games.table(game_id)
    with lagging(master, replica):
        with pytest.raises(NotReplicated, match="may or may not stand: send it again with the same command id"):
            play(games, game_id, "the-move")
        assert store.length(game_id) == table.seq + 1  # written on the master, not acknowledged
        with pytest.raises(NotReplicated):  # sent again while the replica still lacks it: no answer either
            games.submit(game_id, table.to_act[0], table.legal_moves(table.to_act[0])[0], command_id="the-move", expected_seq=table.seq)
    again = games.submit(game_id, table.to_act[0], table.legal_moves(table.to_act[0])[0], command_id="the-move", expected_seq=table.seq)
    assert again.duplicate and again.seq == table.seq
    assert replica.xlen(keys.log(game_id)) == table.seq + 1


def test_the_api_answers_503_saying_the_move_may_stand_then_200_for_the_same_key(cluster, client) -> None:
    store = Store(client, replication=(1, 300))
    games = Games(store)
    app = create_app(client, games=games, admin_token=ADMIN)
    game_id = games.create("holly-oak", 3, seed=8, forced_moves="ask")
    master, replica = shard_of(cluster, client, game_id)
    table = games.table(game_id)
    seat = table.to_act[0]
    token = Seats(client).issue(game_id, seat)
    body = {"move": table.legal_moves(seat)[0], "expected_seq": table.seq}
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"}
    with TestClient(app, base_url="http://127.0.0.1", client=("10.9.8.7", 50000)) as web:
        with lagging(master, replica):
            doubt = web.post("/api/me/moves", json=body, headers=headers)
        assert doubt.status_code == 503
        assert "may or may not stand" in doubt.json()["error"] and token not in doubt.text
        answer = web.post("/api/me/moves", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["seq"] == table.seq
    assert store.length(game_id) == table.seq + 1  # played once


def test_after_a_failover_the_client_has_not_heard_of_the_append_follows_moved(cluster, client) -> None:
    games = Games(Store(client, replication=(1, 2000)))
    game_id = games.create("holly-oak", 3, seed=11, forced_moves="ask")
    old = client.get_node_from_key(keys.log(game_id)).port
    new = cluster.replica_of(old)
    cluster.client(new).execute_command("CLUSTER", "FAILOVER")  # the replica takes over, graciously
    cluster.promoted(old, new)
    cluster.wait_replicated(new, 1)
    assert client.get_node_from_key(keys.log(game_id)).port == old  # the client's map is stale
    done = play(games, game_id, "after-failover")  # MOVED from the old master, then the script and WAIT on the new one
    assert client.get_node_from_key(keys.log(game_id)).port == new
    assert cluster.reader(old).xlen(keys.log(game_id)) == done.events[-1].seq + 1  # the old master is its replica now


def test_a_shard_that_forgot_the_script_is_given_it_again(cluster, client) -> None:
    games = Games(Store(client, replication=(1, 2000)))
    game_id = games.create("holly-oak", 3, seed=12, forced_moves="ask")
    master, replica = shard_of(cluster, client, game_id)
    master.script_flush()  # as a restarted node forgets it
    done = play(games, game_id, "after-flush")
    assert replica.xlen(keys.log(game_id)) == done.events[-1].seq + 1

