"""Holiday!'s moves as a person picks them (core/menus.py): a bid is offered as the least bid, a
few steps up and the seat's own money (the page adds a field for any amount); a flight is a city
picked on the map (the first flight may go anywhere: every city of the board); and the patterns a
message lists. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.games.holiday_board.rules import BID_STEP, dollars
from core.menus import Pattern, Step, patterns as by_pattern, spread

RAISES = (BID_STEP, 5 * BID_STEP, 10 * BID_STEP)  # the steps up from the least bid the page offers


def bid_amounts(moves: Sequence[str]) -> list[int]:
    return sorted({int(move.split()[1]) for move in moves if move.startswith("bid ")})


def bid_offers(view: Mapping[str, Any]) -> list[tuple[int, str]]:
    """(amount, what it is) of the bids worth a button: the least, a few steps up, the seat's own
    money; only amounts the seat may bid now, each once, in rising order."""
    amounts = bid_amounts(view["legal_moves"])
    if not amounts:
        return []
    least, most = amounts[0], amounts[-1]
    offers = {least: "the least"}
    for step in RAISES:
        offers.setdefault(least + step, f"{dollars(step)} more")
    seat = view["seat"]
    if seat is not None:
        offers[view["money"][seat]] = "all your money"
    return sorted((amount, label) for amount, label in offers.items() if least <= amount <= most)


STEPS = (Step("to", "Pick the city to fly to", lambda move: move.split()[1], board=True),)


def stepped(view: Mapping[str, Any]) -> list[str]:
    """The moves the steps lead to: the flights (a bid has its own form, the rest are few)."""
    return [move for move in view["legal_moves"] if move.startswith("fly ")]


def steps(view: Mapping[str, Any]) -> Sequence[Step]:
    return STEPS


def pattern_of(move: str) -> str:
    words = move.split()
    if words[0] == "bid":
        return "bid <amount> to <city>" if len(words) > 2 else "bid <amount>"
    if words[0] in ("fly", "see"):
        return f"{words[0]} <{'city' if words[0] == 'fly' else 'card'}>"
    return move


def patterns(view: Mapping[str, Any]) -> list[Pattern]:
    offers = [amount for amount, _label in bid_offers(view)]

    def examples(pattern: str, moves: Sequence[str]) -> tuple[tuple[str, ...], str]:
        if not pattern.startswith("bid <amount>"):
            return spread(moves), ""
        amounts = bid_amounts(moves)
        shown = spread([f"bid {amount}" for amount in offers]) if pattern == "bid <amount>" else spread(moves)
        note = f"{dollars(amounts[0])} (the least) to {dollars(amounts[-1])}, in hundreds"
        if view["seat"] is not None:
            note += f"; you have {dollars(view['money'][view['seat']])}"
        return shown, note

    return by_pattern(view["legal_moves"], pattern_of, examples)
