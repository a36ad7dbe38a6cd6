"""What the bots and the search need to know about a game: its rule-based player (the players
themselves are in workers.heuristic_players, the lower layer, which imports nothing of this
module), which moves are worth searching, and how to value a finished or cut-off playout. No I/O.

A heuristic sees exactly what its seat sees: the seat's view (Table.view) and its legal move
texts; it may use its game's pure rule helpers to reason about them, never the state itself.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from core.contract import Game

# The players' tables, filed by the players' own module as it is imported; named here too, where
# the bots and the search have always read them.
from workers.heuristic_players import CANDIDATES, HEURISTICS, Candidates, Heuristic, candidates, heuristic  # noqa: F401


def choose(slug: str, view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    player = HEURISTICS.get(slug)
    if player is None:
        raise LookupError(f"no heuristic player for {slug} yet")
    move = player(view, legal, rng)
    assert move in legal, f"the {slug} heuristic chose {move!r}, not a legal move"
    return move


# ---------------------------------------------------------------------------------------------
# Valuing playouts for the search: per seat, higher is better, in about [0, 1.5].

NOTHING: Any = defaultdict(float)  # any seat -> 0.0


def outcome_value(game: Game, state: Any) -> Any:
    """A win (shared wins split) counts most; the rank of the score breaks what remains. A playout
    cut off at the game's horizon is valued by each seat's lead in the running scores."""
    outcome = game.outcome(state)
    if outcome is None:
        interim = INTERIM.get(game.slug)
        return NOTHING if interim is None else lead_value(*interim(state))
    scores = outcome.scores
    share = 1 / len(outcome.winners) if outcome.winners else 0.0
    won = [share if seat in outcome.winners else 0.0 for seat in range(len(scores))]
    scale = MARGIN_SCALES.get(game.slug)
    if scale is not None:
        # By how much: a near miss and a rout differ, which guides a search that mostly loses.
        return [0.6 * w + 0.4 * lead for w, lead in zip(won, lead_value(scores, scale))]
    low, high = min(scores), max(scores)
    spread = (high - low) or 1
    return [w + 0.2 * (score - low) / spread for w, score in zip(won, scores)]


def lead_value(scores: Sequence[float], scale: float) -> list[float]:
    """Per seat, its lead over the best other seat, squashed into (0, 1)."""
    values = []
    for seat, score in enumerate(scores):
        best_other = max((s for other, s in enumerate(scores) if other != seat), default=0)
        values.append(1 / (1 + math.exp(-(score - best_other) / scale)))
    return values


def cooperative_value(game: Game, state: Any) -> Any:
    """All win or lose together: a win counts most, then how far the team got (the score)."""
    outcome = game.outcome(state)
    if outcome is None:
        return NOTHING
    won = 1.0 if outcome.winners else 0.0
    return [won + 0.5 * score / 36 for score in outcome.scores]


# Where a playout may stop before the end (playout start, now) -> bool, and how the running
# scores read then: state -> (scores, the lead that counts as clear). Games not named play out.
HORIZONS: dict[str, Callable[[Any, Any], bool]] = {
    "holly-oak": lambda start, now: now.round != start.round,  # the round is scored
    "holidays": lambda start, now: now.hand_number != start.hand_number,  # the pot is won
    "holiday-board": lambda start, now: days_passed(start, now) >= 2,  # two cities are seen
}
INTERIM: dict[str, Callable[[Any], tuple[Sequence[float], float]]] = {
    "holly-oak": lambda state: (state.scores, 4.0),
    "holidays": lambda state: (state.win_points, 2.0),
    "holiday-board": lambda state: (board_worth(state), 4000.0),
}
# What a sightseeing card still in hand is worth, in dollars: a card seen scores 1000 to 7000, but
# many are never seen before the game ends.
CARD_WORTH = 2000


def days_passed(start: Any, now: Any) -> int:
    """Holiday! days gone by between two states (the week is 7 days; before the first flight the
    day is unknown, and the first city's end counts as 2 days, which ends a playout)."""
    if now.day is None:
        return 0
    if start.day is None:
        return 2 if now.sightseer is None else 0
    return (now.day - start.day) % 7


def board_worth(state: Any) -> list[float]:
    """Holiday!'s running score per seat: points + dollars + the cards still to see."""
    return [p + m + CARD_WORTH * len(h) for p, m, h in zip(state.points, state.money, state.hands)]
# The score lead that counts as clear, per game: points in Holly Oak and Holidays, dollars in Holiday!
MARGIN_SCALES: dict[str, float] = {"holly-oak": 4.0, "holidays": 2.0, "holiday-board": 4000.0}
# Share of playout moves the heuristic makes, where it is not workers.ismcts.GUIDED: in Holiday!
# a random move is mostly a wild bid that forfeits all the bidder's money, which drowns the signal.
GUIDED: dict[str, float] = {"holiday-board": 1.0}
VALUES: dict[str, Callable[[Game, Any], Any]] = {"tranquility": cooperative_value}
# Games whose root is searched in paired rounds (workers.ismcts.paired_search) rather than one tree.
# Measured per game: in Holidays it lifted ISMCTS against the heuristic from about 50% to 69% (2p);
# Holly Oak and Holiday! were measured strong with one tree and keep it.
PAIRED_ROOT = frozenset({"holidays"})


def value_function(slug: str) -> Callable[[Game, Any], Any]:
    return VALUES.get(slug, outcome_value)


def horizon_function(slug: str) -> Callable[[Any, Any], bool] | None:
    """A test (playout start, now) that ends a playout early, or None: play to the end."""
    return HORIZONS.get(slug)

