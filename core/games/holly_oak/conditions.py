"""Holly Oak's conditions for standing orders (core/orders.py): parsed here, evaluated on what the
seat sees (its view). Pure; never decides a move (the rules do, when the order fires).

    <Season> is led             the trick's first card counts in that season (`Winter is led`)
    <Season> is current         the season is that one now (`Summer is current`)
    I lead                      the trick is empty: the seat is to lead it
    <card> beats the trick      played now, the card would be the trick's best so far: the
                                highest of the season then current (`8Wi beats the trick`); led
                                into an empty trick, any card does
    <card> does not beat the trick
    the trick holds a king      a king is among the cards played to the trick so far
    the trick holds no king
    I play last                 every other seat has played to the trick
    I have won a trick          this round
    I have won no trick         this round: the no-trick bonus is still the seat's to keep

An order lasts for the round it was left in (the next round is a new deal), and is dropped once
its card has left the hand.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from core.games.holly_oak import rules
from core.games.holly_oak.events import Season

CONDITIONS = (
    "<Season> is led (Spring, Summer, Fall, Winter)",
    "<Season> is current",
    "I lead",
    "<card> beats the trick",
    "<card> does not beat the trick",
    "the trick holds a king",
    "the trick holds no king",
    "I play last",
    "I have won a trick",
    "I have won no trick",
)
SCOPE_ENDED = "the round it was left in is over"
_SEASONS = {season.value.lower(): season for season in Season}
_SEASONAL = re.compile(r"(?P<season>[a-z]+)\s+is\s+(?P<what>led|current)")
_BEATS = re.compile(r"(?P<card>\S+)\s+(?P<beats>beats|does\s+not\s+beat)\s+the\s+trick")
_KING = re.compile(r"the\s+trick\s+holds\s+(?P<kings>a|no)\s+king")
_WON = re.compile(r"i\s+have\s+won\s+(?P<won>a|no)\s+trick")


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


@attrs.frozen
class Beats:
    card: str  # canonical text
    beats: bool  # False: the card would not beat the trick

    def __str__(self) -> str:
        return f"{self.card} {'beats' if self.beats else 'does not beat'} the trick"


@attrs.frozen
class TrickKing:
    holds: bool

    def __str__(self) -> str:
        return f"the trick holds {'a' if self.holds else 'no'} king"


@attrs.frozen
class Last:
    def __str__(self) -> str:
        return "I play last"


@attrs.frozen
class WonTrick:
    won: bool

    def __str__(self) -> str:
        return f"I have won {'a' if self.won else 'no'} trick"


Condition = Seasonal | Leading | Beats | TrickKing | Last | WonTrick


def parse_condition(text: str) -> Condition:
    words = " ".join(text.lower().split())
    if words == "i lead":
        return Leading()
    if words == "i play last":
        return Last()
    if match := _BEATS.fullmatch(words):
        if match["card"] not in rules.CARDS_BY_TEXT:
            raise ValueError(f"unknown condition {text!r}")
        return Beats(str(rules.card_of(match["card"])), match["beats"] == "beats")
    if match := _KING.fullmatch(words):
        return TrickKing(match["kings"] == "a")
    if match := _WON.fullmatch(words):
        return WonTrick(match["won"] == "a")
    match = _SEASONAL.fullmatch(words)
    if match is None or match["season"] not in _SEASONS:
        raise ValueError(f"unknown condition {text!r}")
    return Seasonal(_SEASONS[match["season"]], match["what"])


def holds(condition: Condition, view: dict[str, Any]) -> bool:
    trick = view["trick"]
    if isinstance(condition, Leading):
        return not trick
    if isinstance(condition, Last):
        return len(trick) == len(view["scores"]) - 1
    if isinstance(condition, Beats):
        played = [rules.Played(p["seat"], rules.card_of(p["card"]), Season(p["season"])) for p in trick]
        card = rules.card_of(condition.card)
        return rules.beats(played, Season(view["season"]), view["seat"], card) is condition.beats
    if isinstance(condition, TrickKing):
        return any(p["card"] in rules.KING_POINTS for p in trick) is condition.holds
    if isinstance(condition, WonTrick):
        return (view["tricks_won"][view["seat"]] > 0) is condition.won
    if condition.what == "current":
        return view["season"] == condition.season.value
    return bool(trick) and trick[0]["season"] == condition.season.value


def scope(move: str, view: dict[str, Any]) -> int:
    return view["round"]


def gone(move: str, view: dict[str, Any]) -> str | None:
    card = move.split()[1]
    return None if card in view["hand"] else f"{card} is not in your hand"
