"""Seeded random legal moves, the one way the tests and the benchmarks draw a game's random moves,
so that a seed gives the same game wherever it is drawn. It plays nothing itself and does no I/O;
never imported by pbm.

The tests import it from here, as they import bench/chaos.py: tests/ may import bench/, bench/
never imports tests/.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import core
from core.rng import Rng

T = TypeVar("T")


def random_moves(table: core.Table | Callable[[], core.Table], chooser: Rng | random.Random) -> Iterator[tuple[core.Table, int, str]]:
    """(the table as it stands, a seat it waits for, one of that seat's legal moves), the seat
    drawn from `chooser` first, then the move, until the game is over. The caller plays each move
    before asking for the next: Table.play on `table`, or Games.submit with `table` a function
    that reads the game afresh (`lambda: games.table(game_id)`)."""
    now = table if callable(table) else lambda: table
    pick = picker(chooser)
    while (current := now()).to_act:
        seat = pick(current.to_act)
        yield current, seat, pick(current.legal_moves(seat))


def picker(chooser: Rng | random.Random) -> Callable[[Sequence[T]], T]:
    # Both kinds of generator stay: the golden logs and the command-path tests were drawn with
    # random.Random's choice, the benchmarks and the rules' tests with core's portable Rng.
    if isinstance(chooser, Rng):
        return lambda options: options[chooser.below(len(options))]
    return chooser.choice
