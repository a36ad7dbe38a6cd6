"""The bench's planner (bench/planner.py): its orders always parse, Holiday!'s bid orders play move
for move as the heuristic would, and Holly Oak's nearly always play the heuristic's card. Pure core
in memory, no Redis."""

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


def test_holly_oak_orders_play_as_the_heuristic_would_nearly_always() -> None:
    # The orders are a decision list learned on drawn situations: where the real trick is one the
    # draws missed, an order may play another card than the heuristic would (measured: about 1%).
    fired = agreed = 0
    for seed in range(2):
        forced = playout("holly-oak", 3, seed, "forced")
        ordered = playout("holly-oak", 3, seed, "orders", range(3))
        assert ordered.stops < forced.stops / 2
        fired, agreed = fired + ordered.fired, agreed + ordered.agreed
    assert fired > 100 and agreed >= 0.95 * fired
