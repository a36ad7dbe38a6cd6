"""A simple planner for bench/waits.py: a heuristic seat (workers/heuristic_players.py) that, each
time it is asked, leaves standing orders for its coming turns, as texts in the game's own order
language (core/orders.py, core/games/<game>/conditions.py). It plays nothing and fires nothing
itself (the bench fires orders with core.orders, the engine's own rule), never sees more than the
seat's view, and does no I/O; never imported by pbm.

How it plans: it asks the heuristic what it would play in the situations the game's conditions can
tell apart, and leaves that as an order for each. In Holly Oak, whose choices hang on the trick's
cards, it draws situations the seat cannot see and leaves the decision list of orders that plays
the heuristic's card in each of them it covers (bench/waits.py counts how often a fired order
played the heuristic's move).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from core.games.holiday_board import rules as board
from core.games.holidays import rules as holidays
from core.games.holly_oak import conditions as holly_conditions
from core.games.holly_oak import rules as holly
from core.games.holly_oak.events import Season
from core.games.tranquility import rules as tranquility
from core.orders import MAX_ORDERS
from workers.heuristic_players import bid_limit, holidays_player, holly_oak, tranquility_player, traveller_value

Planner = Callable[[dict[str, Any], random.Random], list[str]]

# Holly Oak: situations drawn per plan (the seat's coming turns in this round: a lead, or a trick
# with other seats' cards, in the hand as it is or with a few cards already played: SHORT_BY), and
# the seasons they are drawn in, by how far from the season now (this one, the next, ...).
# Measured (6 seeds, 3 players), the share of fired orders that played the heuristic's card: 240
# draws, one or two cards short, an order's season optional: 85%; 480 draws, up to 8 short: 95%;
# its season always named: 98%; the most specific order first among equals: 99%.
SITUATIONS = 480
SEASON_WEIGHTS = (4, 3, 1, 1)
SHORT_BY = (0, 0, 1, 2, 3, 4, 6, 8)
FIXED_TIES = SimpleNamespace(random=lambda: 0.0)  # the heuristic's tie-break, fixed: one choice per situation


def holly_oak_orders(view: dict[str, Any], rng: random.Random) -> list[str]:
    """Orders for the rest of the round: a decision list, learned from the heuristic's own choices
    in situations drawn from what the seat cannot see, whose first order to fire in each is the
    heuristic's card there. Its conditions name everything that choice hangs on (whether the
    seat leads, the season, which of its cards beat the trick, whether the trick holds a king,
    whether the seat plays last and has won a trick), so in every situation drawn the order that
    fires plays the heuristic's card (up to its random tie-breaks), or none fires and the seat is
    asked. In a trick unlike any drawn (or whose kings are worth more than one point, which the
    heuristic weighs) an order may play another card: bench/waits.py counts how often."""
    if not view["hand"]:
        return []
    situations = drawn_situations(view, rng)
    general = [*(f"{season.value} is current" for season in holly.SEASONS), "I lead", "the trick holds a king", "the trick holds no king", "I play last"]
    if view["tricks_won"][view["seat"]] == 0:
        general += ["I have won a trick", "I have won no trick"]
    tests = [(atom, holly_conditions.parse_condition(atom)) for atom in general]
    # Per condition (and per move: where it is legal, where it is the heuristic's choice), the
    # situations it holds in, as bits.
    holds: defaultdict[str, int] = defaultdict(int)
    legal: defaultdict[str, int] = defaultdict(int)
    chosen: defaultdict[str, int] = defaultdict(int)
    for index, (supposed, moves, choice) in enumerate(situations):
        bit = 1 << index
        for atom, test in tests:
            if holly_conditions.holds(test, supposed):
                holds[atom] |= bit
        for move in moves:
            card = move.split()[1]
            beats = holly_conditions.holds(holly_conditions.Beats(card, True), supposed)
            holds[f"{card} {'beats' if beats else 'does not beat'} the trick"] |= bit
            legal[move] |= bit
        chosen[choice] |= bit
    rules = []
    for move in legal:
        card = move.split()[1]
        for when in conditions_for(card, general):
            fits = legal[move]
            for atom in when:
                fits &= holds[atom]
            if fits & chosen[move]:
                rules.append((when, move, fits, fits & ~chosen[move]))
    return decision_list(rules, (1 << len(situations)) - 1)


def conditions_for(card: str, atoms: list[str]) -> list[tuple[str, ...]]:
    """The conjunctions an order for `card` may hold: whether the seat leads or the card beats
    the trick, the season, the trick's kings, playing last, a trick won."""
    seasons = [atom for atom in atoms if atom.endswith("is current")]
    won = [None, *(atom for atom in atoms if atom.startswith("I have won"))]
    found = []
    for base in (None, "I lead", f"{card} beats the trick", f"{card} does not beat the trick"):
        leading = base == "I lead"
        for season in seasons:
            for kings in (None,) if leading else (None, "the trick holds a king", "the trick holds no king"):
                for last in (None,) if leading else (None, "I play last"):
                    for trick_won in won:
                        found.append(tuple(atom for atom in (base, season, kings, last, trick_won) if atom is not None))
    return found


