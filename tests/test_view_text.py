"""pbm.view_text: long move lists are read by pattern (core.menus, each game's own), whose lines
stand for exactly the moves they replace, with examples of their own moves, over random positions
of every game; the views of every game render without a raw dump."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core import menus
from core.rng import Rng
from pbm.view_text import MOVES_SHOWN, moves_lines, view_lines

RAW_DUMP = re.compile(r"(\w+: [^;]*; ){2}")  # key: value; key: value; ... (the old rendering)
MOST_LINES = MOVES_SHOWN + 1  # what a reader reads of the moves, however many there are


def test_bids_read_as_the_least_a_few_steps_and_the_seats_money():
    table = core.new_table("holiday-board", 3, seed=1)
    seat = table.to_act[0]
    view = table.view(seat)
    lines = moves_lines(view)
    assert lines[0] == f"your moves ({len(view['legal_moves'])} in all; --all lists them):"
    assert lines[1:] == [
        "  pass",
        f"  bid <amount>: {len(view['legal_moves']) - 1} moves, e.g. bid 100, bid 600, bid 10000",
        "    ($100 (the least) to $30,000, in hundreds; you have $10,000)",
    ]


def test_few_moves_are_listed_as_they_are():
    table = core.new_table("holly-oak", 3, seed=5)
    view = table.view(table.to_act[0])
    assert moves_lines(view) == ["your moves: " + " | ".join(view["legal_moves"])]


@pytest.mark.parametrize("slug", list(core.GAMES))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 80))
def test_the_patterns_stand_for_exactly_the_moves(slug: str, seed: int, steps: int) -> None:
    game = core.GAMES[slug]
    table = core.new_table(slug, min(game.max_players, max(game.min_players, 3)), seed=seed)
    pick = Rng(seed, 1)
    for _ in range(steps):
        if not table.to_act:
            break
        seat = table.to_act[pick.below(len(table.to_act))]
        view = table.view(seat)
        moves = view["legal_moves"]
        found = menus.patterns_of(game, view)
        assert sorted(move for pattern in found for move in pattern.moves) == sorted(moves)
        for pattern in found:
            assert pattern.examples and set(pattern.examples) <= set(pattern.moves), pattern
        lines = moves_lines(view)
        assert len(lines) <= MOST_LINES, lines
        if len(moves) > MOVES_SHOWN:
            assert all(example in "\n".join(lines) for pattern in found for example in pattern.examples)
        table.play(seat, moves[pick.below(len(moves))])
    for seat in [None, *range(table.players)]:
        lines = view_lines(table.view(seat), "g-1", {0: "random"})
        assert lines and not any(RAW_DUMP.search(line) for line in lines)
