"""Chaos: the log and the workers under racing writer processes, one command sent by many at once,
Redis SIGKILLed under acknowledged appends, workers SIGKILLed while bot-only games run, mutated
replay files and move texts, and a Sentinel failover under writers through `pbm serve` and under
workers (bench/failover.py). Prints figures; asserts nothing. tests/reliability runs the same
scenarios, smaller, and asserts on their figures.

    python bench/chaos.py [--writers 16] [--attempts 400] [--senders 16] [--rounds 20]
                          [--redis-kills 20] [--policies everysec,always,no] [--held-kills 10]
                          [--worker-games 20] [--workers 3] [--mutations 20000]
                          [--failovers 3] [--only-failovers] [--cluster]

On the embedded Redis by default (a fresh one, deleted at the end); with REDIS_URL set, the writer
and worker scenarios run on that server (every pbm and rq key there is deleted at the end, as the
tests do). Redis is killed only on servers this script starts itself, one per fsync policy.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq.worker import Worker

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from bench import serving  # noqa: E402
from events import keys  # noqa: E402
from events.commands import Games, UnknownGame  # noqa: E402
from events.envelope import decode  # noqa: E402
from events.server import EmbeddedRedis  # noqa: E402
from events.store import Conflict, Store  # noqa: E402
from replays import archive  # noqa: E402
from replays.log import BadLog, Log, from_store  # noqa: E402
from replays.verify import verify  # noqa: E402
from workers.dispatch import Dispatcher  # noqa: E402

FORK = multiprocessing.get_context("fork")  # writers start at once and share a barrier by inheritance
DOWN = (redis.ConnectionError, redis.TimeoutError)  # what a client sees while Redis is dead or loading


def connect_to(env: dict[str, str]) -> redis.Redis:
    """The Redis that `pbm` run with `env` (PBM_HOME, maybe REDIS_URL) uses."""
    url = env.get("REDIS_URL")
    return redis.Redis.from_url(url) if url else EmbeddedRedis(Path(env["PBM_HOME"])).client()


def in_processes(target: Callable[..., Any], count: int, *args: Any, meanwhile: Callable[[], Any] | None = None) -> tuple[list[Any], Any]:
    """target(index, barrier, *args) in `count` forked processes that pass the barrier together;
    `meanwhile()` runs here while they work. Returns their results in order, and meanwhile's."""
    results = FORK.Queue()
    barrier = FORK.Barrier(count)
    processes = [FORK.Process(target=_child, args=(results, target, index, barrier, *args)) for index in range(count)]
    for process in processes:
        process.start()
    during = meanwhile() if meanwhile else None
    answers = dict(results.get(timeout=600) for _ in processes)
    for process in processes:
        process.join()
    failed = [answer for answer in answers.values() if isinstance(answer, str)]
    if failed:
        raise RuntimeError(f"{len(failed)} of {count} processes failed; the first: {failed[0]}")
    return [answers[index] for index in range(count)], during


def _child(results, target, index, barrier, *args) -> None:
    try:
        results.put((index, target(index, barrier, *args)))
    except BaseException as error:  # the parent raises it; a child must always answer
        results.put((index, f"{type(error).__name__}: {error}"))


def commands_in_log(store: Store, game_ids: list[str]) -> Counter:
    """The writers' commands in the logs. Not the moves the command path played for a seat itself
    (an origin: a forced move), which no writer sent and none is acknowledged for."""
    return Counter((game_id, entry.command_id) for game_id in game_ids for entry in store.read(game_id) if entry.command_id and entry.origin is None)


def verified(store: Store, game_ids: list[str]) -> int:
    """How many of the games pass every check of `pbm replay verify` (the seed given, as a referee would)."""
    return sum(verify(from_store(store, game_id), seed=store.seed(game_id)).ok for game_id in game_ids)


def tally(store: Store, game_ids: list[str], acknowledged: list[tuple[str, str]]) -> dict[str, int]:
    """Acknowledged commands against the log: lost (acknowledged, not logged), duplicated (logged
    twice), unacknowledged (logged, never acknowledged: when Redis dies between writing a command
    and answering it, the writer sees an error, then finds its command in the log) and the games
    that verify."""
    logged = commands_in_log(store, game_ids)
    acked = set(acknowledged)
    return {
        "acknowledged": len(acknowledged),
        "logged": sum(logged.values()),
        "lost": len(acked - set(logged)),
        "duplicated": sum(count - 1 for count in logged.values()) + len(acknowledged) - len(acked),
        "unacknowledged": len(set(logged) - acked),
        "games": len(game_ids),
        "verified": verified(store, game_ids),
    }


