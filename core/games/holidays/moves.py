"""Holidays' moves as a message lists them (core/menus.py): one pattern per kind of move, with a
few examples. Pure. The page needs no steps: it groups the moves by kind already, each kind a
handful of buttons or one form of the hand's cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.menus import Pattern, patterns as by_pattern, spread

PATTERNS = {
    "propose": "propose <destination>",
    "change": "change <destination> pay <traveller>",
    "setoff": "setoff <travellers>",
    "discard": "discard <travellers>",
}
NOTES = {
    "change": "one traveller from your hand into the pot",
    "setoff": "a party for the destination",
    "discard": "none or some of your cards: you stay home",
}


def pattern_of(move: str) -> str:
    return PATTERNS.get(move.split()[0], move)


def patterns(view: Mapping[str, Any]) -> list[Pattern]:
    def examples(pattern: str, moves: Sequence[str]) -> tuple[tuple[str, ...], str]:
        return spread(moves), NOTES.get(moves[0].split()[0], "") if len(moves) > 1 else ""

    return by_pattern(view["legal_moves"], pattern_of, examples)
