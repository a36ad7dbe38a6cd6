"""The log on a Redis Cluster: games spread over every master, each game's keys in one slot, the
command path, the list and recovery working through redis-py's RedisCluster, and rq kept on a
plain Redis. The cluster is started here (.ci/run also runs the store, command path, worker and
replay tests on one: PBM_TEST_CLUSTER=1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from events import keys, server
from events.commands import Games
from events.store import Store
from tests.real_redis import redis_server
from bench.cluster import redis_cluster
from workers.dispatch import Dispatcher
from workers.recovery import recover


@pytest.fixture(scope="module")
def cluster_env() -> Iterator[dict[str, str]]:
    with redis_cluster() as cluster, redis_server() as (queue_url, _admin):
        yield {"REDIS_URL": cluster.url(), "PBM_REDIS_CLUSTER": "1", "PBM_QUEUE_URL": queue_url}


@pytest.fixture
def on_cluster(cluster_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in cluster_env.items():
        monkeypatch.setenv(name, value)
    return cluster_env


def test_games_land_on_every_master_with_each_game_in_one_slot(on_cluster) -> None:
    client = server.connect()
    assert isinstance(client, redis.RedisCluster)
    games = Games(Store(client))
    made = [games.create("holly-oak", 3, seed=seed, bots={0: "random"}) for seed in range(24)]
    for game_id in made:
        table = games.table(game_id)
        if table.to_act[0] != 0:
            seat = table.to_act[0]
            games.submit(game_id, seat, table.legal_moves(seat)[0])
    masters = {client.get_node_from_key(keys.log(game_id)).name for game_id in made}
    assert len(masters) == 3 == len(client.get_primaries())
    for game_id in made:
        game_keys = [keys.log(game_id), keys.commands(game_id), keys.seed(game_id), keys.meta(game_id), keys.snapshot(game_id)]
        assert len({client.keyslot(key) for key in game_keys}) == 1
    listed = {info.game_id for info in Store(client).games("running")}
    assert set(made) <= listed and set(Store(client).logged_games()) >= set(made)


def test_dispatch_and_recovery_queue_on_the_plain_redis(on_cluster) -> None:
    client = server.connect()
    queues = server.connect_queues(client)
    assert not isinstance(queues, redis.RedisCluster)
    silent = Games(Store(client))  # a writer that dies before dispatching: nothing queued
    game_id = silent.create("holly-oak", 3, seed=99, bots={0: "random", 1: "random", 2: "random"})
    queued = recover(client, queues)
    assert any(job_id.startswith("pbm-turn-" + game_id) for job_id in queued)
    assert queues.exists(f"rq:job:{queued[0]}") and not list(client.scan_iter(match="rq:*"))
    people = Games(Store(client), dispatch=Dispatcher(queues)).create("holly-oak", 3, seed=7)  # nothing to queue
    assert not any(people in job_id for job_id in recover(client, queues))


def test_a_cluster_without_a_queue_redis_is_one_clear_error(on_cluster, monkeypatch) -> None:
    monkeypatch.delenv("PBM_QUEUE_URL")
    with pytest.raises(server.RedisUnavailable, match="PBM_QUEUE_URL"):
        server.connect_queues()
