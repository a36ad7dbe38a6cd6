"""Tranquility's moves as a person picks them (core/menus.py): a placement is its card, then its
cell (on the sea), then what pays for it; and the patterns a message lists. Pure.

Discards are not stepped: the page draws them as one form of the hand's cards (the two of an
ordinary discard, or the share of the Start's), which is a handful of cards, not of moves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.menus import Pattern, Step, patterns as by_pattern, spread


def placed(move: str) -> bool:
    return move.startswith("play ")


def card_of(move: str) -> str:
    return move.split()[1]


def cell_of(move: str) -> str:
    words = move.split()
    return words[2] if len(words) > 2 else ""


def payment_of(move: str) -> str:
    _, _, paid = move.partition(" discard ")
    return paid


def card_label(card: str) -> str:
    return {"start": "the Start", "finish": "the Finish"}.get(card, card)


def payment_label(paid: str) -> str:
    return "pay with " + ", ".join(paid.split()) if paid else "free"


STEPS = (
    Step("card", "Pick a card to place", card_of, card_label),
    Step("cell", "Pick a marked cell of the sea", cell_of, lambda cell: cell or "(no cell)", board=True),
    Step("pay", "Pick what pays for it (one card per step between the numbers)", payment_of, payment_label),
)


def stepped(view: Mapping[str, Any]) -> list[str]:
    """The moves the steps lead to: every play (the discards have their form)."""
    return [move for move in view["legal_moves"] if placed(move)]


def steps(view: Mapping[str, Any]) -> Sequence[Step]:
    return STEPS


def pattern_of(move: str, sharing: bool) -> str:
    """The pattern a message lists `move` under; `sharing`: the Start's discard is on."""
    if move in ("play start", "play finish"):
        return move
    if placed(move):
        return "play <card> <cell> discard <cards that pay>" if payment_of(move) else "play <card> <cell>"
    return "discard <cards>" if sharing else "discard <two cards>"


def patterns(view: Mapping[str, Any]) -> list[Pattern]:
    owed = view.get("start_discard")

    def examples(pattern: str, moves: Sequence[str]) -> tuple[tuple[str, ...], str]:
        if pattern == "discard <cards>" and owed:
            least = owed.get("at_least") or 0
            return spread(moves), f"your share of the Start's discard: {f'at least {least}, ' if least else ''}at most {owed['owed']} of your cards"
        if pattern == "play <card> <cell> discard <cards that pay>":
            return spread(moves), "one card per step between the numbers"
        return spread(moves), ""

    return by_pattern(view["legal_moves"], lambda move: pattern_of(move, owed is not None), examples)
