"""Holidays' conditions for standing orders (core/orders.py): parsed here, evaluated on what the
seat sees (its view). Pure; never decides a move (the rules do, when the order fires).

    the destination is <destination>       (`the destination is venice`)
    the destination is not <destination>
    the value is at least <n>              the holiday's value shown to everyone
    the best set-off is below <n>          no combination played this hand scores n or more

The destination conditions are what save stops (bench/waits.py): a seat answers every round of
acceptances and sets off once the destination is final, and both depend mostly on where the trip
goes. An order lasts for the hand it was left in (hands are refilled after it) and is dropped once
a card it names has left the hand, or a destination it names was played.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from core.games.holidays.rules import DESTINATIONS, parse_card

CONDITIONS = (
    "the destination is <destination> (venice, mykonos, park, berghotel, cruise)",
    "the destination is not <destination>",
    "the value is at least <n>",
    "the best set-off is below <n>",
)
SCOPE_ENDED = "the hand it was left in is over"
_DESTINATION = re.compile(r"the destination is (?P<not>not )?(?P<where>[a-z]+)")
_NUMBER = re.compile(r"the (?P<what>value is at least|best set-off is below) (?P<n>\d{1,4})")


@attrs.frozen
class Destination:
    where: str
    negated: bool = False

    def __str__(self) -> str:
        return f"the destination is {'not ' if self.negated else ''}{self.where}"


@attrs.frozen
class Threshold:
    what: str  # "value is at least" or "best set-off is below"
    n: int

    def __str__(self) -> str:
        return f"the {self.what} {self.n}"


def parse_condition(text: str) -> Destination | Threshold:
    words = " ".join(text.lower().split())
    match = _DESTINATION.fullmatch(words)
    if match is not None and match["where"] in DESTINATIONS:
        return Destination(match["where"], bool(match["not"]))
    match = _NUMBER.fullmatch(words)
    if match is not None:
        return Threshold(match["what"], int(match["n"]))
    raise ValueError(f"unknown condition {text!r}")


def holds(condition: Destination | Threshold, view: dict[str, Any]) -> bool:
    if isinstance(condition, Destination):
        return (view["destination"] == condition.where) != condition.negated
    if condition.what == "value is at least":
        return view["holiday_value"] >= condition.n
    best = max((record["score"] for record in view["set_off"] if record["combination"]), default=0)
    return best < condition.n


def scope(move: str, view: dict[str, Any]) -> int:
    return view["hand_number"]


def gone(move: str, view: dict[str, Any]) -> str | None:
    words = move.split()
    hand = list(view["hand"])
    for card in (parse_card(word) for word in words[1:]):
        if card is None:
            continue
        if card not in hand:
            return f"{card} is not in your hand"
        hand.remove(card)
    if words[0] in ("propose", "change") and words[1] in view["destinations_played"][view["seat"]]:
        return f"you have played your {words[1]} card"
    return None
