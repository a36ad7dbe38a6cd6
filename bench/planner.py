"""A simple planner for bench/waits.py: a heuristic seat (workers/heuristic_players.py) that, each
time it is asked, leaves standing orders for its coming turns, as texts in the game's own order
language (core/orders.py, core/games/<game>/conditions.py). It plays nothing and fires nothing
itself (the bench fires orders with core.orders, the engine's own rule), never sees more than the
seat's view, and does no I/O; never imported by pbm.

How it plans: it asks the heuristic what it would play in the situations the game's conditions can
tell apart, and leaves that as an order for each. Where the heuristic's choice hangs on what the
conditions cannot see (the cards in a Holly Oak trick), it leaves an order only when one card is the
heuristic's choice in most of the tricks it draws (`agreement`); else the seat is asked.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from core.games.holiday_board import rules as board
from core.games.holidays import rules as holidays
from core.games.holly_oak import rules as holly
from core.games.holly_oak.events import Season
from core.games.tranquility import rules as tranquility
from core.orders import MAX_ORDERS
from workers.heuristic_players import bid_limit, holidays_player, holly_oak, tranquility_player, traveller_value

Planner = Callable[[dict[str, Any], random.Random], list[str]]

# Holly Oak: tricks drawn per (led, current) season to see how much the heuristic's card hangs on
# the trick's other cards, and the share of them that must agree for an order to be left. Measured
# (3 players, 60 seeds, planner vs heuristic win rate per seat-game, stops as a share of "asked"):
# 0.6: 33% of stops, 21% vs 46% (30 seeds); 0.75: 40%, 26% vs 41%; 0.9: 49%, 31% vs 35%, within noise.
SAMPLES = 24
AGREEMENT = 0.9
LEAD_RANKS = 2  # "I lead" orders per season: the best card, and the next once it is gone


def holly_oak_orders(view: dict[str, Any], rng: random.Random, agreement: float = AGREEMENT) -> list[str]:
    """Orders for the rest of the round: per current season, the cards the heuristic would lead
    (its choice when leading hangs only on the hand, the season and whether it has a trick yet);
    per led and current season, the card it would follow with in most tricks drawn."""
    me, hand = view["seat"], list(view["hand"])
    if not hand:
        return []
    won = max(view["tricks_won"][me], 1)  # a seat that leads has mostly just won a trick
    orders = []
    for season in holly.SEASONS:
        cards = [f"play {card}" for card in map(str, holly.lead_options([holly.card_of(c) for c in hand], season))]
        for _rank in range(LEAD_RANKS):
            if len(cards) < 2:
                break  # one card is a forced move, none is no lead
            card = holly_oak(supposed(view, season, [], won), cards, rng)
            orders.append(f"if I lead and {season.value} is current: {card}")
            cards.remove(card)
    seen = set(hand) | {played["card"] for played in view["trick"]}
    pool = [card for card in holly.deck(len(view["scores"])) if str(card) not in seen]
    for led in holly.SEASONS:
        for current in (led, holly.next_season(led)):
            legal = [f"play {c}" for c in holly.follow_options([holly.card_of(c) for c in hand], current)]
            if len(legal) < 2:
                continue
            picks = Counter(
                holly_oak(supposed(view, current, trick, view["tricks_won"][me]), legal, rng)
                for trick in drawn_tricks(pool, led, current, me, len(view["scores"]), rng)
            )
            if picks:
                card, count = picks.most_common(1)[0]
                if count >= agreement * sum(picks.values()):
                    orders.append(f"if {led.value} is led and {current.value} is current: {card}")
    return orders


def supposed(view: dict[str, Any], season: Season, trick: list[dict[str, Any]], won: int) -> dict[str, Any]:
    """The seat's view as it would be at a turn with this season and trick."""
    tricks_won = list(view["tricks_won"])
    tricks_won[view["seat"]] = won
    return {**view, "season": season.value, "trick": trick, "tricks_won": tricks_won}


def drawn_tricks(pool: list[holly.Card], led: Season, current: Season, me: int, players: int, rng: random.Random) -> list[list[dict[str, Any]]]:
    """Up to SAMPLES tricks of other seats' cards from `pool` (cards the seat has not seen), led in
    `led`, that leave `current` the season when it is the seat's turn."""
    leads = [card for card in pool if card.season is led]
    tricks: list[list[dict[str, Any]]] = []
    for _attempt in range(SAMPLES * 8):
        if len(tricks) >= SAMPLES or not leads:
            break
        before = rng.randrange(1, players)  # cards played before the seat's
        first = rng.choice(leads)
        rest = rng.sample([card for card in pool if card is not first], before - 1)
        season, trick = led, []
        for offset, card in enumerate([first, *rest]):
            season = led if offset == 0 else holly.season_after(season, card)
            counts_in = season if card.is_retreat else card.season
            trick.append({"seat": (me - before + offset) % players, "card": str(card), "season": counts_in.value})
        if season is current:
            tricks.append(trick)
    return tricks