# -- racing writers ---------------------------------------------------------------------------


def racing_writers(env: dict[str, str], games: int, processes: int, attempts: int) -> dict[str, Any]:
    """`processes` writers, each making up to `attempts` random moves over `games` 4-player Holly Oak
    games (taking them in turn), half with an expected seq; every game checked and verified after."""
    store = Store(connect_to(env))
    maker = Games(store)
    game_ids = [maker.create("holly-oak", 4, seed=7_000 + n) for n in range(games)]
    started = time.perf_counter()
    results, _ = in_processes(_race, processes, env, game_ids, attempts)
    figures = tally(store, game_ids, [tuple(done) for result in results for done in result["accepted"]])
    figures.update(
        writers=processes,
        attempts=sum(r["attempts"] for r in results),
        refused=sum(r["refused"] for r in results),
        conflicts=sum(r["conflicts"] for r in results),
        finished=sum(Games(store).table(game_id).outcome is not None for game_id in game_ids),
        seconds=round(time.perf_counter() - started, 1),
    )
    return figures


def _race(index: int, barrier, env: dict[str, str], game_ids: list[str], attempts: int) -> dict[str, Any]:
    games = Games(Store(connect_to(env)))  # a process of its own: its own connection and cache
    pick = random.Random(index)
    accepted, refused, conflicts, tried = [], 0, 0, 0
    over: set[str] = set()
    barrier.wait()
    for turn in range(attempts):
        game_id = game_ids[(index + turn) % len(game_ids)]
        if len(over) == len(game_ids):
            break
        table = games.table(game_id)
        if not table.to_act:
            over.add(game_id)
            continue
        seat = pick.choice(table.to_act)
        command_id = f"w{index}-{turn}"
        tried += 1
        try:
            games.submit(game_id, seat, pick.choice(table.legal_moves(seat)), command_id=command_id, expected_seq=table.seq if turn % 2 else None)
        except core.IllegalMove:
            refused += 1  # the race moved the game on: the move went stale, nothing appended
        except Conflict:
            conflicts += 1
        else:
            accepted.append((game_id, command_id))
    return {"accepted": accepted, "attempts": tried, "refused": refused, "conflicts": conflicts}


# -- one command from many --------------------------------------------------------------------


def one_command(env: dict[str, str], senders: int, rounds: int) -> dict[str, Any]:
    """In each round, `senders` processes send the same command (same id) at once."""
    store = Store(connect_to(env))
    games = Games(store)
    game_id = games.create("holly-oak", 3, seed=9)
    appended, logged, answers = 0, 0, set()
    for round_ in range(rounds):
        table = games.table(game_id)
        seat = table.to_act[0]
        command_id = uuid.uuid4().hex
        results, _ = in_processes(_send, senders, env, game_id, seat, table.legal_moves(seat)[0], command_id)
        appended += sum(not duplicate for duplicate, _ in results)
        answers.add(len({hashes for _, hashes in results}))
        logged += sum(entry.command_id == command_id for entry in store.read(game_id))
    return {
        "rounds": rounds,
        "senders": senders,
        "appended": appended,  # one per round: the others were answered as duplicates
        "logged": logged,  # one per round
        "distinct_answers": max(answers),  # 1: every sender got the same events back
        "verified": verified(store, [game_id]),
    }


def _send(index: int, barrier, env: dict[str, str], game_id: str, seat: int, move: str, command_id: str) -> tuple[bool, tuple[str, ...]]:
    games = Games(Store(connect_to(env)))
    barrier.wait()
    submitted = games.submit(game_id, seat, move, command_id=command_id)
    return submitted.duplicate, tuple(entry.hash.hex() for entry in submitted.events)


# -- Redis killed under acknowledged appends --------------------------------------------------


class PolicyRedis(EmbeddedRedis):
    """pbm's embedded server with another appendfsync policy (pbm's own is everysec)."""

    def __init__(self, directory: Path, fsync: str) -> None:
        super().__init__(directory)
        self.fsync = fsync

    def _config_text(self) -> str:
        text = super()._config_text()
        assert "appendfsync everysec" in text
        return text.replace("appendfsync everysec", f"appendfsync {self.fsync}")


def kill(server: EmbeddedRedis) -> None:
    """SIGKILL the server and wait until its process is gone."""
    pid = server.pid()
    os.kill(pid, signal.SIGKILL)
    stat = Path(f"/proc/{pid}/stat")
    while True:  # a dead daemon stays a zombie until init reaps it: dead is enough
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return
        except (FileNotFoundError, ProcessLookupError):
            return
        time.sleep(0.005)


