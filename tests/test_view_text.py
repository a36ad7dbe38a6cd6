"""pbm.view_text: the summaries of long move lists stand for exactly the moves they replace, over
random positions of every game; the views of every game render without a raw dump."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core.rng import Rng
from pbm.view_text import moves_summary, view_lines

RAW_DUMP = re.compile(r"(\w+: [^;]*; ){2}")  # key: value; key: value; ... (the old rendering)


def expand(line: str) -> set[str]:
    """The moves a summary line stands for (the inverse of moves_summary's patterns)."""
    subset = re.fullmatch(r"(.+?) <(\d+)(?:-(\d+))? of: ([^>]*)>", line)
    if subset:
        head, low, high, pool = subset.group(1), int(subset.group(2)), int(subset.group(3) or subset.group(2)), subset.group(4).split()
        return {" ".join([head, *c]) for k in range(low, high + 1) for c in itertools.combinations(pool, k)}
    ranged = re.fullmatch(r"(.*?)(\d+)\.\.(\d+)(?: by (\d+))?(.*)", line)
    if ranged:
        before, low, high, step, after = ranged.groups()
        return {f"{before}{n}{after}" for n in range(int(low), int(high) + 1, int(step or 1))}
    words = [word[1:-1].split("|") if word.startswith("{") else [word] for word in line.split()]
    return {" ".join(choice) for choice in itertools.product(*words)}


def test_the_patterns_of_the_issue() -> None:
    assert moves_summary([f"bid {n}" for n in range(100, 10001, 100)]) == ["bid 100..10000 by 100"]
    assert moves_summary(["discard " + " ".join(c) for c in itertools.combinations(["23", "34", "36", "37", "40", "41"], 2)]) == ["discard <2 of: 23 34 36 37 40 41>"]
    few = ["play 1Sp", "play 2Sp"]
    assert moves_summary(few) == few


@pytest.mark.parametrize("slug", list(core.GAMES))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 80))
def test_a_summary_stands_for_exactly_the_moves(slug: str, seed: int, steps: int) -> None:
    game = core.GAMES[slug]
    table = core.new_table(slug, min(game.max_players, max(game.min_players, 3)), seed=seed)
    pick = Rng(seed, 1)
    for _ in range(steps):
        if not table.to_act:
            break
        seat = table.to_act[pick.below(len(table.to_act))]
        moves = table.legal_moves(seat)
        summary = moves_summary(moves)
        # The same moves, in the game's canonical spelling (a summary may list cards in any order).
        expanded = [str(game.parse_move(move)) for line in summary for move in expand(line)]
        assert sorted(expanded) == sorted(moves), summary
        table.play(seat, moves[pick.below(len(moves))])
    for seat in [None, *range(table.players)]:
        lines = view_lines(table.view(seat), "g-1", {0: "random"})
        assert lines and not any(RAW_DUMP.search(line) for line in lines)
