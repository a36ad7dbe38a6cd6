"""Benchmark of cold reads: a process that has not folded a game reads it at its head, for games of
40, 400, 4,000 and 10,000+ events, with and without snapshots, all in one run. Prints p50 and p90
in milliseconds and ratios to the 40-event game; asserts nothing.

    python bench/cold.py [--reads 25]

The long logs are Holly Oak games for 4 played one after another by random players and sealed as
one stream (no game runs 10,000 events; the rules fold a new GameStarted as a new deal, so the
stream folds like one long game). Each read is `Games(store).table(game_id)` in a fresh Games.
Three cases per game: no snapshot (the whole log is folded, and a snapshot is saved at the head),
a snapshot at the head, and a snapshot EVERY - 1 events behind the head (the most a read folds
between the command path's snapshots). Target: the 10k game's p50 within 2x the 40-event game's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from bench._common import bench_redis  # noqa: E402
from bench.spine import random_playout, sealed_log  # noqa: E402
from events import index, keys, snapshots  # noqa: E402
from events.commands import Games  # noqa: E402
from events.store import Store  # noqa: E402

LENGTHS = (40, 400, 4_000, 10_240)


def long_stream(events_wanted: int) -> list:
    events, seed = [], 1
    while len(events) < events_wanted:
        events.extend(random_playout("holly-oak", 4, seed).events)
        seed += 1
    return events[:events_wanted]


def write_game(store: Store, events: list) -> str:
    game_id = f"bench-cold-{uuid.uuid4().hex[:8]}"
    store_sealed(store, game_id, sealed_log(game_id, events))
    return game_id


def store_sealed(store: Store, game_id: str, raw: list[bytes]) -> None:
    """A long stream's sealed envelopes as a Holly Oak game for 4, appended 500 at a time."""
    store.create(game_id, "holly-oak", 4, 0, 1, raw[:1])  # seed 1: the first game's, as committed
    for first in range(1, len(raw), 500):
        store.append(game_id, first, raw[first : first + 500])


def cold_reads(store: Store, game_id: str, reads: int, before_each=None) -> list[float]:
    times = []
    for _ in range(reads):
        if before_each is not None:
            before_each()
        start = time.perf_counter()
        Games(store).table(game_id)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reads", type=int, default=25, help="cold reads per game and case")
    args = parser.parse_args()
    stream = long_stream(max(LENGTHS))

    with bench_redis() as (client, where):
        store = Store(client)
        game_ids = {length: write_game(store, stream[:length]) for length in LENGTHS}
        print(f"pbm cold-read benchmark on {where}; snapshots every {snapshots.EVERY} events; {args.reads} reads each")

        def no_snapshot(game_id: str):
            return lambda: client.delete(keys.snapshot(game_id))

        def snapshot_behind(game_id: str, length: int):
            seq = max(1, length - (snapshots.EVERY - 1))
            envelopes = store.read(game_id, 0, seq - 1)
            table = core.replay_table("holly-oak", [env.event for env in envelopes], seed=1)
            raw = snapshots.encode(table, envelopes[-1].hash)
            return lambda: client.set(keys.snapshot(game_id), raw)

        results: dict[tuple[int, str], list[float]] = {}
        # Interleaved by round, so the machine's load weighs on every game and case alike.
        for _round in range(args.reads):
            for length, game_id in game_ids.items():
                results.setdefault((length, "whole log"), []).extend(cold_reads(store, game_id, 1, no_snapshot(game_id)))
                results.setdefault((length, "snapshot at the head"), []).extend(cold_reads(store, game_id, 1))
                behind = snapshot_behind(game_id, length)
                results.setdefault((length, f"snapshot {snapshots.EVERY - 1} behind"), []).extend(
                    cold_reads(store, game_id, 1, behind)
                )
        base = statistics.median(results[(LENGTHS[0], "whole log")])
        print(f"{'events':>7}  {'case':<24} {'p50 ms':>8} {'p90 ms':>8} {'p50 / 40-event game':>20}")
        for (length, case), times in results.items():
            p50 = statistics.median(times)
            p90 = statistics.quantiles(times, n=10)[-1]
            print(f"{length:>7}  {case:<24} {p50:8.2f} {p90:8.2f} {p50 / base:19.2f}x")
        worst = statistics.median(results[(LENGTHS[-1], f"snapshot {snapshots.EVERY - 1} behind")])
        print(f"target: the {LENGTHS[-1]:,}-event game's p50 within 2x the 40-event game's: {worst / base:.2f}x "
              f"(snapshot {snapshots.EVERY - 1} behind; {'met' if worst <= 2 * base else 'MISSED'})")
        for game_id in game_ids.values():
            client.delete(keys.log(game_id), keys.meta(game_id), keys.seed(game_id), keys.snapshot(game_id), keys.commands(game_id))
            for key in index.ALL:
                client.zrem(key, game_id)


if __name__ == "__main__":
    main()