def decision_list(rules: list[tuple[tuple[str, ...], str, int, int]], remaining: int) -> list[str]:
    """Orders, greedily: each time the rule (conditions, move, where it fits, where it fits but is
    not the heuristic's choice) that plays the heuristic's card in most of the situations no order
    before it fits, and in none of them another card; among equals the one with most conditions
    (it fits fewer of the situations not drawn)."""
    orders = []
    while len(orders) < MAX_ORDERS and remaining:
        best = max(
            (rule for rule in rules if not rule[3] & remaining),
            key=lambda rule: ((rule[2] & remaining).bit_count(), len(rule[0])),
            default=None,
        )
        if best is None or not best[2] & remaining:
            break
        when, move, fits, _wrong = best
        orders.append(f"if {' and '.join(when)}: {move}" if when else f"next: {move}")
        remaining &= ~fits
    return orders


def drawn_situations(view: dict[str, Any], rng: random.Random) -> list[tuple[dict[str, Any], list[str], str]]:
    """Up to SITUATIONS turns of the seat with a choice, drawn from what it cannot see: the hand
    as it is or a few cards short, a trick won by then or not, the season near this one, and a
    lead or a trick of cards the seat has not seen. Each with its legal moves and the heuristic's
    choice."""
    me, players = view["seat"], len(view["scores"])
    hand = [holly.card_of(card) for card in view["hand"]]
    seen = set(view["hand"]) | {played["card"] for played in view["trick"]}
    pool = [card for card in holly.deck(players) if str(card) not in seen]
    now = holly.SEASONS.index(Season(view["season"]))
    seasons = [holly.SEASONS[(now + step) % 4] for step in range(4)]
    situations = []
    for _draw in range(SITUATIONS):
        held = rng.sample(hand, min(len(hand), max(2, len(hand) - rng.choice(SHORT_BY))))
        won = view["tricks_won"][me] or rng.choice((0, 1))
        led = rng.choices(seasons, SEASON_WEIGHTS)[0]
        trick, season = drawn_trick(pool, led, me, players, rng.randrange(players), rng)
        options = holly.follow_options(held, season) if trick else holly.lead_options(held, season)
        if len(options) < 2:
            continue  # one card is a forced move; none is no lead
        legal = [f"play {card}" for card in options]
        tricks_won = list(view["tricks_won"])
        tricks_won[me] = won
        supposed = {**view, "hand": holly.texts(held), "season": season.value, "trick": trick, "tricks_won": tricks_won}
        situations.append((supposed, legal, holly_oak(supposed, legal, FIXED_TIES)))
    return situations


def drawn_trick(pool: list[holly.Card], led: Season, me: int, players: int, before: int, rng: random.Random) -> tuple[list[dict[str, Any]], Season]:
    """A trick of `before` cards from `pool` (none: the seat leads in `led`), the first of them
    led in `led`, as the view shows it, and the season current after them."""
    leads = [card for card in pool if card.season is led]
    if not before or not leads:
        return [], led
    first = rng.choice(leads)
    cards = [first, *rng.sample([card for card in pool if card is not first], before - 1)]
    played, season = (), led
    for offset, card in enumerate(cards):
        seat = (me - before + offset) % players
        if offset == 0:
            played = (holly.Played(seat, card, led),)
        else:
            played, season = holly.played_into(played, season, seat, card)
    return [{"seat": p.seat, "card": str(p.card), "season": p.season.value} for p in played], season


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
