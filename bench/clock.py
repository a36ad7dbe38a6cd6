"""Benchmark of what the clock costs: moves through the command path in games of people with a
deadline (each move queues a look at the next seat's clock) against the same games without one,
and bot-only games played by a running worker with its scheduler thread against one without it;
rounds alternated in one run, best of each, with the ratios. Prints; asserts nothing.

    python bench/clock.py [--games 20] [--rounds 3]

On the embedded Redis in a fresh directory by default; with REDIS_URL set, on that server (every
pbm and rq key there is deleted at the end, as the tests do).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from events import clock as clocks, keys, server  # noqa: E402
from events.commands import Games  # noqa: E402
from events.store import Store  # noqa: E402
from workers.dispatch import Dispatcher  # noqa: E402

WORKER = """
import sys
from events.server import connect
from workers.worker import make_worker
make_worker(connect(), recovering=False, scheduling=sys.argv[1] == "on").work(logging_level="WARNING")
"""


def people_moves(games: Games, count: int, clocked: bool, seed: int) -> float:
    """Moves per second over `count` games of three people, every move through Games.submit."""
    chooser = random.Random(seed)
    clock = clocks.settings("48h") if clocked else None
    ids = [games.create("holly-oak", 3, seed=seed + n, clock=clock) for n in range(count)]
    moves = 0
    started = time.perf_counter()
    for game_id in ids:
        table = games.table(game_id)
        while table.to_act:
            seat = table.to_act[0]
            games.submit(game_id, seat, chooser.choice(table.legal_moves(seat)), expected_seq=table.seq)
            moves += 1
            table = games.table(game_id)
    return moves / (time.perf_counter() - started)


def bot_games(games: Games, count: int, scheduler: str, seed: int, env: dict[str, str]) -> float:
    """Bot moves per second of one running worker (its scheduler thread on or off) playing `count`
    bot-only games, from the first move to the last (the worker's start-up is not in it)."""
    from workers.worker import running_workers

    queues = games.dispatch.connection
    worker = subprocess.Popen([sys.executable, "-c", WORKER, scheduler], env=env)
    try:
        while running_workers(queues) < 1:
            time.sleep(0.05)
        time.sleep(1.5)  # at work: warmed up, and its scheduler thread under way
        ids = [games.create("holly-oak", 3, seed=seed + n, bots={0: "random", 1: "random", 2: "random"}) for n in range(count)]
        opened = {game_id: games.store.length(game_id) for game_id in ids}
        while any(not games.store.info(game_id).finished for game_id in ids):
            time.sleep(0.02)
        times = [env.time_ms for game_id in ids for env in games.store.read(game_id, opened[game_id])]
        moves = len(times)
        return moves / max((max(times) - min(times)) / 1000, 1e-3)
    finally:
        worker.terminate()
        worker.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per round")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    home = None
    if not os.environ.get("REDIS_URL"):
        home = tempfile.mkdtemp(prefix="pbm-bench-clock-")
        os.environ["PBM_HOME"] = home
    client = server.connect()
    queues = server.connect_queues(client)
    games = Games(Store(client), dispatch=Dispatcher(queues, log=client))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    results: dict[str, list[float]] = {"people, no clock": [], "people, clock": [], "bots, no scheduler": [], "bots, scheduler": []}
    try:
        for round_ in range(options.rounds):
            seed = 1000 * round_
            pairs = [(False, "people, no clock"), (True, "people, clock")]
            for clocked, name in pairs if round_ % 2 == 0 else pairs[::-1]:
                results[name].append(people_moves(games, options.games, clocked, seed))
            # The looks at the clock those moves queued are not the bots' work: off rq before them.
            queues.delete(*[key for key in queues.scan_iter(match="rq:*")] or ["-"])
            runs = [("off", "bots, no scheduler"), ("on", "bots, scheduler")]
            for scheduler, name in runs if round_ % 2 == 0 else runs[::-1]:
                results[name].append(bot_games(games, options.games, scheduler, seed + 500, env))
            queues.delete(*[key for key in queues.scan_iter(match="rq:*")] or ["-"])
        print(f"{options.games} games a round, {options.rounds} rounds, best of each (moves/s)")
        for name, rates in results.items():
            print(f"  {name:<20} {max(rates):8.0f}   (rounds: {', '.join(f'{r:.0f}' for r in rates)})")
        print(f"  a game with a clock: {max(results['people, clock']) / max(results['people, no clock']):.2f}x the moves/s of one without")
        print(f"  a worker with its scheduler thread: {max(results['bots, scheduler']) / max(results['bots, no scheduler']):.2f}x the bot moves/s of one without")
    finally:
        for pattern in (f"{keys.PREFIX}:*", "rq:*"):
            for key in list(client.scan_iter(match=pattern, count=1000)):
                client.delete(key)
        if home is not None:
            server.EmbeddedRedis(Path(home)).stop()
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
