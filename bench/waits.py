"""Benchmark of how often a game waits on a person, per game and player count, on the same seeds:
stops per game with every move asked, with forced moves played by pbm (a seat's only legal move),
and with forced moves plus the standing orders a simple planner leaves (docs/orders.md); and the
planner's win rate against plain heuristic seats. Pure core in memory, no Redis; prints figures,
asserts nothing.

Every seat is the heuristic player (workers/heuristics.py) standing in for a person; in the third
mode it is the planner (bench/planner.py): asked, it plays the heuristic's move and then leaves
orders for its coming turns. What pbm plays without asking is decided by the engine's own rule,
core.orders.forced_move then core.orders.order_to_fire (as events.commands.Games._follow_up).
A stop is a time the game waits on a person: every move, in mode "asked"; a move with more than
one legal move, in mode "forced"; such a move that no order played, in mode "orders".

The win rate: per seed, two mixed games, the planner in the even seats and then in the odd ones,
the heuristic in the others; a seat's share of a game's wins (a shared win is split), over its
seat-games, with its binomial standard error. Games without a planner leave no orders. "as
heuristic": the share of the orders fired (all seats planners) that played the move the heuristic
would have played there itself (its ties broken that way).

    python bench/waits.py [--games N] [--first-seed N] [--game SLUG] [--players N]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from bench.planner import FIXED_TIES, PLANNERS  # noqa: E402
from core.orders import Context, Order, forced_move, order_to_fire, parse_orders  # noqa: E402
from workers import heuristics  # noqa: E402

MAX_MOVES = 5000  # a bound on one playout, not a rule


@attrs.frozen
class Played:
    moves: int
    stops: int
    wins: tuple[float, ...]  # per seat, its share of the win
    fired: int = 0  # orders fired
    agreed: int = 0  # of them, moves the heuristic would have played there itself


def playout(slug: str, players: int, seed: int, mode: str, planners: Collection[int] = ()) -> Played:
    """One game played by heuristic seats, `planners` among them leaving orders (mode "orders")."""
    table = core.new_table(slug, players=players, seed=seed)
    rng = random.Random(seed)
    plan = PLANNERS.get(slug)
    held: dict[int, list[Order]] = {}
    log: list[tuple[int, int, str]] = []  # (seq, seat, move), as the log's commands

    def played_since(seat: int, seq: int) -> list[tuple[int, int, str]]:
        return [entry for entry in log if entry[0] >= seq and entry[1] != seat]

    moves = stops = fired_orders = agreed = 0
    while table.to_act and moves < MAX_MOVES:
        asked = False
        found = None if mode == "asked" else forced_move(table)
        if found is None and mode == "orders" and held:
            fired, dropped = order_to_fire(table, held, played_since)
            for seat, gone in dropped.items():
                held[seat] = [order for order in held[seat] if order not in {order for order, _why in gone}]
            if fired is not None:
                held[fired.seat].remove(fired.order)  # used once
                found = fired.seat, fired.move
                fired_orders += 1
                agreed += heuristic_would(slug, table.view(fired.seat), table.legal_moves(fired.seat), fired.move)
        if found is None:
            seat = table.to_act[0]
            legal = table.legal_moves(seat)
            found = seat, legal[0] if len(legal) == 1 else heuristics.choose(slug, table.view(seat), legal, rng)
            asked = True
        seat, move = found
        stops += asked
        log.append((table.seq, seat, move))
        table.play(seat, move)
        moves += 1
        if asked and plan is not None and seat in planners and mode == "orders":
            view = table.view(seat)
            texts = plan(view, rng)
            held[seat] = parse_orders(texts, Context(table.game, players, seat, view), ids=[str(n) for n in range(len(texts))])
    outcome = table.outcome
    winners = () if outcome is None else outcome.winners
    return Played(moves, stops, tuple(1 / len(winners) if s in winners else 0.0 for s in range(players)), fired_orders, agreed)


def heuristic_would(slug: str, view: dict[str, Any], legal: list[str], move: str) -> bool:
    """Whether the heuristic plays `move` here, its ties broken that way (listed first, the
    random tie-break fixed)."""
    return heuristics.choose(slug, view, [move, *(other for other in legal if other != move)], FIXED_TIES) == move


def win_rates(slug: str, players: int, seeds: range) -> tuple[float, float, float, float]:
    """(planner's win rate, its standard error, the heuristic seats', theirs) in mixed games."""
    planner = heuristic = 0.0
    n_planner = n_heuristic = 0
    for seed in seeds:
        for parity in (0, 1):
            seats = [s for s in range(players) if s % 2 == parity]
            wins = playout(slug, players, seed, "orders", seats).wins
            planner += sum(wins[s] for s in seats)
            heuristic += sum(w for s, w in enumerate(wins) if s not in seats)
            n_planner += len(seats)
            n_heuristic += players - len(seats)
    p, q = planner / max(n_planner, 1), heuristic / max(n_heuristic, 1)
    return p, math.sqrt(p * (1 - p) / max(n_planner, 1)), q, math.sqrt(q * (1 - q) / max(n_heuristic, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="seeds per game and player count")
    parser.add_argument("--game", choices=sorted(core.GAMES), help="only this game")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds from this one on (to add seeds to a run)")
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.games)
    print(f"{args.games} seeds per row (from {args.first_seed}); stops per game; win rates per seat-game, +- one standard error")
    print(f"{'game':<14} {'players':>7} {'asked':>7} {'forced':>7} {'orders':>7} {'forced/asked':>12} {'orders/asked':>12} {'as heuristic':>12} {'planner wins':>13} {'heuristic wins':>14}")
    for slug, game in core.GAMES.items():
        if args.game and slug != args.game:
            continue
        for players in range(game.min_players, game.max_players + 1):
            if args.players and players != args.players:
                continue
            both = [playout(slug, players, seed, "forced") for seed in seeds]
            asked, forced = sum(p.moves for p in both), sum(p.stops for p in both)
            planned = [playout(slug, players, seed, "orders", range(players)) for seed in seeds]
            ordered = sum(p.stops for p in planned)
            fired = sum(p.fired for p in planned)
            agreed = f"{sum(p.agreed for p in planned) / fired:.1%}" if fired else "-"
            if slug in PLANNERS:
                p, p_se, q, q_se = win_rates(slug, players, seeds)
                wins = f"{p:>6.0%} +-{p_se:>4.0%} {q:>7.0%} +-{q_se:>4.0%}"
            else:
                wins = f"{'(no planner)':>13} {'':>14}"
            n = args.games
            print(
                f"{slug:<14} {players:>7} {asked / n:>7.1f} {forced / n:>7.1f} {ordered / n:>7.1f} "
                f"{forced / max(asked, 1):>12.0%} {ordered / max(asked, 1):>12.0%} {agreed:>12} {wins}",
                flush=True,
            )


if __name__ == "__main__":
    main()
