"""Benchmark of how often a game waits on a person: stops per game with every move asked, and with
forced moves played by pbm (a seat's only legal move; docs/orders.md), on the same seeds, per game
and player count. Every seat is the heuristic player (workers/heuristics.py) standing in for a
person. Pure core in memory, no Redis; prints figures, asserts nothing.

A stop is a time the game waits on a person: every move, in mode "asked"; every move with more
than one legal move, in mode "forced" (the same rule as events.commands.forced_move). The third
mode of the issue (forced moves plus orders left by a planner) waits for the orders engine.

    python bench/waits.py [--games N] [--game SLUG]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from workers import heuristics  # noqa: E402

MAX_MOVES = 5000  # a bound on one playout, not a rule


def playout(slug: str, players: int, seed: int) -> tuple[int, int]:
    """(moves, moves with a choice) of one game played by heuristic seats."""
    table = core.new_table(slug, players=players, seed=seed)
    rng = random.Random(seed)
    moves = choices = 0
    while table.to_act and moves < MAX_MOVES:
        seat = table.to_act[0]
        legal = table.legal_moves(seat)
        move = legal[0] if len(legal) == 1 else heuristics.choose(slug, table.view(seat), legal, rng)
        choices += len(legal) > 1
        table.play(seat, move)
        moves += 1
    return moves, choices


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="seeds per game and player count")
    parser.add_argument("--game", choices=sorted(core.GAMES), help="only this game")
    args = parser.parse_args()
    print(f"{'game':<14} {'players':>7} {'asked/game':>10} {'forced/game':>11} {'forced/asked':>12}")
    for slug, game in core.GAMES.items():
        if args.game and slug != args.game:
            continue
        for players in range(game.min_players, game.max_players + 1):
            asked = forced = 0
            for seed in range(args.games):
                moves, choices = playout(slug, players, seed)
                asked, forced = asked + moves, forced + choices
            n = args.games
            print(f"{slug:<14} {players:>7} {asked / n:>10.1f} {forced / n:>11.1f} {forced / max(asked, 1):>11.0%}", flush=True)


if __name__ == "__main__":
    main()