def holidays_orders(view: dict[str, Any], rng: random.Random) -> list[str]:
    """Orders for the rest of the hand: per destination, how the heuristic would set off (its best
    combination while it beats what was played, else its low cards away) and whether it would
    accept or change. Its choices hang only on the hand, the destination and the best set-off, which
    the conditions name, so the orders play as it would."""
    me, hand = view["seat"], list(view["hand"])
    if not hand or view["phase"] not in ("choose", "setoff"):
        return []
    orders = []
    for where in holidays.DESTINATIONS:
        setoffs = [str(move) for move in holidays.setting_off_moves(where, tuple(hand)) if isinstance(move, holidays.SetOff)]
        if setoffs:
            best = max(setoffs, key=lambda text: sum(traveller_value(card) for card in text.split()[1:]))
            worth = sum(traveller_value(card) for card in best.split()[1:])
            orders.append(f"if the destination is {where} and the best set-off is below {worth}: {best}")
    orders.append(f"next: {holidays_player({**view, 'phase': 'setoff', 'set_off': []}, discards(hand), rng)}")
    if view["phase"] == "choose":
        left = [where for where in holidays.DESTINATIONS if where not in view["destinations_played"][me]]
        payments = [str(card) for card in holidays.sort_cards(set(hand))]
        changes = [f"change {where} pay {card}" for where in left for card in payments]
        staying = []
        for where in holidays.DESTINATIONS:
            choice = holidays_player({**view, "destination": where}, ["accept", *changes], rng)
            # A change is left to the seat: it pays a card, and every order after it would have
            # been planned for a hand the seat no longer holds.
            if choice == "accept":
                staying.append(where)
        if staying:
            unless = " and ".join(f"the destination is not {where}" for where in holidays.DESTINATIONS if where not in staying)
            head = f"if {unless}" if unless else "next"
            orders += [f"{head}: {stay}" for stay in ("accept", "confirm") for _round in range(2)]
    return orders


def discards(hand: list[str]) -> list[str]:
    """The discards the heuristic chooses among when it sets off with nothing (every card shown)."""
    low = " ".join(card for card in hand if traveller_value(card) <= 4)
    return ["discard", f"discard {low}".strip()]


def holiday_board_orders(view: dict[str, Any], _rng: random.Random) -> list[str]:
    """Orders for the rest of the auction the seat is bidding in: pass once the lowest bid is over
    what the heuristic is willing to pay, else bid the minimum, as often as orders allow. The
    heuristic's limit hangs only on the hand, the seat's money and the day, which stay put through
    an auction (an order to bid lasts the auction it was left in), so the orders bid as it would.
    None are left outside an auction: the day can move on before the next one with the money
    unchanged, and the orders would outlive the limit. Flights and sights are left to the seat."""
    if view["phase"] != "bidding" or view["auction"] is None or not view["hand"]:
        return []
    willing = math.floor(bid_limit(view))  # bids are whole dollars
    # The lowest bid is the high bid plus a step: it is over `willing` once the bid is over this.
    passing = max(willing - board.BID_STEP, 0)
    return [f"if the bid is above ${passing}: pass"] + [f"if the minimum bid is at most ${willing}: bid min"] * (MAX_ORDERS - 1)


def tranquility_orders(view: dict[str, Any], rng: random.Random) -> list[str]:
    """Orders for the seat's next ordinary turn: the heuristic's choices on the grid as it is now,
    best first, down to its best discard (always legal, so nothing after it would fire). A play
    fires while its cell is empty and still takes the cards it names (its neighbours unchanged);
    else the next one is tried. Others' placements can open a better play that the orders do not
    know of: the seat's next turn is then played a little worse than the heuristic would. The
    alternatives that did not fire stay (the language has no "this turn only"; those that share
    a card with the move played are dropped) and may fire on a later turn. A Start's discard is
    left to the seat. Measured (20 seeds, all seats the planner vs all the heuristic): the same
    cells filled within noise (34.4 vs 34.4, 34.0 vs 34.4, 34.7 vs 34.7 for 2, 3 and 4 players)."""
    hand = list(view["hand"])
    if view["result"] is not None or len(hand) < 2 or tranquility.START in hand or tranquility.FINISH in hand:
        return []  # a Start or a Finish is played by pbm when due (a forced move)
    grid = [0] * tranquility.CELLS
    for cell, number in view["grid"].items():
        grid[tranquility.CELL_INDEX[cell]] = number
    # placements() reads only the grid of the state it is given.
    moves = [str(move) for move in tranquility.placements(SimpleNamespace(grid=tuple(grid)), hand)]
    moves += [str(tranquility.Discard(pair)) for pair in tranquility.distinct_combinations(hand, 2)]
    ordinary = {**view, "start_discard": None}
    orders = []
    while moves and len(orders) < MAX_ORDERS:
        move = tranquility_player(ordinary, moves, rng)
        moves.remove(move)
        words = move.split()
        if words[0] == "discard":
            orders.append(f"if the Start's discard is not on: {move}")
            break
        orders.append(f"if the Start's discard is not on and {words[2]} is empty: {move}")
    return orders


PLANNERS: dict[str, Planner] = {
    "holly-oak": holly_oak_orders,
    "holidays": holidays_orders,
    "holiday-board": holiday_board_orders,
    "tranquility": tranquility_orders,
}
