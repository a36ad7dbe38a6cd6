"""Tranquility's conditions for standing orders (core/orders.py): parsed here, evaluated on what
the seat sees (its view). Pure; never decides a move (the rules do, when the order fires).

    the Start's discard is on       the cards owed after a Start are being discarded
    the Start's discard is not on   an ordinary turn
    <cell> is empty                 (`c3 is empty`)

The Start's discard conditions are what an order needs here: `discard 43 52` is legal both as the
ordinary two-card discard and as a share of the Start's eight, and a seat means one of them.
An order lasts until its card has left the hand or its cell is filled. The chain of an order sees
of other seats' moves what everyone sees: discards are face down (`play 23 c2`, `discard`).
"""

from __future__ import annotations

import re
from typing import Any

import attrs

CONDITIONS = ("the Start's discard is on", "the Start's discard is not on", "<cell> is empty (a1 to f6)")
_CELL = re.compile(r"(?P<cell>[a-f][1-6]) is empty")


@attrs.frozen
class StartDiscard:
    on: bool

    def __str__(self) -> str:
        return f"the Start's discard is {'on' if self.on else 'not on'}"


@attrs.frozen
class Empty:
    cell: str

    def __str__(self) -> str:
        return f"{self.cell} is empty"


def parse_condition(text: str) -> StartDiscard | Empty:
    words = " ".join(text.lower().replace("\u2019", "'").split())
    if words in ("the start's discard is on", "the start's discard is not on"):
        return StartDiscard(not words.endswith("not on"))
    match = _CELL.fullmatch(words)
    if match is None:
        raise ValueError(f"unknown condition {text!r}")
    return Empty(match["cell"])


def holds(condition: StartDiscard | Empty, view: dict[str, Any]) -> bool:
    if isinstance(condition, StartDiscard):
        return (view["start_discard"] is not None) == condition.on
    return condition.cell not in view["grid"]


def cards_of(move: str) -> list[str]:
    words = move.split()
    if words[0] == "discard":
        return words[1:]
    return [words[1], *words[4:]]  # play <card> [<cell> [discard <card> ...]]


def gone(move: str, view: dict[str, Any]) -> str | None:
    hand = list(view["hand"])
    for card in cards_of(move):
        if card not in hand:
            return f"{card} is not in your hand"
        hand.remove(card)
    words = move.split()
    if words[0] == "play" and len(words) > 2 and words[2] in view["grid"]:
        return f"{words[2]} is filled"
    return None


def public(move: str) -> str:
    """What every seat sees of a move: discards are face down."""
    words = move.split()
    return "discard" if words[0] == "discard" else " ".join(words[:3])
