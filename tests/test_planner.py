"""The bench's planner (bench/planner.py) for Holiday! and Tranquility: its orders always parse, and
Holiday!'s bid orders play move for move as the heuristic would. Pure core in memory, no Redis."""

from __future__ import annotations

import pytest

from bench.waits import playout


@pytest.mark.parametrize("slug", ["holiday-board", "tranquility"])
def test_the_planner_saves_stops_with_orders_that_parse(slug: str) -> None:
    # playout parses every list the planner leaves with core.orders.parse_orders, which raises on
    # one bad order; a game played through is every list parsed.
    for seed in range(2):
        forced = playout(slug, 3, seed, "forced")
        ordered = playout(slug, 3, seed, "orders", range(3))
        assert ordered.stops < forced.stops


def test_holiday_board_orders_play_as_the_heuristic() -> None:
    for seed in range(3):
        forced = playout("holiday-board", 3, seed, "forced")
        ordered = playout("holiday-board", 3, seed, "orders", range(3))
        assert (ordered.moves, ordered.wins) == (forced.moves, forced.wins)
