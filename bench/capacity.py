"""What one game costs Redis and a process: memory per event and per game, round trips, commands
and bytes per move, CPU per move in the client and in Redis. The figures docs/scale.md sizes a
site from. Prints them; asserts nothing.

    python bench/capacity.py [--games 40]

Holly Oak games for 4, played to the end through the command path (Games.submit with the expected
seq of the table the process holds, as a server or a worker plays), on a fresh embedded Redis whose
INFO counters are read before and after: used_memory, commandstats, net bytes, the server's CPU.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import bench_redis  # noqa: E402
from bench.spine import move_plan  # noqa: E402
from events import keys  # noqa: E402
from events.commands import Games  # noqa: E402
from events.store import Store  # noqa: E402


def counters(client) -> dict[str, float]:
    info = client.info("all")
    calls = {name.removeprefix("cmdstat_"): stat["calls"] for name, stat in info.items() if name.startswith("cmdstat_")}
    return {
        "memory": info["used_memory"],
        "in": info["total_net_input_bytes"],
        "out": info["total_net_output_bytes"],
        "cpu": info["used_cpu_user"] + info["used_cpu_sys"],
        **{f"calls:{name}": count for name, count in calls.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    seeds = range(100, 100 + args.games)
    plans = [move_plan(seed) for seed in seeds]
    moves = sum(len(plan) for _start, plan in plans)

    with bench_redis() as (client, where):
        games = Games(Store(client))
        before = counters(client)
        wall, cpu = time.perf_counter(), time.process_time()
        made = []
        for seed, (seq, plan) in zip(seeds, plans):
            game_id = games.create("holly-oak", 4, seed=seed, game_id=f"bench-capacity-{uuid.uuid4().hex[:12]}")
            made.append(game_id)
            for seat, move in plan:  # with a command id each, as bots and retrying clients send
                submitted = games.submit(game_id, seat, move, command_id=f"bot:{seq}:{seat}", expected_seq=seq)
                seq = submitted.seq + len(submitted.events)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        after = counters(client)
        delta = {name: after.get(name, 0) - before.get(name, 0) for name in after}
        events = sum(client.xlen(keys.log(game_id)) for game_id in made)
        per_key: dict[str, int] = {}
        for game_id in made:
            for kind, key in (("log", keys.log(game_id)), ("commands", keys.commands(game_id)), ("row", keys.meta(game_id)),
                              ("seed", keys.seed(game_id)), ("snapshot", keys.snapshot(game_id))):
                per_key[kind] = per_key.get(kind, 0) + (client.memory_usage(key, samples=0) or 0)
        index_bytes = sum(client.memory_usage(key, samples=0) or 0 for key in (keys.GAMES, keys.FINISHED, keys.UNSUMMARIZED))

        print(f"pbm capacity on {where}: {args.games} Holly Oak games for 4 played out, {moves} moves, {events} events")
        print(f"  events a game {events / args.games:8.1f}   moves a game {moves / args.games:6.1f}   events a move {events / moves:5.2f}")
        print(f"  memory, used_memory growth        {delta['memory'] / args.games:10,.0f} bytes a game  {delta['memory'] / events:6.0f} a event")
        for kind, total in per_key.items():
            print(f"  memory, {kind:<10} (MEMORY USAGE) {total / args.games:10,.0f} bytes a game  {total / events:6.1f} a event")
        print(f"  memory, index sets               {index_bytes / args.games:10,.0f} bytes a finished game")
        top = {name.removeprefix("calls:"): count for name, count in delta.items() if name.startswith("calls:") and count > 0}
        commands = {name: count / moves for name, count in sorted(top.items(), key=lambda item: -item[1]) if name not in ("info", "memory|usage", "memory", "xlen")}
        print("  Redis commands a move            " + ", ".join(f"{name} {count:.3f}" for name, count in commands.items()))
        print(f"  bytes a move                      {delta['in'] / moves:8.0f} sent to Redis, {delta['out'] / moves:6.0f} received")
        print(f"  client: {moves / wall:8,.0f} moves/s in one process; {cpu / moves * 1e6:6.0f} us CPU a move "
              f"({1 / (cpu / moves):8,.0f} moves/s per core)")
        print(f"  Redis:  {delta['cpu'] / moves * 1e6:6.0f} us CPU a move ({moves / delta['cpu']:8,.0f} moves/s per core)")


if __name__ == "__main__":
    main()
