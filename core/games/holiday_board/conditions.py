"""Holiday!'s conditions for standing orders (core/orders.py): parsed here, evaluated on what the
seat sees (its view). Pure; never decides a move (the rules do, when the order fires).

    the bid is above $<n>            the auction's high bid is more than n (`the bid is above $3,000`)
    the bid is at most $<n>
    the minimum bid is at most $<n>  the lowest bid the seat may make now

and one move that only an order has: `bid min`, the lowest legal bid when the order fires. So
"pass when the bid is above $3,000" is `if the bid is above $3,000: pass`, and "bid the minimum
up to $2,400" is `if the minimum bid is at most $2,400: bid min` (an order is used once: leave
it as often as you would raise).

An order to bid or pass lasts for the auction it was left in (pbm tells auctions apart by the
money in play, which only a charter paid or a forfeit changes); an order to see a sight is
dropped once its card has left the hand.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

CONDITIONS = ("the bid is above $<n>", "the bid is at most $<n>", "the minimum bid is at most $<n>")
SCOPE_ENDED = "the auction it was left in is over"
BID_MIN = "bid min"
_AMOUNT = re.compile(r"the (?P<what>bid is above|bid is at most|minimum bid is at most) \$?(?P<n>\d{1,3}(?:,\d{3})+|\d{1,9})")


@attrs.frozen
class Amount:
    what: str
    n: int

    def __str__(self) -> str:
        return f"the {self.what} ${self.n:,}"


def parse_condition(text: str) -> Amount:
    match = _AMOUNT.fullmatch(" ".join(text.lower().split()))
    if match is None:
        raise ValueError(f"unknown condition {text!r}")
    return Amount(match["what"], int(match["n"].replace(",", "")))


def minimum_bid(view: dict[str, Any]) -> int | None:
    bids = [int(move.split()[1]) for move in view["legal_moves"] if move.startswith("bid ")]
    return min(bids, default=None)


def holds(condition: Amount, view: dict[str, Any]) -> bool:
    auction = view["auction"]
    if auction is None:
        return False
    if condition.what == "minimum bid is at most":
        lowest = minimum_bid(view)
        return lowest is not None and lowest <= condition.n
    high = auction["high_bid"] or 0
    return high > condition.n if condition.what == "bid is above" else high <= condition.n


def order_move(text: str) -> str | None:
    return BID_MIN if " ".join(text.lower().split()) == BID_MIN else None


def resolve(move: str, view: dict[str, Any]) -> str | None:
    if move != BID_MIN:
        return move
    lowest = minimum_bid(view)
    return None if lowest is None else f"bid {lowest}"


def scope(move: str, view: dict[str, Any]) -> int | None:
    return sum(view["money"]) if move.split()[0] in ("bid", "pass") else None


def gone(move: str, view: dict[str, Any]) -> str | None:
    words = move.split()
    if words[0] == "see" and words[1] not in view["hand"]:
        return f"{words[1]} is not in your hand"
    return None