# How long Redis may hold an acknowledged write unwritten under appendfsync everysec: while the
# background fsync of the second before is still running, it postpones its write(2) of the AOF
# buffer (and still answers the commands in it) for up to 2 s, counted in whole seconds of its
# clock, so up to 3 s. A SIGKILL then loses what it held; under `always` and `no` it writes before
# it answers, and loses nothing acknowledged.
HELD_S = {"everysec": 3.0, "always": 0.0, "no": 0.0}


def redis_kills(kills: int, writers: int = 4, fsync: str = "everysec", gap_s: tuple[float, float] = (0.2, 0.6)) -> dict[str, Any]:
    """`writers` processes play 3-player Holly Oak games move after move on a server of their own,
    which is SIGKILLed `kills` times (and started again at once). Every acknowledged move must be
    in the log afterwards, once, except (under everysec) one acknowledged within HELD_S before a
    kill: "lost_outside_window" counts the others, and must be 0. A game whose create was lost so
    is "vanished"; the writers play on whatever Redis lost (a Conflict, a game gone)."""
    server = PolicyRedis(Path(tempfile.mkdtemp(prefix="pbm-chaos-kill-")), fsync)
    server.start()
    stop = FORK.Event()
    downtimes: list[float] = []
    killed_at: list[float] = []

    def killing() -> float:
        chooser = random.Random(kills)
        started = time.perf_counter()
        for _ in range(kills):
            time.sleep(chooser.uniform(*gap_s))
            down = time.perf_counter()
            killed_at.append(time.monotonic())  # the writers' clock too (CLOCK_MONOTONIC, system-wide)
            kill(server)
            server.start()
            downtimes.append(time.perf_counter() - down)
        time.sleep(gap_s[0])
        stop.set()
        return time.perf_counter() - started

    try:
        results, seconds = in_processes(_append_through_kills, writers, str(server.socket), stop, meanwhile=killing)
        store = Store(server.client())
        vanished = {game_id for result in results for game_id in result["vanished"]}
        game_ids = [game_id for result in results for game_id in result["games"] if game_id not in vanished]
        acked = [done for result in results for done in result["acked"]]
        lost, first_acked = lost_moves(store, game_ids, acked)
        # Each command once: one acknowledged twice was lost, then played again (its command id is
        # made from its seq, so the writer sends it again once the log is back there). A vanished
        # game's acknowledged moves count as lost.
        figures = tally(store, game_ids, sorted(first_acked))
        figures.update(
            missing=figures["lost"],  # acknowledged and not in the log now
            lost=len(lost),  # and those played again since
            # What a loss needs to be explained: each lost command's acknowledgement against the
            # kills, and what Redis's log says it cut off its append-only file at each restart.
            lost_detail=[lost_when(done, first_acked[done], killed_at, vanished) for done in sorted(lost, key=first_acked.get)][:10],
            aof_repairs=aof_repairs(server.directory / "redis.log"),
            fsync=fsync,
            kills=kills,
            writers=writers,
            games=len(game_ids),
            vanished=len(vanished),
            lost_outside_window=sum(not held_when_killed(first_acked[done], killed_at, HELD_S[fsync]) for done in lost),
            errors=sum(result["errors"] for result in results),  # attempts answered by an error: unacknowledged
            conflicts=sum(result["conflicts"] for result in results),  # moves refused on a log that lost writes
            mean_downtime_ms=round(1000 * sum(downtimes) / max(len(downtimes), 1), 1),
            acked_per_s=round(len(set(acked)) / seconds, 1),
        )
        return figures
    finally:
        server.stop()
        shutil.rmtree(server.directory, ignore_errors=True)


def lost_moves(store: Store, game_ids: list[str], acked: list[tuple[str, str, float]]) -> tuple[set[tuple[str, str]], dict[tuple[str, str], float]]:
    """The acknowledged commands Redis lost: not in the log, or acknowledged twice (lost, then
    sent again); and when each command was first acknowledged."""
    first_acked: dict[tuple[str, str], float] = {}
    for game_id, command_id, at in acked:
        first_acked[game_id, command_id] = min(at, first_acked.get((game_id, command_id), at))
    times = Counter((game_id, command_id) for game_id, command_id, _at in acked)
    logged = commands_in_log(store, game_ids)
    return {done for done, count in times.items() if count > 1 or done not in logged}, first_acked


