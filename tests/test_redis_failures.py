"""Every way Redis fails gives one line naming it and writes nothing partial. Each test starts a
real redis-server configured that way (tests/real_redis.py) and runs pbm's commands against it."""

from __future__ import annotations

import http.server
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from events import index
from events.commands import Games
from events.store import Store
from pbm.cli import main
from tests.real_redis import HangUpRelay, free_port, pbm_keys, redis_server

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def run(url: str, *args: str, home: Path):
    result = CliRunner().invoke(main, list(args), env={"REDIS_URL": url, "PBM_HOME": str(home)}, catch_exceptions=False)
    return result


def refused(result, *words: str) -> str:
    """The one line a failed command printed, after checking it is one line naming `words`."""
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    """A replay file of a short game, made on a server of its own."""
    with redis_server() as (url, _admin):
        game_id = run(url, "new", "holly-oak", "--players", "3", "--seed", "5", "--forced-moves", "ask", home=tmp_path).stdout.strip()
        path = tmp_path / "game.pbmlog"
        assert run(url, "replay", "export", game_id, "-o", str(path), home=tmp_path).exit_code == 0
    return path


def writes(url: str, game_id: str, exported: Path) -> dict[str, list[str]]:
    """The writing commands, each as `pbm` would be run."""
    return {
        "new": ["new", "holly-oak", "--players", "3"],
        "play": ["play", game_id, "--as", "1", "play 1Sp"],
        "import": ["replay", "import", str(exported)],
        "worker": ["worker", "--burst"],
    }


def test_out_of_memory_is_named_and_nothing_is_written(tmp_path: Path, exported: Path) -> None:
    with redis_server("--maxmemory-policy", "noeviction") as (url, admin):
        game_id = run(url, "new", "holly-oak", "--players", "3", "--seed", "5", "--forced-moves", "ask", home=tmp_path).stdout.strip()
        admin.set("ballast", "x" * 2_000_000)
        admin.config_set("maxmemory", "1mb")
        before = pbm_keys(admin)
        for command in writes(url, game_id, exported).values():
            refused(run(url, *command, home=tmp_path), "out of memory", "nothing was written")
        assert pbm_keys(admin) == before
        assert game_id in run(url, "list", home=tmp_path).stdout  # reading still works


def test_a_read_only_replica_is_named_and_reads_still_work(tmp_path: Path, exported: Path) -> None:
    with redis_server() as (url, admin):
        game_id = run(url, "new", "holly-oak", "--players", "3", "--seed", "5", "--forced-moves", "ask", home=tmp_path).stdout.strip()
        admin.replicaof("127.0.0.1", free_port())  # a primary that is not there: it keeps its data, read-only
        before = pbm_keys(admin)
        for command in writes(url, game_id, exported).values():
            refused(run(url, *command, home=tmp_path), "read-only replica")
        assert pbm_keys(admin) == before
        assert "waiting for seat 1" in run(url, "list", home=tmp_path).stdout


def test_a_database_the_server_does_not_have_is_named(tmp_path: Path) -> None:
    with redis_server() as (url, admin):
        for command in (["list"], ["new", "holly-oak", "--players", "3"], ["worker", "--burst"]):
            refused(run(url.replace("/0", "/99"), *command, home=tmp_path), "no such database")
        worker = pbm_process(url.replace("/0", "/99"), tmp_path, "worker", "--burst")
        _out, err = worker.communicate(timeout=60)
        assert worker.returncode == 1 and len(err.strip().splitlines()) == 1 and "no such database" in err, err
        assert pbm_keys(admin) == {}


def test_a_password_is_read_from_the_url_and_never_printed(tmp_path: Path) -> None:
    with redis_server(password="s3cret-pw") as (url, admin):
        without = url.replace(":s3cret-pw@", "")
        wrong = url.replace("s3cret-pw", "not-it")
        for command in (["list"], ["new", "holly-oak", "--players", "3"], ["worker", "--burst"]):
            refused(run(without, *command, home=tmp_path), "requires a password")
            line = refused(run(wrong, *command, home=tmp_path), "refused the user name or password")
            assert "not-it" not in line and ":***@" in line
        assert pbm_keys(admin) == {}
        game_id = run(url, "new", "holly-oak", "--players", "3", home=tmp_path).stdout.strip()
        assert admin.exists(f"pbm:{{{game_id}}}:log")
        status = run(url, "server", "status", home=tmp_path).stdout
        assert "s3cret-pw" not in status and ":***@127.0.0.1" in status


def test_a_url_that_is_not_redis_is_named(tmp_path: Path) -> None:
    refused(run("http://127.0.0.1:1/", "list", home=tmp_path), "REDIS_URL must start with redis://")
    refused(run("redis://127.0.0.1:notaport/0", "list", home=tmp_path), "is not a Redis URL")
    refused(run(f"redis://127.0.0.1:{free_port()}/0", "list", home=tmp_path), "cannot reach", "Connection refused")
    with http_server() as port:
        refused(run(f"redis://127.0.0.1:{port}/0", "list", home=tmp_path), "does not answer in the Redis protocol")


class QuietHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def http_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def log_length(admin: redis.Redis, game_id: str) -> int:
    return admin.xlen(f"pbm:{{{game_id}}}:log")


def test_a_move_whose_reply_is_lost_is_played_once(tmp_path: Path) -> None:
    """redis-py sends a command again when the connection drops before its reply: the append
    recognises itself instead of failing as a conflict (or playing twice)."""
    with redis_server() as (url, admin):
        relay = HangUpRelay(admin.connection_pool.connection_kwargs["port"])
        game_id = run(url, "new", "holly-oak", "--players", "3", "--seed", "5", "--forced-moves", "ask", home=tmp_path).stdout.strip()
        before = log_length(admin, game_id)
        relay.arm(b"EVALSHA")
        played = run(relay.url(), "play", game_id, "--as", "1", "play 1Sp", home=tmp_path)
        assert played.exit_code == 0, played.output
        assert relay.hung_up == 1 and log_length(admin, game_id) == before + 1
        relay.close()


def test_a_create_whose_reply_is_lost_makes_one_game(tmp_path: Path) -> None:
    with redis_server() as (url, admin):
        relay = HangUpRelay(admin.connection_pool.connection_kwargs["port"])
        relay.arm(b"EVALSHA")
        created = run(relay.url(), "new", "holly-oak", "--players", "3", home=tmp_path)
        assert created.exit_code == 0, created.output
        assert relay.hung_up == 1
        assert [game.game_id for game in Store(admin).games()] == [created.stdout.strip()]
        relay.close()


def test_a_connection_lost_for_good_mid_command_is_one_line_and_all_or_nothing(tmp_path: Path) -> None:
    with redis_server() as (url, admin):
        relay = HangUpRelay(admin.connection_pool.connection_kwargs["port"])
        game_id = run(url, "new", "holly-oak", "--players", "3", "--seed", "5", "--forced-moves", "ask", home=tmp_path).stdout.strip()
        before = log_length(admin, game_id)
        relay.arm(b"EVALSHA", stay_down=True)
        refused(run(relay.url(), "play", game_id, "--as", "1", "play 1Sp", home=tmp_path), "cannot reach", "Connection refused")
        assert relay.hung_up == 1
        assert log_length(admin, game_id) == before + 1  # the server had done it: whole
        assert Games(Store(admin)).table(game_id).to_act == (2,)


def test_a_failed_create_leaves_no_listed_id(tmp_path: Path) -> None:
    """The game list is written before the game's own keys (another hash slot); when the game's
    script fails, its id is taken off the list again."""
    with redis_server("--maxmemory-policy", "noeviction") as (url, admin):
        store = Store(admin)
        games = Games(store)
        admin.set("ballast", "x" * 2_000_000)
        used = admin.info("memory")["used_memory"]
        # Room for the list entry, none for a game: ZADD passes the check, the script does not.
        admin.config_set("maxmemory", str(used + 200))
        with pytest.raises(redis.OutOfMemoryError):  # in the index's pipeline or the script
            games.create("holly-oak", 3, seed=5, game_id="tight")
        assert all(admin.zscore(key, "tight") is None for key in index.ALL) and store.games() == []


