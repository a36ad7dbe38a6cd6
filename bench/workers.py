"""Benchmark of the workers: AI-turn latency through rq, and bot moves per second against a no-op
rq job, measured side by side in one run on one SimpleWorker process. Prints; asserts nothing.

    python bench/workers.py [--moves 300] [--games 10] [--rounds 3] [--noops 2000]

Latency: a person (this script) plays seat 0 of 2-player Holidays against a `random` bot; from
just before the person's command is submitted (the append that makes it the bot's turn, and the
dispatch) to the moment the bot's move is in the log (seen with XREAD BLOCK). The random bot's own
think time (microseconds) is inside the figure, not taken out: it is too small to matter.
Throughput: bot-only Holly Oak games of random bots are queued with no worker running, then one
burst worker plays them all: bot moves per second between the first and the last move, against a
burst worker draining the same number of no-op jobs; in alternated rounds, best of each. Then the
two mixed on one queue and one worker (`mixed`), rates from the times between job ends: the
steadier figure on a machine whose speed swings.
On the embedded Redis by default; with REDIS_URL set, on that server, in a database of its own
(every pbm and rq key there is deleted at the end, as the tests do).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rq import Queue  # noqa: E402
from rq.job import Job  # noqa: E402

from events import keys  # noqa: E402
from events.commands import Games  # noqa: E402
from events.server import EmbeddedRedis  # noqa: E402
from events.store import Store  # noqa: E402
from workers.dispatch import AI_QUEUE, Dispatcher, turn_job_id  # noqa: E402

TARGET_P50_MS, TARGET_P99_MS, TARGET_RATIO = 20.0, 100.0, 0.8


def worker(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pbm", "worker", "--no-recover", *args],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
    )


def latency(games: Games, env: dict[str, str], moves: int) -> list[float]:
    client = games.store.redis
    process = worker(env)
    samples: list[float] = []
    chooser = random.Random(7)
    try:
        time.sleep(1.5)  # the worker starts and blocks on its queues
        while len(samples) < moves:
            game_id = games.create("holidays", 2, bots={1: "random"})
            table = games.table(game_id)
            while table.outcome is None and len(samples) < moves:
                if table.to_act != (0,):
                    table = wait_for_more(games, game_id, table.seq)
                    continue
                started = time.perf_counter()
                submitted = games.submit(game_id, 0, chooser.choice(table.legal_moves(0)))
                after = submitted.seq + len(submitted.events)
                table = games.table(game_id)
                if 1 not in table.to_act:
                    continue
                seen = read_until_command(client, game_id, after)
                samples.append((time.perf_counter() - started) * 1000)
                table = games.table(game_id) if seen else table
    finally:
        process.terminate()
        process.wait()
    return samples


def read_until_command(client: redis.Redis, game_id: str, seq: int) -> bool:
    """Block until the log holds an event at `seq` or later (the bot's move)."""
    last = keys.entry_id(seq - 1)
    reply = client.xread({keys.log(game_id): last}, count=1, block=10_000)
    return bool(reply)


def wait_for_more(games: Games, game_id: str, seq: int):
    read_until_command(games.store.redis, game_id, seq)
    return games.table(game_id)


def bot_only_games(games: Games, count: int) -> list[str]:
    """3-player Holly Oak games of random bots: their first turns are queued at once."""
    return [games.create("holly-oak", 3, bots={0: "random", 1: "random", 2: "random"}) for _ in range(count)]


def throughput(games: Games, env: dict[str, str], count: int) -> tuple[int, float]:
    ids = bot_only_games(games, count)
    worker(env, "--burst", "--queue", AI_QUEUE).wait()
    first, last, moves = None, None, 0
    for game_id in ids:
        envelopes = games.store.read(game_id)
        played = [env for env in envelopes if env.command is not None]
        assert envelopes and games.table(game_id).outcome is not None, "a game did not finish"
        moves += len(played)
        first = min(first or played[0].time_ms, played[0].time_ms)
        last = max(last or 0, envelopes[-1].time_ms)
    return moves, (last - first) / 1000


def noop_rate(client: redis.Redis, env: dict[str, str], count: int) -> tuple[int, float]:
    queue = Queue("pbm-bench-noop", connection=client)
    jobs = [queue.enqueue("workers.jobs.noop", result_ttl=600) for _ in range(count)]
    subprocess.run([sys.executable, "-c", NOOP_WORKER], env={**os.environ, **env}, check=True)
    fetched = Job.fetch_many([job.id for job in jobs], connection=client)
    started = min(job.started_at for job in fetched)
    ended = max(job.ended_at for job in fetched)
    return count, (ended - started).total_seconds()


def mixed(games: Games, client: redis.Redis, env: dict[str, str], count: int) -> tuple[float, float]:
    """Bot turns and no-op jobs through one worker on one queue, in blocks of about `count` jobs
    each (the bots' next turns and fresh no-ops queue up behind each other): per kind, jobs per
    second from the times between consecutive job ends. The machine's swings fall on both alike."""
    queue = Queue(AI_QUEUE, connection=client)
    ids = bot_only_games(games, count)
    noops: list[str] = []

    def feed() -> None:
        noops.extend(queue.enqueue("workers.jobs.noop", result_ttl=600).id for _ in range(count))

    feed()
    process = worker(env, "--burst", "--queue", AI_QUEUE)
    while process.poll() is None:
        waiting = queue.get_job_ids()
        bots_playing = any(job_id.startswith("pbm-turn-") for job_id in waiting)
        if bots_playing and sum(job_id in waiting for job_id in noops[-count:]) < count // 2:
            feed()
        time.sleep(0.01)
    turns = [
        turn_job_id(game_id, env.seq, env.actor)
        for game_id in ids
        for env in games.store.read(game_id)
        if env.command_id is not None and env.command_id.startswith("bot:")
    ]
    queue.empty()  # no-ops fed as the last bot turns ran may be left: they never ran
    ends = sorted(
        (job.ended_at, kind)
        for kind, job_ids in (("bot", turns), ("noop", noops))
        for job in Job.fetch_many(job_ids, connection=client)
        if job is not None and job.ended_at is not None
    )
    # Only while both kinds run: after the last of one kind the other runs alone.
    until = min(max(end for end, kind in ends if kind == which) for which in ("bot", "noop"))
    spent = {"bot": [], "noop": []}
    for (before, _), (end, kind) in zip(ends, ends[1:]):
        if end <= until:
            spent[kind].append((end - before).total_seconds())
    return len(spent["bot"]) / sum(spent["bot"]), len(spent["noop"]) / sum(spent["noop"])


# The same worker as `pbm worker --no-recover`, on the no-op queue (which `pbm worker --queue` refuses).
NOOP_WORKER = """
from events.server import connect
from workers.worker import make_worker
make_worker(connect(), ("pbm-bench-noop",), recovering=False).work(burst=True, logging_level="WARNING")
"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300, help="latency samples")
    parser.add_argument("--games", type=int, default=10, help="games per throughput round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of bot games and no-op jobs, alternated")
    parser.add_argument("--noops", type=int, default=0, help="no-op jobs (default: as many as the games' moves)")
    options = parser.parse_args()
    url = os.environ.get("REDIS_URL")
    home = Path(tempfile.mkdtemp(prefix="pbm-bench-workers-"))
    env = {"PBM_HOME": str(home)}
    if url:
        client, server = redis.Redis.from_url(url), None
        env["REDIS_URL"] = url
    else:
        server = EmbeddedRedis(home)
        client = server.client()
    try:
        games = Games(Store(client), dispatch=Dispatcher(client))
        print(f"Redis: {url or 'embedded, ' + client.info('server')['redis_version']}; one rq SimpleWorker")
        samples = latency(games, env, options.moves)
        p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
        print(
            f"AI-turn latency (person's append -> random bot's move in the log), {len(samples)} turns: "
            f"p50 {p50:.2f} ms (target <= {TARGET_P50_MS:g}), p99 {p99:.2f} ms (target <= {TARGET_P99_MS:g}), "
            f"mean {statistics.fmean(samples):.2f} ms"
        )
        # Rounds alternate the two, and each keeps its best: a load that comes and goes on the
        # machine weighs on both alike.
        bot_rates, job_rates = [], []
        for round_ in range(1, options.rounds + 1):
            moves, seconds = throughput(games, env, options.games)
            noops, noop_seconds = noop_rate(client, env, options.noops or moves)
            bot_rates.append(moves / seconds)
            job_rates.append(noops / noop_seconds)
            print(
                f"round {round_}: bot moves {moves} in {seconds:.2f} s = {bot_rates[-1]:.0f}/s; "
                f"no-op jobs {noops} in {noop_seconds:.2f} s = {job_rates[-1]:.0f}/s; ratio {bot_rates[-1] / job_rates[-1]:.2f}"
            )
        bot_rate, job_rate = max(bot_rates), max(job_rates)
        print(f"best: bot moves {bot_rate:.0f}/s, no-op jobs {job_rate:.0f}/s")
        print(f"ratio bot moves / no-op jobs, best rounds: {bot_rate / job_rate:.2f} (target >= {TARGET_RATIO:g})")
        bot_rate, job_rate = mixed(games, client, env, options.games)
        print(
            f"ratio bot moves / no-op jobs, mixed on one queue: {bot_rate / job_rate:.2f} (target >= {TARGET_RATIO:g}): "
            f"bot moves {bot_rate:.0f}/s, no-op jobs {job_rate:.0f}/s"
        )
    finally:
        if server is not None:
            server.stop()
        else:
            for pattern in ("pbm:*", "rq:*"):  # as the tests do: REDIS_URL names a database of its own
                for key in client.scan_iter(match=pattern, count=1000):
                    client.delete(key)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