def lost_when(done: tuple[str, str], acked: float, killed_at: list[float], vanished: set[str]) -> str:
    """One lost command, for a failure's message: its game and command id, and how long before the
    next kill it was acknowledged."""
    game_id, command_id = done
    after = [(number, kill) for number, kill in enumerate(killed_at, 1) if kill >= acked]
    when = f"{1000 * (after[0][1] - acked):.0f} ms before kill {after[0][0]}" if after else "after the last kill"
    return f"{command_id}: acknowledged {when}" + (" (its game vanished)" if game_id in vanished else "")


def aof_repairs(log: Path) -> list[str]:
    """What a restarted Redis cut off its append-only file (a command half written when it was
    killed, or a transaction without its EXEC): its own log's lines saying so."""
    said = ("Truncating the AOF", "Revert incomplete MULTI", "short read")
    try:
        return [line.strip() for line in log.read_text(errors="replace").splitlines() if any(word in line for word in said)][:20]
    except OSError:
        return []


def held_when_killed(acked: float, killed_at: list[float], held_s: float) -> bool:
    """Whether a write acknowledged at `acked` was within `held_s` of the next kill after it (slack
    for the clocks' reading on either side: 0.1 s)."""
    after = [kill for kill in killed_at if kill >= acked - 0.1]
    return bool(after) and after[0] - acked <= held_s + 0.1


def _append_through_kills(index: int, barrier, socket_path: str, stop) -> dict[str, Any]:
    # No retries of our own in redis-py: an error is an unacknowledged attempt, tried again here
    # (with the same command id when the log shows it did not land).
    client = redis.Redis(unix_socket_path=socket_path, socket_timeout=5, retry=Retry(NoBackoff(), 0))
    games = Games(Store(client))
    acked: list[tuple[str, str, float]] = []
    made: list[str] = []
    vanished: list[str] = []
    errors = conflicts = 0
    game_id = None
    barrier.wait()
    while not stop.is_set():
        try:
            if game_id is None:
                # Never an id used before: a game whose create Redis lost is not made again under
                # its id, where its lost moves would be found as if they had been kept.
                fresh = f"chaos-kill-{index}-{len(made) + len(vanished)}"
                try:
                    games.create("holly-oak", 3, seed=len(made) + len(vanished) + 1, game_id=fresh)
                except Conflict:
                    pass  # our own create landed, unacknowledged, just before the server died
                made.append(fresh)
                game_id = fresh
            table = games.table(game_id)
            if not table.to_act:
                game_id = None
                continue
            seat = table.to_act[0]
            moves = table.legal_moves(seat)
            command_id = f"{game_id}-{table.seq}"
            games.submit(game_id, seat, moves[random.Random(command_id).randrange(len(moves))], command_id=command_id, expected_seq=table.seq)
            acked.append((game_id, command_id, time.monotonic()))
        except DOWN:
            errors += 1
            time.sleep(0.01)
        except Conflict:
            conflicts += 1  # the log lost moves this writer had acknowledged: play on from it
        except UnknownGame:
            made.remove(game_id)  # its create was lost: the game is gone, and its moves with it
            vanished.append(game_id)
            game_id = None
    return {"acked": acked, "games": made, "vanished": vanished, "errors": errors, "conflicts": conflicts}


def killed_while_holding(kills: int = 4) -> dict[str, Any]:
    """Redis under appendfsync everysec, SIGKILLed `kills` times at a moment it holds acknowledged
    writes it has not written (INFO: its background fsync pending, and more than two moves' worth
    in its AOF buffer: one writer has at most one move in flight), while one writer plays through
    the command path. What Redis held is lost; the writer must play on from the log as Redis kept
    it, not from the tables it had folded ahead of it (it stalled on "is at seq N, not M")."""
    import threading

    server = PolicyRedis(Path(tempfile.mkdtemp(prefix="pbm-chaos-held-")), "everysec")
    server.start()
    try:
        admin = server.client()
        size = lambda: admin.info("persistence")["aof_current_size"]  # noqa: E731
        warm = Games(Store(admin))
        game_id = warm.create("holly-oak", 3, seed=99)
        before = size()
        for _ in range(20):
            table = warm.table(game_id)
            warm.submit(game_id, table.to_act[0], table.legal_moves(table.to_act[0])[0])
        time.sleep(1.5)  # anything held is written by now
        move_bytes = (size() - before) / 20
        stop = threading.Event()
        result: dict[str, Any] = {}
        writer = threading.Thread(target=lambda: result.update(_append_through_kills(0, threading.Barrier(1), str(server.socket), stop)))
        writer.start()
        killed_at: list[float] = []
        try:
            deadline = time.monotonic() + 120
            while len(killed_at) < kills and time.monotonic() < deadline:
                try:
                    held = admin.info("persistence")
                except DOWN:
                    continue
                if held["aof_pending_bio_fsync"] and held["aof_buffer_length"] > 2.5 * move_bytes:
                    killed_at.append(time.monotonic())
                    kill(server)
                    server.start()
                    time.sleep(1.0)  # the writer plays on
        finally:
            stop.set()
            writer.join(timeout=60)
        store = Store(server.client())
        lost, first_acked = lost_moves(store, result["games"], result["acked"])
        return {
            "kills": len(killed_at),
            "move_bytes": round(move_bytes),
            "acknowledged": len(first_acked),
            "lost": len(lost),
            "lost_outside_window": sum(not held_when_killed(first_acked[done], killed_at, HELD_S["everysec"]) for done in lost),
            "acknowledged_after_the_last_kill": sum(done[2] > killed_at[-1] for done in result["acked"]) if killed_at else 0,
            "conflicts": result["conflicts"],
            "vanished": len(result["vanished"]),
            "games": len(result["games"]),
            "verified": verified(store, result["games"]),
        }
    finally:
        server.stop()
        shutil.rmtree(server.directory, ignore_errors=True)