def pbm_process(url: str, home: Path, *args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | {"REDIS_URL": url, "PBM_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-m", "pbm", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(condition, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_worker_whose_redis_runs_out_of_memory_mid_job_ends_with_one_line(tmp_path: Path) -> None:
    with redis_server("--maxmemory-policy", "noeviction") as (url, admin):
        bots = [f"--bot={seat}=ismcts:3s" for seat in range(3)]
        game_id = run(url, "new", "holly-oak", "--players", "3", "--seed", "5", *bots, home=tmp_path).stdout.strip()
        worker = pbm_process(url, tmp_path, "worker", "--no-recover")
        try:
            # The first two moves are forced, played at once (the 1Sp lead, then seat 2's only
            # Spring card: waiting for the first alone let the second land after `before`); seat 0
            # then thinks for three seconds.
            wait_until(lambda: log_length(admin, game_id) > 4 and admin.zcard("rq:wip:pbm-ai"))
            before = log_length(admin, game_id)
            admin.set("ballast", "x" * 2_000_000)
            admin.config_set("maxmemory", "1mb")
            _out, err = worker.communicate(timeout=60)
        finally:
            worker.kill()
        assert worker.returncode == 1, err
        assert "Traceback" not in err
        assert "out of memory" in err.strip().splitlines()[-1]
        assert all("Redis at" not in line or "out of memory" in line for line in err.splitlines())
        assert log_length(admin, game_id) == before


def test_a_worker_that_loses_its_redis_says_so_in_one_line_per_try(tmp_path: Path) -> None:
    with redis_server() as (url, admin):
        worker = pbm_process(url, tmp_path, "worker", "--no-recover")
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(worker.stderr), daemon=True)
        reader.start()
        try:
            # At work: idle in its loop (a loss while it starts: the test below).
            at_work = lambda: any(admin.hget(name, "state") == b"idle" for name in admin.smembers("rq:workers"))
            wait_until(at_work, timeout=60)
            admin.shutdown(nosave=True)
            try:
                wait_until(lambda: any("could not connect to Redis" in line for line in lines), timeout=60)
            except AssertionError:
                raise AssertionError(f"no retry line in 60 s; exit code {worker.poll()}; the worker wrote: {lines[-12:]}") from None
        finally:
            worker.terminate()
            worker.wait(timeout=30)
            reader.join(timeout=10)
    assert not any("Traceback" in line for line in lines)
    lost = [line for line in lines if "could not connect to Redis" in line]
    assert all("cannot reach Redis at" in line or "lost the connection" in line for line in lost), lines


@pytest.mark.parametrize(
    "step",
    [
        lambda worker: worker.run_maintenance_tasks(),
        lambda worker: worker.check_for_suspension(False),
        lambda worker: worker.dequeue_job_and_maintain_ttl(1),  # marks the worker idle first
    ],
    ids=["maintenance", "suspension check", "dequeue"],
)
def test_a_worker_waits_out_a_lost_redis_in_every_step_of_its_loop(step) -> None:
    """rq itself waits for a lost Redis only inside its dequeue loop; anywhere else in its loop the
    worker ended, so surviving a Redis restart depended on the moment it happened."""
    from rq.exceptions import StopRequested

    from workers.worker import make_worker

    with redis_server() as (url, admin):
        worker = make_worker(redis.Redis.from_url(url), recovering=False)
        lines: list[str] = []
        collect = logging.Handler()
        collect.emit = lambda record: lines.append(record.getMessage())
        worker.log.addHandler(collect)
        ended: list[BaseException | None] = []

        def run_step() -> None:
            try:
                step(worker)
                ended.append(None)
            except BaseException as error:  # noqa: BLE001 - the test reports what ended the step
                ended.append(error)

        admin.shutdown(nosave=True)
        thread = threading.Thread(target=run_step, daemon=True)
        thread.start()
        try:
            wait_until(lambda: len(lines) >= 2 or ended, timeout=30)  # two tries, one line each
        finally:
            worker._stop_requested = True
            thread.join(timeout=30)
            worker.log.removeHandler(collect)
    # It ended on the stop request only (the suspension check just returns to rq's loop, which stops).
    assert len(ended) == 1 and (ended[0] is None or isinstance(ended[0], StopRequested)), ended
    assert lines and all("could not connect to Redis: cannot reach" in line and "refused" in line for line in lines), lines


@pytest.mark.parametrize(
    ("marker", "step"),
    [
        (b"PING", "first_ping"),  # a worker started during a failover, or still importing when it began
        (b"SETNAME", "_set_ip_address"),  # rq's __init__ names its connection: where workers ended at a Sentinel failover
        (b"pbm:recovery-lock", "_recover_at_start"),
        (b"rq:workers", "register_birth"),  # its transaction done, the reply lost: the name is then taken
        (b"SUBSCRIBE", "set_state"),  # its command listener's, then marking itself started finds Redis gone
        (b"rq:execution:", "prepare_execution"),  # a job's start, written and not heard of
        (b":dependents", "handle_job_success"),  # a job's end, after its move was played
    ],
    ids=["its first ping", "naming its connection", "recovery at start", "registering", "subscribing", "starting a job", "ending a job"],
)
def test_a_worker_waits_out_a_redis_lost_at_each_step_and_plays_on(tmp_path: Path, marker: bytes, step: str) -> None:
    """Redis goes away at exactly one step of a `pbm worker` (a relay passes the step's command to
    Redis, hangs up before the reply and refuses every connection until the test lets them in
    again): the worker waits, says in one line which step lost Redis, and plays the bots' game to
    its end once Redis is back, each move once."""
    from bench.chaos import double_moves
    from replays.log import from_store
    from replays.verify import verify
    from workers.dispatch import Dispatcher

    with redis_server() as (url, admin):
        store = Store(admin)
        game_id = Games(store, dispatch=Dispatcher(admin)).create("holly-oak", 3, seed=5, bots=dict.fromkeys(range(3), "random"))
        relay = HangUpRelay(admin.connection_pool.connection_kwargs["port"])
        relay.arm(marker, stay_down=True)
        worker = pbm_process(relay.url(), tmp_path, "worker")
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(worker.stderr), daemon=True)
        reader.start()
        try:
            lost = lambda: [line for line in lines if f"{step} (" in line.partition("[in ")[2]]  # the step it names
            wait_until(lambda: relay.hung_up and lost() or worker.poll() is not None, timeout=120)
            assert worker.poll() is None, f"the worker ended: {lines[-5:]}"
            relay.reopen()
            wait_until(lambda: store.info(game_id).finished or worker.poll() is not None, timeout=240)
            assert worker.poll() is None, f"the worker ended: {lines[-5:]}"
        finally:
            worker.terminate()
            worker.wait(timeout=30)
            reader.join(timeout=10)
            relay.close()
        assert worker.returncode == 0 and not any("Traceback" in line for line in lines), lines[-20:]
        assert "cannot reach Redis at" in lost()[0] and "Connection refused" in lost()[0], lost()
        assert double_moves(store, game_id) == 0 and verify(from_store(store, game_id), seed=store.seed(game_id)).ok
