"""Benchmark of the rules: random legal playouts per second for every game and player count, with
the share of games somebody won (for Tranquility, where all win or all lose, the random
players' win rate). Pure core, no Redis; prints
figures, asserts nothing.

    python bench/playouts.py [--seconds S] [--game SLUG]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from bench.random_moves import random_moves  # noqa: E402
from core.rng import Rng  # noqa: E402


def random_playout(slug: str, players: int, seed: int) -> tuple[core.Table, int]:
    """A finished table and how many moves its random players made."""
    table = core.new_table(slug, players=players, seed=seed)
    moves = 0
    for _now, seat, move in random_moves(table, Rng(seed, 0)):
        table.play(seat, move)
        moves += 1
    return table, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game and player count")
    parser.add_argument("--game", choices=sorted(core.GAMES), help="only this game")
    args = parser.parse_args()
    print(f"{'game':<14} {'players':>7} {'games/s':>9} {'events/s':>9} {'moves/game':>10}  won by somebody")
    for slug, game in core.GAMES.items():
        if args.game and slug != args.game:
            continue
        for players in range(game.min_players, game.max_players + 1):
            played = events = moves = won = 0
            start = time.perf_counter()
            while time.perf_counter() - start < args.seconds:
                table, made = random_playout(slug, players, 10_000 + played)
                played += 1
                events += table.seq
                moves += made
                won += bool(table.outcome.winners)
            elapsed = time.perf_counter() - start
            print(
                f"{slug:<14} {players:>7} {played / elapsed:>9.1f} {events / elapsed:>9.0f} {moves / played:>10.1f}"
                f"  {won / played:6.1%} of {played}"
            )


if __name__ == "__main__":
    main()