def append_rates(policies: list[str], moves: int, rounds: int = 3) -> dict[str, float]:
    """Moves per second through the command path (one writer, nothing killed) on a server per
    policy; the policies take turns, best of `rounds`, so the machine's swings fall on all alike."""
    servers = {fsync: PolicyRedis(Path(tempfile.mkdtemp(prefix=f"pbm-chaos-{fsync}-")), fsync) for fsync in policies}
    best = dict.fromkeys(policies, 0.0)
    try:
        for round_ in range(rounds):
            for fsync, server in servers.items():
                games = Games(Store(server.client()))
                played, started = 0, time.perf_counter()
                while played < moves:
                    game_id = games.create("holly-oak", 3, seed=round_ * 1000 + played)
                    table = games.table(game_id)
                    while table.to_act and played < moves:
                        seat = table.to_act[0]
                        games.submit(game_id, seat, table.legal_moves(seat)[0], expected_seq=table.seq)
                        table, played = games.table(game_id), played + 1
                best[fsync] = max(best[fsync], played / (time.perf_counter() - started))
    finally:
        for server in servers.values():
            server.stop()
            shutil.rmtree(server.directory, ignore_errors=True)
    return {fsync: round(rate) for fsync, rate in best.items()}


# -- workers killed while bot-only games run --------------------------------------------------

BOT_GAMES = (("holiday-board", 3), ("tranquility", 2), ("holidays", 2), ("holiday-board", 2))
WORKED_S = 1.0  # a worker is killed only after this long at work: a kill during its imports tests nothing


