"""A Redis Cluster that fails is a 503 with one line, like a lost Redis, not a 500: redis-py's
Cluster client raises its own errors (RedisClusterException: "cannot be connected", a slot no node
covers) that are not RedisErrors. Provoked for real on a local cluster (bench/cluster.py) under a
running app: every node SIGKILLed, the game's master SIGKILLed with no replica to promote, the
game's slot served by no node; and under the CLI."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
from click.testing import CliRunner
from fastapi.testclient import TestClient
from redis.exceptions import RedisClusterException
from rq import Queue

from bench.cluster import Cluster, redis_cluster
from events import keys
from events.commands import Games
from events.seats import Seats
from events.store import Store
from pbm.cli import main
from pbm.web import create_app
from pbm.web.errors import UNAVAILABLE
from tests.web.conftest import ADMIN


def lose(cluster: Cluster, client: redis.RedisCluster, game_id: str, how: str) -> None:
    """The cluster fails under `client`: every node killed (RedisClusterException: "cannot be
    connected"), the game's master killed and no replica to take over (ConnectionError, and
    "the cluster is down" once the other masters have marked it failing), or the game's slot taken
    from its master (ClusterDownError: "Hash slot not served")."""
    master = client.get_node_from_key(keys.log(game_id)).port
    if how == "every node":
        for port in cluster.masters():
            cluster.kill(port)
    elif how == "its master":
        cluster.kill(master)
    else:
        cluster.client(master).execute_command("CLUSTER", "DELSLOTS", client.keyslot(keys.log(game_id)))


@contextmanager
def failing(how: str) -> Iterator[tuple[str, redis.RedisCluster, str, str]]:
    """A cluster with a game and its seat 0's token, then failing `how`: (its REDIS_URL, a client
    connected before, the game, the token)."""
    with redis_cluster(masters=3, replicas=0) as cluster:
        url = cluster.url()
        client = redis.RedisCluster.from_url(url)
        games = Games(Store(client))
        game_id = games.create("holly-oak", 3, seed=1, forced_moves="ask")
        token = Seats(client).issue(game_id, 0)
        lose(cluster, client, game_id, how)
        try:
            yield url, client, game_id, token
        finally:
            client.close()


@pytest.fixture
def killed() -> Iterator[tuple[str, redis.RedisCluster, str, str]]:
    with failing("every node") as failed:
        yield failed


def test_the_cluster_clients_own_errors_are_not_redis_errors() -> None:
    # Why this module exists: were it a RedisError, the app's handler of those would answer it.
    assert not issubclass(RedisClusterException, redis.RedisError)


@pytest.mark.parametrize(("how", "raised", "said"), [
    ("every node", RedisClusterException, "Redis Cluster cannot be connected"),
    # Once the other masters mark the killed one failing (cluster-node-timeout), they answer for
    # it that the cluster is down: the same outage, told by another node (seen in a CI run).
    ("its master", redis.ConnectionError, "Connection refused|The cluster is down"),
    ("its slot", redis.exceptions.ClusterDownError, "Hash slot not served|The cluster is down"),  # the latter once its node says so
])
def test_a_failing_cluster_is_a_503_with_one_line(how: str, raised: type[Exception], said: str, caplog) -> None:
    with failing(how) as (_url, client, game_id, token):
        with pytest.raises(raised, match=said):  # what the routes below meet
            client.get(keys.log(game_id))
        answered(client, game_id, token, said, caplog)


def answered(client: redis.RedisCluster, game_id: str, token: str, said: str, caplog) -> None:
    app = create_app(client, games=Games(Store(client)), admin_token=ADMIN)
    with TestClient(app) as http, caplog.at_level(logging.ERROR, logger="pbm.web"):
        answers = [
            http.get("/api/me", headers={"Authorization": f"Bearer {token}"}),
            http.post("/api/me/moves", json={"move": "pass"}, headers={"Authorization": f"Bearer {token}"}),
            http.get("/api/games", headers={"Authorization": f"Bearer {ADMIN}"}),
            http.get(f"/api/games/{game_id}", headers={"Authorization": f"Bearer {ADMIN}"}),
        ]
    for answer in answers:
        assert answer.status_code == 503, (answer.request.url, answer.text)
        assert answer.json() == {"error": UNAVAILABLE} and answer.headers["Retry-After"] == "5"
    logged = [record.getMessage() for record in caplog.records if record.name == "pbm.web"]
    assert logged and all("\n" not in line and re.search(said, line) for line in logged), logged
    assert all(token not in line for line in logged)


def test_the_cli_on_a_cluster_with_no_node_left_says_so_in_one_line(killed, tmp_path) -> None:
    url, _client, _game_id, _token = killed
    result = CliRunner().invoke(main, ["list"], env={"REDIS_URL": url, "PBM_REDIS_CLUSTER": "1", "PBM_HOME": str(tmp_path)})
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "Redis Cluster cannot be connected" in lines[0] and url in lines[0], lines


def test_a_worker_on_a_cluster_that_fails_says_so_in_one_line(tmp_path) -> None:
    """Started on a cluster with no node left, `pbm worker` exits with the one line; running when
    it fails, each job that meets it is one line in its log, and the worker goes on."""
    from rq import Worker

    from workers.dispatch import AI_QUEUE, Dispatcher, Work

    with redis_cluster(masters=3, replicas=0) as cluster:
        queues = redis.Redis.from_url(cluster.start_queues())  # rq's Redis stays up: only the log's cluster fails
        env = {**os.environ, **cluster.env(), "PBM_HOME": str(tmp_path)}
        worker = subprocess.Popen([sys.executable, "-m", "pbm", "worker"], env=env, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 120
            while not Worker.all(connection=queues):
                assert time.monotonic() < deadline and worker.poll() is None, "the worker never started"
                time.sleep(0.05)
            for port in cluster.masters():
                cluster.kill(port)
            Dispatcher(queues).enqueue(Work(AI_QUEUE, "workers.jobs.take_turn", ("a-game", 0, 0), "pbm-turn-a-game-0-0"))
            while Queue(AI_QUEUE, connection=queues).failed_job_registry.count == 0:
                assert time.monotonic() < deadline and worker.poll() is None, "the job never failed"
                time.sleep(0.05)
            assert worker.poll() is None  # it goes on
        finally:
            worker.terminate()
            _, running_log = worker.communicate(timeout=60)
        started = subprocess.run([sys.executable, "-m", "pbm", "worker", "--burst"], env=env, capture_output=True, text=True, timeout=120)
    failed = [line for line in running_log.splitlines() if "job pbm-turn-a-game-0-0" in line]
    assert failed and all("Redis Cluster cannot be connected" in line for line in failed), running_log
    assert "Traceback" not in running_log
    assert started.returncode == 1 and len(started.stderr.strip().splitlines()) == 1, started.stderr
    assert "Redis Cluster cannot be connected" in started.stderr
