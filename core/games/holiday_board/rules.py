"""Holiday! rules: the state, the moves and the contract functions. Pure: rule checks only in
`decide`; `evolve` only applies events; the automatic steps (opening auctions, paying, the die,
skipping players without a card of the city, the week) are decided by `settle`, inside the
command that leads to them, and recorded as events."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Any

import attrs

from core.contract import IllegalMove, OptionValue, Outcome, SetupError, seat_name, with_item
from core.games.holiday_board.board import CARD_ID, SLUG, Board, Card, load_board
from core.games.holiday_board.events import (
    AuctionOpened,
    BidMade,
    CharterForfeited,
    DayAdvanced,
    Dealt,
    DieRolled,
    EndReason,
    GameEnded,
    Passed,
    PlaneChartered,
    PlaneFlew,
    SightSeen,
    SightSkipped,
)

# ---- house decisions and the rulebook's numbers (listed in the package docstring) ----
OPTIONS: dict[str, OptionValue] = {
    "board": "",  # another board's JSON text; "" = the shipped board
    "open_destinations": False,  # the rulebook's variation: a bid may name its destination
}
STARTING_MONEY = 10_000
BID_STEP = 100  # bids are whole multiples of $100, at least $100
FIRST_OPENER = 0  # the first auction starts with seat 0; later ones with the seat after the charterer
HAND_SIZE_BY_PLAYERS = {7: 9, 8: 8}  # 10 cards with 2-6 players
DEFAULT_HAND_SIZE = 10
BEST_DAY_POINTS = 7000
POINTS_LOST_PER_DAY = 1000
DIE_SIDES = 6  # 1 = the board's first day (Monday) ... 6 = Saturday
FULL_DAY_NAMES = {
    "mon": "Monday",
    "tue": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}


def hand_size(players: int) -> int:
    return HAND_SIZE_BY_PLAYERS.get(players, DEFAULT_HAND_SIZE)


def sight_points(today: int, best_day: int) -> int:
    """7000 on the best day, 1000 fewer per day later; six days late (= a day early) gives 1000."""
    return BEST_DAY_POINTS - POINTS_LOST_PER_DAY * ((today - best_day) % 7)


# ---- moves ----

@attrs.frozen
class Bid:
    amount: int
    destination: str = ""  # a city slug, only with open destinations

    def __str__(self) -> str:
        return f"bid {self.amount}" + (f" to {self.destination}" if self.destination else "")


@attrs.frozen
class Pass:
    def __str__(self) -> str:
        return "pass"


@attrs.frozen
class Fly:
    city: str

    def __str__(self) -> str:
        return f"fly {self.city}"


@attrs.frozen
class See:
    card: str

    def __str__(self) -> str:
        return f"see {self.card}"


@attrs.frozen
class Skip:
    def __str__(self) -> str:
        return "skip"


Move = Bid | Pass | Fly | See | Skip
DIGITS = re.compile(r"[0-9]+\Z")  # plain digits: no "$", no commas
EXPECTED = (
    "expected 'bid <dollars>', 'bid <dollars> to <city>', 'pass', 'fly <city>', 'see <card>' or 'skip'"
)


def parse_move(text: str) -> Move:
    words = text.lower().split()
    match words:
        case ["pass"]:
            return Pass()
        case ["skip"]:
            return Skip()
        case ["bid", amount] if DIGITS.match(amount):
            return Bid(int(amount))
        case ["bid", amount, "to", city] if DIGITS.match(amount) and SLUG.match(city):
            return Bid(int(amount), city)
        case ["fly", city] if SLUG.match(city):
            return Fly(city)
        case ["see", card] if CARD_ID.match(card):
            return See(card)
    hint = " (bids are plain digits, e.g. 'bid 1200')" if words[:1] == ["bid"] else ""
    raise IllegalMove(f"malformed move {text!r}: {EXPECTED}{hint}")


# ---- state ----

class Phase(str, enum.Enum):
    DEALING = "dealing"
    OPENING = "opening"  # an auction is due (or the end, if someone has used their last card)
    BIDDING = "bidding"
    FLYING = "flying"
    SIGHTSEEING = "sightseeing"
    OVER = "over"


@attrs.frozen
class Auction:
    opener: int
    cap: int  # the highest legal bid: all players' money when the auction opened
    turn: int | None = None  # who bids or passes now; None once the auction is decided
    high_bid: int = 0
    high_bidder: int | None = None
    destination: str = ""  # the city named with the high bid (open destinations)
    passed: tuple[int, ...] = ()


@attrs.frozen
class State:
    board: Board
    players: int
    open_destinations: bool
    phase: Phase = Phase.DEALING
    hands: tuple[tuple[str, ...], ...] = ()
    money: tuple[int, ...] = ()
    points: tuple[int, ...] = ()
    seen: tuple[tuple[str, ...], ...] = ()  # the cards each seat has used, face up
    fixed_die: int = 0  # the first roll when the deal fixed it
    opener: int = FIRST_OPENER  # who opens the next auction
    auction: Auction | None = None
    charterer: int | None = None
    destination: str = ""  # named with the winning bid: the plane flies there at once
    city: str = ""  # the plane's city; "" before the first flight
    day: int | None = None  # index into board.days; None before the first die roll
    sightseer: int | None = None  # whose turn it is to see a sight
    end: EndReason | None = None


def replace(state: State, **changes: Any) -> State:
    return attrs.evolve(state, **changes)


# ---- setup ----

def initial(players: int, options: Mapping[str, OptionValue]) -> State:
    board = load_board(options.get("board", OPTIONS["board"]))
    needed = players * hand_size(players)
    if len(board.cards) < needed:
        raise SetupError(
            f"board: it has {len(board.cards)} cards; {players} players need {needed}"
            f" ({hand_size(players)} each)"
        )
    return State(
        board=board,
        players=players,
        open_destinations=bool(options.get("open_destinations", OPTIONS["open_destinations"])),
        hands=((),) * players,
        money=(STARTING_MONEY,) * players,
        points=(0,) * players,
        seen=((),) * players,
    )


def setup(
    players: int, options: Mapping[str, OptionValue], deal: Mapping[str, Any] | None, rng: Any
) -> list[Any]:
    state = initial(players, options)
    if deal is None:
        cards = rng.shuffled([card.id for card in state.board.cards])
        size = hand_size(players)
        hands = tuple(tuple(sorted(cards[seat * size : (seat + 1) * size])) for seat in range(players))
        dealt = Dealt(hands=hands, die=0)
    else:
        dealt = read_deal(deal, state.board, players)
    return [dealt, *settle(evolve(state, dealt), rng)]


def read_deal(deal: Mapping[str, Any], board: Board, players: int) -> Dealt:
    unknown = sorted(set(deal) - {"hands", "die"})
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise SetupError(f"a holiday-board deal has 'hands' and optionally 'die', not {names}")
    hands = deal.get("hands")
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise SetupError(f"deal: 'hands' must list {players} hands, one per seat")
    size = hand_size(players)
    dealt: list[tuple[str, ...]] = []
    taken: set[str] = set()
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)) or len(hand) != size:
            raise SetupError(
                f"deal: seat {seat}'s hand must have exactly {size} cards with {players} players"
            )
        # Card ids are read like move texts: case and surrounding spaces do not matter.
        cards = [card.strip().lower() if isinstance(card, str) else card for card in hand]
        for card in cards:
            if not isinstance(card, str) or card not in board.card_by_id:
                raise SetupError(f"deal: {card!r} (seat {seat}) is not a card of this board")
            if card in taken:
                raise SetupError(f"deal: card {card} is dealt twice")
            taken.add(card)
        dealt.append(tuple(sorted(cards)))
    die = deal.get("die", 0)
    if "die" in deal and (type(die) is not int or not 1 <= die <= DIE_SIDES):
        raise SetupError(f"deal: 'die' must be a whole number from 1 to {DIE_SIDES}, not {die!r}")
    return Dealt(hands=tuple(dealt), die=die)


# ---- whose turn, what is legal ----

def to_act(state: State) -> tuple[int, ...]:
    if state.phase is Phase.BIDDING and state.auction.turn is not None:
        return (state.auction.turn,)
    if state.phase is Phase.FLYING and not state.destination:
        return (state.charterer,)
    if state.phase is Phase.SIGHTSEEING and state.sightseer is not None:
        return (state.sightseer,)
    return ()


def destinations(state: State) -> tuple[str, ...]:
    """Where the plane may fly next: anywhere on the first flight, then only a linked city."""
    if not state.city:
        return state.board.slugs
    return state.board.city_by_slug[state.city].links


def cards_here(state: State, seat: int) -> list[str]:
    return [card for card in state.hands[seat] if state.board.card_by_id[card].city == state.city]


def lowest_bid(auction: Auction) -> int:
    return auction.high_bid + BID_STEP


def legal_moves(state: State, seat: int) -> list[Move]:
    if seat not in to_act(state):
        return []
    if state.phase is Phase.BIDDING:
        return [Pass(), *legal_bids(state)]
    if state.phase is Phase.FLYING:
        return [Fly(city) for city in destinations(state)]
    return [Skip(), *(See(card) for card in cards_here(state, seat))]


def legal_bids(state: State) -> list[Bid]:
    amounts = range(lowest_bid(state.auction), state.auction.cap + 1, BID_STEP)
    if not state.open_destinations:
        return [Bid(amount) for amount in amounts]
    named = destinations(state)
    return [bid for amount in amounts for bid in (Bid(amount), *(Bid(amount, city) for city in named))]


# ---- decide ----

def decide(state: State, seat: int, move: Move, rng: Any) -> list[Any]:
    events = move_events(state, seat, move)
    after = state
    for event in events:
        after = evolve(after, event)
    return events + settle(after, rng)


MOVE_PHASE = {
    Bid: Phase.BIDDING,
    Pass: Phase.BIDDING,
    Fly: Phase.FLYING,
    See: Phase.SIGHTSEEING,
    Skip: Phase.SIGHTSEEING,
}


def move_events(state: State, seat: int, move: Move) -> list[Any]:
    if MOVE_PHASE[type(move)] is not state.phase:
        raise IllegalMove(f"'{move}' does not fit now: {WHAT_NOW[state.phase]}")
    match move:
        case Bid():
            check_bid(state, move)
            return [BidMade(seat, move.amount, move.destination)]
        case Pass():
            return [Passed(seat)]
        case Fly():
            check_destination(state, move.city)
            return [PlaneFlew(seat, move.city)]
        case See():
            card = check_sight(state, seat, move.card)
            return [SightSeen(seat, card.id, sight_points(state.day, card.best_day))]
        case Skip():
            return [SightSkipped(seat, held_card=True)]
    raise AssertionError(move)


WHAT_NOW = {
    Phase.BIDDING: "it is time to bid or pass",
    Phase.FLYING: "the charterer must name the city to fly to ('fly <city>')",
    Phase.SIGHTSEEING: "it is time to see a sight ('see <card>') or skip",
    Phase.DEALING: "the game has not started",
    Phase.OPENING: "an auction is about to open",
    Phase.OVER: "the game is over",
}


def check_bid(state: State, bid: Bid) -> None:
    auction = state.auction
    if bid.amount % BID_STEP:
        raise IllegalMove(f"bids go in steps of ${BID_STEP}: {bid.amount} is not a multiple of {BID_STEP}")
    if bid.amount < lowest_bid(auction):
        if auction.high_bid:
            raise IllegalMove(f"a bid must be above the high bid of {dollars(auction.high_bid)}")
        raise IllegalMove(f"a bid must be at least {dollars(BID_STEP)}")
    if bid.amount > auction.cap:
        raise IllegalMove(
            f"the highest bid in this auction is {dollars(auction.cap)} (all the money in play when it opened)"
        )
    if bid.destination:
        if not state.open_destinations:
            raise IllegalMove(
                "destinations are not announced while bidding (the open_destinations option is off)"
            )
        check_destination(state, bid.destination)


def check_destination(state: State, city: str) -> None:
    if city not in state.board.city_by_slug:
        raise IllegalMove(f"there is no city {city!r} on this board")
    if city not in destinations(state):
        here, there = state.board.city_name(state.city), state.board.city_name(city)
        raise IllegalMove(f"the plane cannot fly from {here} to {there}: they are not linked")


def check_sight(state: State, seat: int, card_id: str) -> Card:
    card = state.board.card_by_id.get(card_id)
    if card is None:
        raise IllegalMove(f"there is no card {card_id!r} on this board")
    if card_id not in state.hands[seat]:
        raise IllegalMove(f"you do not hold {card_id}")
    if card.city != state.city:
        its_city, here = state.board.city_name(card.city), state.board.city_name(state.city)
        raise IllegalMove(f"{card_id} is a sight of {its_city}; the plane is in {here}")
    return card


# ---- the automatic steps ----

def settle(state: State, rng: Any) -> list[Any]:
    """The events that follow by themselves until someone must move (or the game is over)."""
    events = []
    while (event := next_automatic(state, rng)) is not None:
        events.append(event)
        state = evolve(state, event)
    return events


def next_automatic(state: State, rng: Any) -> Any:
    if state.phase is Phase.OPENING:
        if any(not hand for hand in state.hands):
            return GameEnded(EndReason.LAST_CARD)
        return AuctionOpened(state.opener, cap=sum(state.money))
    if state.phase is Phase.BIDDING and state.auction.turn is None:
        return auction_result(state, state.auction)
    if state.phase is Phase.FLYING and state.destination:
        return PlaneFlew(state.charterer, state.destination)
    if state.phase is Phase.SIGHTSEEING:
        if state.day is None:
            return DieRolled(state.fixed_die or rng.roll(DIE_SIDES))
        if state.sightseer is None:
            return DayAdvanced((state.day + 1) % len(state.board.days))
        if not cards_here(state, state.sightseer):
            return SightSkipped(state.sightseer, held_card=False)
    return None


def auction_result(state: State, auction: Auction) -> Any:
    winner = auction.high_bidder
    if winner is None:
        return GameEnded(EndReason.NO_BID)
    if state.money[winner] < auction.high_bid:
        return CharterForfeited(winner, auction.high_bid, state.money[winner])
    return PlaneChartered(winner, auction.high_bid, auction.destination)


# ---- evolve ----

def evolve(state: State, event: Any) -> State:
    match event:
        case Dealt(hands=hands, die=die):
            return replace(state, hands=hands, fixed_die=die, phase=Phase.OPENING)
        case AuctionOpened(opener=opener, cap=cap):
            auction = with_turn(state, Auction(opener=opener, cap=cap), start=opener)
            return replace(state, phase=Phase.BIDDING, auction=auction, charterer=None)
        case BidMade(seat=seat, amount=amount, destination=destination):
            auction = attrs.evolve(state.auction, high_bid=amount, high_bidder=seat, destination=destination)
            return replace(state, auction=with_turn(state, auction, start=seat + 1))
        case Passed(seat=seat):
            auction = attrs.evolve(state.auction, passed=tuple(sorted((*state.auction.passed, seat))))
            return replace(state, auction=with_turn(state, auction, start=seat + 1))
        case PlaneChartered(seat=seat, amount=amount, destination=destination):
            return replace(
                state,
                phase=Phase.FLYING,
                money=with_item(state.money, seat, state.money[seat] - amount),
                auction=None,
                charterer=seat,
                destination=destination,
                opener=(seat + 1) % state.players,
            )
        case CharterForfeited(seat=seat):
            # The same seat opens the new auction: state.opener is left as it is.
            return replace(state, phase=Phase.OPENING, money=with_item(state.money, seat, 0), auction=None)
        case PlaneFlew(city=city):
            return replace(state, phase=Phase.SIGHTSEEING, city=city, destination="", sightseer=state.charterer)
        case DieRolled(roll=roll):
            return replace(state, day=roll - 1)
        case SightSeen(seat=seat, card=card, points=points):
            return replace(
                state,
                hands=with_item(state.hands, seat, tuple(c for c in state.hands[seat] if c != card)),
                seen=with_item(state.seen, seat, (*state.seen[seat], card)),
                points=with_item(state.points, seat, state.points[seat] + points),
                sightseer=next_sightseer(state, seat),
            )
        case SightSkipped(seat=seat):
            return replace(state, sightseer=next_sightseer(state, seat))
        case DayAdvanced(day=day):
            return replace(state, day=day, phase=Phase.OPENING, sightseer=None)
        case GameEnded(reason=reason):
            return replace(state, phase=Phase.OVER, end=reason, auction=None)
    raise TypeError(f"not a holiday-board event: {event!r}")


def with_turn(state: State, auction: Auction, start: int) -> Auction:
    return attrs.evolve(auction, turn=next_bidder(state, auction, start))


def next_bidder(state: State, auction: Auction, start: int) -> int | None:
    """The first seat from `start` clockwise that may still bid: it has money, has not passed and
    is not the high bidder. None: the auction is decided (everyone else has passed)."""
    for step in range(state.players):
        seat = (start + step) % state.players
        if state.money[seat] > 0 and seat not in auction.passed and seat != auction.high_bidder:
            return seat
    return None


def next_sightseer(state: State, seat: int) -> int | None:
    """Clockwise from the charterer; None once everyone has had their turn in this city."""
    following = (seat + 1) % state.players
    return None if following == state.charterer else following


# ---- outcome, view, narration, determinize ----

def outcome(state: State) -> Outcome | None:
    if state.phase is not Phase.OVER:
        return None
    scores = final_scores(state)
    best = max(scores)
    return Outcome(scores=scores, winners=tuple(seat for seat, score in enumerate(scores) if score == best))


def final_scores(state: State) -> tuple[int, ...]:
    return tuple(points + money for points, money in zip(state.points, state.money, strict=True))


def view(state: State, seat: int | None) -> dict[str, Any]:
    auction = state.auction
    return {
        "hand": [] if seat is None else sorted(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "money": list(state.money),
        "points": list(state.points),
        "seen": [list(cards) for cards in state.seen],
        "city": state.city or None,
        "day": None if state.day is None else state.board.days[state.day],
        "phase": state.phase.value,
        "charterer": state.charterer,
        "next_opener": state.opener,
        "auction": None
        if auction is None
        else {
            "opener": auction.opener,
            "cap": auction.cap,
            "high_bid": auction.high_bid,
            "high_bidder": auction.high_bidder,
            "destination": auction.destination or None,
            "passed": list(auction.passed),
        },
        "destinations": list(destinations(state)),
        "open_destinations": state.open_destinations,
        "ended": None if state.end is None else state.end.value,
    }


def dollars(amount: int) -> str:
    return f"${amount:,}"


def day_name(board: Board, day: int) -> str:
    return FULL_DAY_NAMES.get(board.days[day], board.days[day])


def narrate(state: State, event: Any, seat: int | None) -> str:
    board = state.board
    match event:
        case Dealt(hands=hands):
            line = f"each player is dealt {len(hands[0])} sightseeing cards"
            if seat is None:
                return line
            return f"{line}; {seat_name(seat)} holds {', '.join(hands[seat])}"
        case AuctionOpened(opener=opener, cap=cap):
            if cap == 0:
                return "nobody has money left to charter the plane"
            return f"{seat_name(opener)} opens the auction for the plane (bids up to {dollars(cap)})"
        case BidMade(seat=bidder, amount=amount, destination=destination):
            to = f" to fly to {board.city_name(destination)}" if destination else ""
            return f"{seat_name(bidder)} bids {dollars(amount)}{to}"
        case Passed(seat=passer):
            return f"{seat_name(passer)} passes"
        case PlaneChartered(seat=winner, amount=amount):
            return f"{seat_name(winner)} charters the plane for {dollars(amount)}"
        case CharterForfeited(seat=loser, bid=bid, money=money):
            return (
                f"{seat_name(loser)} cannot pay {dollars(bid)} and forfeits all their money"
                f" ({dollars(money)}) to the bank; the others bid again"
            )
        case PlaneFlew(seat=pilot, city=city):
            return f"{seat_name(pilot)} flies the plane to {board.city_name(city)}"
        case DieRolled(roll=roll):
            return f"the die shows {roll}: it is {day_name(board, roll - 1)}"
        case SightSeen(seat=seer, card=card, points=points):
            sight = board.card_by_id[card]
            return (
                f"{seat_name(seer)} sees {sight.sight} in {board.city_name(sight.city)} ({card})"
                f" on {day_name(board, state.day)}: {points} points"
            )
        case SightSkipped(seat=skipper, held_card=held):
            city = board.city_name(state.city)
            if held:
                return f"{seat_name(skipper)} sees nothing in {city}"
            return f"{seat_name(skipper)} has no sight to see in {city}"
        case DayAdvanced(day=day):
            return f"the day advances to {day_name(board, day)}"
        case GameEnded(reason=reason):
            scores = ", ".join(f"{seat_name(s)} {score:,}" for s, score in enumerate(final_scores(state)))
            return f"{end_cause(state, reason)}: the game is over; final scores (points + dollars): {scores}"
    raise TypeError(f"not a holiday-board event: {event!r}")


def end_cause(state: State, reason: EndReason) -> str:
    if reason is EndReason.LAST_CARD:
        done = [seat_name(seat) for seat, hand in enumerate(state.hands) if not hand]
        return f"{' and '.join(done)} {'has' if len(done) == 1 else 'have'} used their last card"
    if not any(state.money):
        return "nobody has money to charter the plane"
    return "nobody bids for the plane"


def determinize(state: State, seat: int | None, rng: Any) -> State:
    """The cards `seat` cannot see (other hands and the cards out of the game) dealt anew among
    those hands, each keeping its size."""
    used = {card for cards in state.seen for card in cards}
    mine = set(state.hands[seat]) if seat is not None else set()
    visible = used | mine
    pool = rng.shuffled([card.id for card in state.board.cards if card.id not in visible])
    hands = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            hands.append(hand)
        else:
            hands.append(tuple(sorted(pool[: len(hand)])))
            pool = pool[len(hand) :]
    return replace(state, hands=tuple(hands))