def worker_kills(
    env: dict[str, str],
    games: int,
    pool: int = 4,
    gap_s: tuple[float, float] = (0.5, 1.5),
    limit_s: float = 240,
    specs: tuple[tuple[str, int], ...] = BOT_GAMES,
    seed: int = 1,
    min_kills: int = 0,
) -> dict[str, Any]:
    """`games` bot-only games (random bots; kinds and sizes from `specs`) played by `pool` `pbm
    worker` processes, one of which (at work for WORKED_S at least) is SIGKILLed every `gap_s` and
    replaced, every other replacement with --no-recover (so the running workers' periodic recovery
    is needed too). Games finished before `min_kills` kills are followed by as many more.

    The kills come no faster than workers start on this machine now: the gap is at least the last
    start measured (spawned to registered with rq). A quiet machine starts one in about a second,
    so it still kills about every second; at a load of 20 a start took many seconds, and a kill
    every second left the pool mostly starting (20 games did not finish in 200 s), a scenario of
    its own rather than this one at a slower pace. `longest_start_s` is in the figures."""
    client = connect_to(env)
    store = Store(client)
    dispatching = Games(store, dispatch=Dispatcher(client))
    bots = {players: dict.fromkeys(range(players), "random") for _, players in specs}
    created = itertools.count()

    def new_games(count: int) -> list[str]:
        chosen = itertools.islice(itertools.cycle(specs), count)
        return [dispatching.create(slug, players, seed=seed * 1000 + next(created), bots=bots[players]) for slug, players in chosen]

    game_ids = new_games(games)
    chooser = random.Random(seed)
    spawned = itertools.count()
    running = [start_worker(env, recovering=True) for _ in range(pool)]
    spawned_at = {process.pid: time.monotonic() for process in running}
    kills = kills_while_busy = 0
    booted: dict[int, float] = {}  # pid -> when it was first seen registered with rq
    last_start_s = longest_start_s = 0.0
    watch = Watch(client, game_ids)
    started = time.monotonic()
    next_kill = started + chooser.uniform(*gap_s)
    try:
        while time.monotonic() - started < limit_s:
            if watch.poll():
                if kills >= min_kills:
                    break
                # A fast machine finished them before the kills had begun: as many again.
                watch.add(new_games(games))
            now = time.monotonic()
            if now >= next_kill or any(process.pid not in booted for process in running):
                states = {worker.pid: worker.get_state() for worker in Worker.all(connection=client)}
                for process in running:
                    if process.pid in states and process.pid not in booted:
                        booted[process.pid] = now
                        last_start_s = now - spawned_at[process.pid]
                        longest_start_s = max(longest_start_s, last_start_s)
            if now >= next_kill:
                ready = [process for process in running if now - booted.get(process.pid, now) >= WORKED_S]
                if ready:
                    victim = chooser.choice(ready)
                    running.remove(victim)
                    kills_while_busy += states.get(victim.pid) == "busy"
                    victim.send_signal(signal.SIGKILL)
                    victim.wait()
                    kills += 1
                    running.append(start_worker(env, recovering=next(spawned) % 2 == 0))
                    spawned_at[running[-1].pid] = time.monotonic()
                    next_kill = now + max(chooser.uniform(*gap_s), last_start_s)
            time.sleep(0.05)
    finally:
        for process in running:
            serving.stop(process)
    return {
        "games": len(game_ids),
        "finished": len(watch.ended),
        "summarized": len(watch.summarized),
        "bot_moves": sum(1 for game_id in game_ids for entry in store.read(game_id) if entry.command_id),
        "double_moves": sum(double_moves(store, game_id) for game_id in game_ids),
        "kills": kills,
        "kills_while_busy": kills_while_busy,
        "longest_stall_s": round(watch.longest_stall, 1),
        "longest_start_s": round(longest_start_s, 1),
        "longest_summary_wait_s": round(watch.longest_summary_wait, 1),
        "seconds": round(time.monotonic() - started, 1),
        "verified": verified(store, game_ids),
    }


class Watch:
    """The games' progress, polled: the longest stall (time a game in play went without a new
    event) and, once a game is over, the longest wait for its summary (summaries queue behind
    every bot turn: a worker serves turns first)."""

    def __init__(self, client: redis.Redis, game_ids: list[str]) -> None:
        self.client = client
        self.game_ids = game_ids
        self.last: dict[str, bytes] = {}
        self.changed = dict.fromkeys(game_ids, time.monotonic())
        self.ended: dict[str, float] = {}
        self.summarized: set[str] = set()
        self.longest_stall = self.longest_summary_wait = 0.0

    def add(self, game_ids: list[str]) -> None:
        self.game_ids.extend(game_ids)
        self.changed.update(dict.fromkeys(game_ids, time.monotonic()))

    def poll(self) -> bool:
        """Look once; True when every game is over and summarized."""
        pipe = self.client.pipeline(transaction=False)
        for game_id in self.game_ids:
            pipe.xrevrange(keys.log(game_id), count=1)
            pipe.exists(keys.summary(game_id))
        replies = pipe.execute()
        now = time.monotonic()
        for game_id, last, summarized in zip(self.game_ids, replies[::2], replies[1::2]):
            if last[0][0] != self.last.get(game_id):
                self.last[game_id], self.changed[game_id] = last[0][0], now
                if decode(last[0][1][b"e"]).kind == core.SeedRevealed.kind:
                    self.ended[game_id] = now
            if game_id not in self.ended:
                self.longest_stall = max(self.longest_stall, now - self.changed[game_id])
            elif summarized:
                self.summarized.add(game_id)
            else:
                self.longest_summary_wait = max(self.longest_summary_wait, now - self.ended[game_id])
        return len(self.summarized) == len(self.game_ids)


def start_worker(env: dict[str, str], recovering: bool) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pbm", "worker", *([] if recovering else ["--no-recover"])],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def double_moves(store: Store, game_id: str) -> int:
    """Commands in the log beyond one per command id, and bot moves not at the seq and seat their
    command id names (a stale job that played anyway)."""
    commands = [env for env in store.read(game_id) if env.command_id is not None]
    repeated = len(commands) - len({env.command_id for env in commands})
    misplaced = sum(env.command_id.startswith("bot:") and env.command_id != f"bot:{env.seq}:{env.actor}" for env in commands)
    return repeated + misplaced


# -- mutated replay files and move texts ------------------------------------------------------


