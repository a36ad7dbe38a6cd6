"""Holly Oak's conditions for standing orders (core/orders.py): parsed here, evaluated on what the
seat sees (its view). Pure; never decides a move (the rules do, when the order fires).

    <Season> is led      the trick's first card counts in that season (e.g. `Winter is led`)
    <Season> is current  the season is that one now (`Summer is current`)
    I lead               the trick is empty: the seat is to lead it

An order lasts for the round it was left in (the next round is a new deal), and is dropped once
its card has left the hand.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from core.games.holly_oak.events import Season

CONDITIONS = ("<Season> is led (Spring, Summer, Fall, Winter)", "<Season> is current", "I lead")
SCOPE_ENDED = "the round it was left in is over"
_SEASONS = {season.value.lower(): season for season in Season}
_SEASONAL = re.compile(r"(?P<season>[a-z]+)\s+is\s+(?P<what>led|current)")


@attrs.frozen
class Seasonal:
    season: Season
    what: str  # "led" or "current"

    def __str__(self) -> str:
        return f"{self.season.value} is {self.what}"


@attrs.frozen
class Leading:
    def __str__(self) -> str:
        return "I lead"


def parse_condition(text: str) -> Seasonal | Leading:
    words = " ".join(text.lower().split())
    if words == "i lead":
        return Leading()
    match = _SEASONAL.fullmatch(words)
    if match is None or match["season"] not in _SEASONS:
        raise ValueError(f"unknown condition {text!r}")
    return Seasonal(_SEASONS[match["season"]], match["what"])


def holds(condition: Seasonal | Leading, view: dict[str, Any]) -> bool:
    trick = view["trick"]
    if isinstance(condition, Leading):
        return not trick
    if condition.what == "current":
        return view["season"] == condition.season.value
    return bool(trick) and trick[0]["season"] == condition.season.value


def scope(move: str, view: dict[str, Any]) -> int:
    return view["round"]


def gone(move: str, view: dict[str, Any]) -> str | None:
    card = move.split()[1]
    return None if card in view["hand"] else f"{card} is not in your hand"
