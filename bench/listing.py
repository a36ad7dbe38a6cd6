"""Benchmark of the operator's list with clocks (GET /api/games): the clocks of many running games
with a deadline, read as the list reads them (Store.clocks: each game's cached clock and the
envelopes after it) against folding each whole log (what the list did before), in the same run.
Prints figures; asserts nothing.

    python bench/listing.py [--games 2000] [--moves 60] [--rounds 3]

The games are Holly Oak for 3 with a 48h deadline, each with `--moves` moves made through the
command path. "cold": no game's clock cached yet (the first listing after an upgrade, or of games
no listing has seen); "after N moves": every game moved on by N moves since the last listing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import bench_redis  # noqa: E402
from events import clock as clocks, keys  # noqa: E402
from events.commands import Games  # noqa: E402
from events.envelope import decode  # noqa: E402
from events.store import Store  # noqa: E402


def whole_logs(store: Store, game_ids: list[str]) -> dict[str, clocks.Clock]:
    """The list's way before: every game's whole log in one pipeline, each folded."""
    pipe = store.redis.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.xrange(keys.log(game_id))
    return {game_id: clocks.Clock.read([decode(fields[b"e"]) for _id, fields in entries]) for game_id, entries in zip(game_ids, pipe.execute())}


def play(games: Games, game_ids: list[str], moves: int, pick: random.Random) -> None:
    for game_id in game_ids:
        for _ in range(moves):
            table = games.table(game_id)
            if not table.to_act:
                break
            seat = table.to_act[0]
            games.submit(game_id, seat, pick.choice(table.legal_moves(seat)), expected_seq=table.seq)


def seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--moves", type=int, default=60, help="moves made in each game before the first listing")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with bench_redis() as (client, where):
        store = Store(client)
        games = Games(store, cache_size=args.games)
        pick = random.Random(1)
        game_ids = [games.create("holly-oak", 3, seed=seed, clock=clocks.settings("48h")) for seed in range(args.games)]
        play(games, game_ids, args.moves, pick)
        events = sum(store.length(game_id) for game_id in game_ids)
        print(f"the clocks of {args.games:,} running Holly Oak games with a deadline ({events:,} events), on {where}, best of {args.rounds}")
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            client.delete(*(keys.clock(game_id) for game_id in game_ids))
            figures = {
                "whole logs folded (before)": seconds(lambda: whole_logs(store, game_ids)),
                "Store.clocks, cold (no cache yet)": seconds(lambda: store.clocks(game_ids)),
                "Store.clocks, nothing new": seconds(lambda: store.clocks(game_ids)),
            }
            play(games, game_ids, 1, pick)
            figures["Store.clocks, after 1 move a game"] = seconds(lambda: store.clocks(game_ids))
            for name, taken in figures.items():
                best[name] = min(best.get(name, float("inf")), taken)
        same = whole_logs(store, game_ids) == store.clocks(game_ids)
        print(f"  the two give the same clocks: {'yes' if same else 'NO'}")
        before = best["whole logs folded (before)"]
        for name, taken in best.items():
            print(f"  {name:<38} {taken * 1000:8.0f} ms   {before / taken:6.1f}x faster than before")


if __name__ == "__main__":
    main()