def judge_replay_file(good: Log, data: bytes) -> str:
    """What the replay tools make of `data`, a mutated copy of `good`'s file: 'refused' (BadLog, a
    one-line error), 'same' (the mutation decodes to the very same log), 'unverified' (it reads, and
    verify fails it) or 'ACCEPTED' (a changed log that passes: a hole). Any other exception escapes."""
    try:
        log = archive.loads(data, "mutated.pbmlog").check_integrity()
    except BadLog as error:
        assert "\n" not in str(error)
        return "refused"
    if log.envelopes == good.envelopes:
        return "same"
    return "unverified" if not verify(log).ok else "ACCEPTED"


def mutate(data: bytes, chooser: random.Random) -> bytes:
    """One random mutation: bytes overwritten, a cut, an insertion, a slice deleted or repeated."""
    at = chooser.randrange(len(data))
    kind = chooser.randrange(5)
    if kind == 0:
        changed = bytearray(data)
        for offset in range(at, min(len(data), at + chooser.randint(1, 4))):
            changed[offset] = chooser.randrange(256)
        return bytes(changed)
    if kind == 1:
        return data[:at]
    if kind == 2:
        return data[:at] + bytes(chooser.randrange(256) for _ in range(chooser.randint(1, 8))) + data[at:]
    end = min(len(data), at + chooser.randint(1, 200))
    return data[:at] + data[end:] if kind == 3 else data[:end] + data[at:end] + data[end:]


def judge_move_text(games: Games, game_id: str, seat: int, text: str) -> str:
    """'refused' (IllegalMove, one line, nothing appended) or 'played' (the text names a legal move)."""
    table = games.table(game_id)
    try:
        games.submit(game_id, seat, text, expected_seq=table.seq)
    except core.IllegalMove as refusal:
        assert str(refusal) and "\n" not in str(refusal), repr(str(refusal))
        assert games.store.length(game_id) == table.seq
        return "refused"
    assert str(table.game.parse_move(text)) in table.legal_moves(seat), text
    return "played"


def mangle(move: str, chooser: random.Random) -> str:
    """A legal move text, changed a little: a character dropped, doubled, swapped or replaced, the
    case flipped, spaces added, or a number grown."""
    if not move:
        return move
    at = chooser.randrange(len(move))
    kind = chooser.randrange(6)
    if kind == 0:
        return move[:at] + move[at + 1 :]
    if kind == 1:
        return move[:at] + move[at] + move[at:]
    if kind == 2:
        return move[:at] + chr(chooser.choice([0, 9, 32, 45, 48, 57, 65, 97, 0x130, 0x1F600, chooser.randrange(0x20, 0x7F)])) + move[at + 1 :]
    if kind == 3:
        return move.swapcase()
    if kind == 4:
        return " " * chooser.randint(0, 2) + move.replace(" ", "  ") + " " * chooser.randint(0, 2)
    return move + str(chooser.randrange(10**6))


def fuzz_move_texts(games: Games, tries: int, seed: int = 0) -> Counter:
    """Random and mangled move texts from every seat of a game of each kind, played on the way."""
    chooser = random.Random(seed)
    outcomes: Counter = Counter()
    playing: dict[str, str] = {}
    for n in range(tries):
        slug = sorted(core.GAMES)[n % len(core.GAMES)]
        game_id = playing.get(slug)
        if game_id is None or not games.table(game_id).to_act:
            game_id = playing[slug] = games.create(slug, core.GAMES[slug].min_players, seed=n)
        table = games.table(game_id)
        seat = table.to_act[0] if chooser.random() < 0.8 else chooser.randrange(table.players)
        legal = table.legal_moves(table.to_act[0])
        text = mangle(chooser.choice(legal), chooser) if chooser.random() < 0.8 else "".join(chr(chooser.randrange(32, 0x250)) for _ in range(chooser.randint(0, 20)))
        outcomes[judge_move_text(games, game_id, seat, text)] += 1
        table = games.table(game_id)
        if table.to_act and chooser.random() < 0.3:  # move the game on, so texts meet many positions
            seat = table.to_act[0]
            games.submit(game_id, seat, chooser.choice(table.legal_moves(seat)), expected_seq=table.seq)
    return outcomes


def finished_log(store: Store, seed: int) -> Log:
    """The log of a 2-player Holidays game of random legal moves, played to its end."""
    games = Games(store)
    game_id = games.create("holidays", 2, seed=seed)
    chooser = random.Random(seed)
    table = games.table(game_id)
    while table.to_act:
        seat = table.to_act[0]
        games.submit(game_id, seat, chooser.choice(table.legal_moves(seat)))
        table = games.table(game_id)
    return from_store(store, game_id)


def fuzz_replay_files(store: Store, mutations: int, seed: int = 0) -> Counter:
    good = finished_log(store, seed)
    data = archive.dumps(good)
    chooser = random.Random(seed)
    return Counter(judge_replay_file(good, mutate(data, chooser)) for _ in range(mutations))


# -- the script -------------------------------------------------------------------------------


def show(title: str, figures: dict[str, Any]) -> None:
    print(f"{title}: " + ", ".join(f"{name} {value}" for name, value in figures.items()), flush=True)


def failovers(rounds: int, cluster: bool = False) -> None:
    """bench/failover.py's scenarios: writers through `pbm serve` and workers, on a master that a
    Sentinel failover replaces (a master, a replica and three Sentinels started for each round);
    `cluster`: the writers' alone, on a Cluster's master that the Cluster replaces (three masters
    with a replica each, started for each round)."""
    from bench import failover

    kind = "Cluster" if cluster else "Sentinel"
    with tempfile.TemporaryDirectory(prefix="pbm-chaos-failover-") as home:
        os.environ["PBM_HOME"] = home  # the seat links' key, shared with the server it starts
        for round_ in range(rounds):
            for min_replicas in (1, 0):
                show(f"{kind} failover under 4 writers through pbm serve, PBM_MIN_REPLICAS={min_replicas}, round {round_ + 1}",
                     failover.failover(min_replicas, cluster=cluster))
        if not cluster:
            show("Sentinel failover under 2 pbm workers playing 8 bot-only games, PBM_MIN_REPLICAS=1", failover.workers_through_failover(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--attempts", type=int, default=400, help="moves tried per writer")
    parser.add_argument("--senders", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=20, help="rounds of one command from many senders")
    parser.add_argument("--redis-kills", type=int, default=20)
    parser.add_argument("--held-kills", type=int, default=10, help="kills while Redis holds acknowledged writes (everysec)")
    parser.add_argument("--policies", default="everysec,always,no")
    parser.add_argument("--worker-games", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--mutations", type=int, default=20_000, help="mutated replay files (and a tenth as many move texts)")
    parser.add_argument("--failovers", type=int, default=3, help="Sentinel failovers under writers, with PBM_MIN_REPLICAS=1 and without")
    parser.add_argument("--only-failovers", action="store_true", help="run the Sentinel failovers alone")
    parser.add_argument("--cluster", action="store_true",
                        help="the failovers under writers on a Redis Cluster (three masters, a replica each) alone, in place of Sentinel's")
    options = parser.parse_args()
    if options.only_failovers or options.cluster:
        return failovers(options.failovers, cluster=options.cluster)
    url = os.environ.get("REDIS_URL")
    home = Path(tempfile.mkdtemp(prefix="pbm-chaos-"))
    env = {"PBM_HOME": str(home), **({"REDIS_URL": url} if url else {})}
    client = connect_to(env)
    try:
        print(f"Redis: {url or 'embedded ' + client.info('server')['redis_version']}; {os.cpu_count()} cores", flush=True)
        show(f"{options.writers} writers on one game", racing_writers(env, 1, options.writers, options.attempts))
        show(f"{options.writers} writers on {options.writers} games", racing_writers(env, options.writers, options.writers, options.attempts))
        show("one command id from many", one_command(env, options.senders, options.rounds))
        policies = [p.strip() for p in options.policies.split(",") if p.strip()]
        for fsync in policies:
            show(f"Redis SIGKILLed, appendfsync {fsync}", redis_kills(options.redis_kills, fsync=fsync))
        show("Redis SIGKILLed while it holds acknowledged writes, appendfsync everysec", killed_while_holding(options.held_kills))
        show("moves/s through the command path by policy (nothing killed, best of 3)", append_rates(policies, 600))
        dirty = {name: Path(f"/proc/sys/vm/{name}").read_text().strip() for name in ("dirty_expire_centisecs", "dirty_writeback_centisecs")}
        show("this kernel's page-cache writeback (what appendfsync no leaves to it)", dirty)
        show("workers SIGKILLed", worker_kills(env, options.worker_games, options.workers, limit_s=900))
        show("mutated replay files", dict(fuzz_replay_files(Store(client), options.mutations)))
        show("mutated move texts", dict(fuzz_move_texts(Games(Store(client)), options.mutations // 10)))
        failovers(options.failovers)
    finally:
        if url:
            for pattern in (f"{keys.PREFIX}:*", "rq:*"):
                for key in client.scan_iter(match=pattern, count=1000):
                    client.delete(key)
        else:
            EmbeddedRedis(home).stop()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
