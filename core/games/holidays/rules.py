"""Holidays: the rules. Cards, moves, the state and the contract functions. Pure: no I/O, clock,
randomness (only the rng handed to setup and decide) or logging; rules are checked only in decide.
"""

from __future__ import annotations

import enum
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from core.contract import IllegalMove, Outcome, SetupError, check_cards, seat_name, with_item
from core.games.holidays.events import (
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    CombinationPlayed,
    DestinationAccepted,
    DestinationChanged,
    DestinationConfirmed,
    DestinationProposed,
    DrawPileReshuffled,
    HandStarted,
    PotDealt,
    PotDiscarded,
    PotWon,
    TableCleared,
)

# ---------------------------------------------------------------------------------------------
# Rules and house decisions (each in one place; the package docstring lists them)

SUITS = "MWC"  # man, woman, child: also the order of cards in a move
VALUES = range(3, 9)
COPIES_PER_TRAVELLER = 5  # house decision: 3 suits x 6 values x 5 copies = the 90 travellers
HAND_SIZE = 6
POT_SIZE = 3  # dealt face down, face down, face up
POT_FACE_DOWN = 2
FIRST_DEALER = 0  # house decision: the player to the dealer's left proposes first in hand 1
WIN_POINTS_TO_END = 10
POT_VALUE_PER_WIN_POINT = 10
# House decision: set-off discards are shown (the move names them); False puts them face down.
DISCARDS_SHOWN = True

DESTINATIONS = ("venice", "mykonos", "park", "berghotel", "cruise")


def left_of(seat: int, players: int) -> int:
    """Seats are numbered clockwise, so the player to the left is the next seat."""
    return (seat + 1) % players


def next_first_proposer(first_proposer: int, winner: int | None, players: int) -> int:
    """The winner proposes first next hand; with no winner (house decision) the player to the
    left of this hand's first proposer does."""
    return left_of(first_proposer, players) if winner is None else winner


# ---------------------------------------------------------------------------------------------
# Cards

TRAVELLER_TYPES = tuple(f"{suit}{value}" for suit in SUITS for value in VALUES)
ALL_TRAVELLERS = tuple(card for card in TRAVELLER_TYPES for _ in range(COPIES_PER_TRAVELLER))
CARD_ORDER = {card: index for index, card in enumerate(TRAVELLER_TYPES)}  # by suit (M, W, C), then value


def card_key(card: str) -> int:
    return CARD_ORDER[card]


def card_value(card: str) -> int:
    return int(card[1:])


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=card_key))


def cards_text(cards: Iterable[str]) -> str:
    return " ".join(sort_cards(cards))


def parse_card(text: str) -> str | None:
    """The canonical text of a traveller card, or None if `text` is not one."""
    card = text.strip().upper()
    return card if card in TRAVELLER_TYPES else None


def without(hand: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...]:
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return tuple(rest)


def sub_multisets(hand: Iterable[str]) -> list[tuple[str, ...]]:
    """Every sub-multiset of `hand` once (identical cards are not told apart), sorted canonically."""
    counts = sorted(Counter(hand).items(), key=lambda item: card_key(item[0]))
    choices = itertools.product(*(range(count + 1) for _, count in counts))
    return [
        tuple(card for (card, _), taken in zip(counts, chosen) for _ in range(taken))
        for chosen in choices
    ]


# ---------------------------------------------------------------------------------------------
# Combinations: what each destination takes


def _suits(cards: tuple[str, ...]) -> Counter[str]:
    return Counter(card[0] for card in cards)


def _venice(c: Counter[str]) -> bool:
    return c["M"] == 1 and c["W"] == 1 and c["C"] == 0


def _mykonos(c: Counter[str]) -> bool:
    return c["M"] + c["W"] >= 1 and c["C"] == 0


def _park(c: Counter[str]) -> bool:
    return c["M"] + c["W"] == 1


def _berghotel(c: Counter[str]) -> bool:
    return c["M"] == 1 and c["W"] == 1 and c["C"] == 1


def _cruise(c: Counter[str]) -> bool:
    total = c["M"] + c["W"] + c["C"]
    return total >= 1 and (c["M"] == total or c["W"] == total)


COMBINATIONS: dict[str, tuple[Callable[[Counter[str]], bool], str]] = {
    "venice": (_venice, "Venice takes exactly one man and one woman"),
    "mykonos": (_mykonos, "Mykonos takes one or more adults (men and/or women) and nothing else"),
    "park": (_park, "the Amusement park takes exactly one adult and any number of children"),
    "berghotel": (_berghotel, "the Berghotel takes exactly one man, one woman and one child"),
    "cruise": (_cruise, "a Cruise takes one or more men only, or one or more women only"),
}


def is_combination(destination: str, cards: tuple[str, ...]) -> bool:
    fits, _ = COMBINATIONS[destination]
    return fits(_suits(cards))


def combinations(destination: str, hand: Iterable[str]) -> list[tuple[str, ...]]:
    return [cards for cards in sub_multisets(hand) if cards and is_combination(destination, cards)]


# ---------------------------------------------------------------------------------------------
# Moves


@attrs.frozen
class Propose:
    destination: str

    def __str__(self) -> str:
        return f"propose {self.destination}"


@attrs.frozen
class Change:
    destination: str
    pay: str

    def __str__(self) -> str:
        return f"change {self.destination} pay {self.pay}"


@attrs.frozen
class Accept:
    def __str__(self) -> str:
        return "accept"


@attrs.frozen
class Confirm:
    def __str__(self) -> str:
        return "confirm"


@attrs.frozen
class SetOff:
    cards: tuple[str, ...] = attrs.field(converter=sort_cards)

    def __str__(self) -> str:
        return f"setoff {cards_text(self.cards)}"


@attrs.frozen
class Discard:
    cards: tuple[str, ...] = attrs.field(converter=sort_cards)

    def __str__(self) -> str:
        return " ".join(["discard", *self.cards])


Move = Propose | Change | Accept | Confirm | SetOff | Discard

MOVE_FORMS = (
    "propose <destination>, change <destination> pay <card>, accept, confirm, "
    "setoff <card> <card> ... or discard [<card> ...] (destinations: "
    + ", ".join(DESTINATIONS)
    + "; cards like M3, W8, C5)"
)


def parse_move(text: str) -> Move:
    words = text.lower().split()

    def malformed() -> IllegalMove:
        return IllegalMove(f"malformed move {text!r}: expected {MOVE_FORMS}")

    if not words:
        raise malformed()
    verb, args = words[0], words[1:]
    cards = [parse_card(word) for word in args]
    if verb in ("accept", "confirm") and not args:
        return Accept() if verb == "accept" else Confirm()
    if verb == "propose" and len(args) == 1 and args[0] in DESTINATIONS:
        return Propose(args[0])
    if verb == "change" and len(args) == 3 and args[0] in DESTINATIONS and args[1] == "pay":
        if cards[2] is not None:
            return Change(args[0], cards[2])
    if verb == "setoff" and args and None not in cards:
        return SetOff(tuple(cards))  # type: ignore[arg-type]
    if verb == "discard" and None not in cards:
        return Discard(tuple(cards))  # type: ignore[arg-type]
    raise malformed()


# ---------------------------------------------------------------------------------------------
# The state


class Phase(str, enum.Enum):
    DEALING = "dealing"  # before the opening events
    PROPOSE = "propose"  # waiting for the free first proposal
    CHOOSE = "choose"  # accepting or changing; the proposer confirms or changes
    SETOFF = "setoff"  # combinations or discards, clockwise from the confirming player
    CLEAN_UP = "clean-up"  # the pot is settled; refills and the next pot follow in the same command
    OVER = "over"


@attrs.frozen
class SetOffRecord:
    seat: int
    cards: tuple[str, ...]
    combination: bool  # False: the cards were discarded instead
    score: int


@attrs.frozen
class State:
    players: int
    phase: Phase = Phase.DEALING
    hands: tuple[tuple[str, ...], ...] = ()
    deck: tuple[str, ...] = ()  # top first
    discard: tuple[str, ...] = ()  # the discard pile's cards everyone has seen
    discard_face_down: tuple[str, ...] = ()  # its cards nobody has seen (a discarded pot's)
    pot: tuple[str, ...] = ()  # as dealt: face down, face down, face up
    paid: tuple[str, ...] = ()  # paid to change destination, face up
    pot_revealed: bool = False  # the winner has shown the face-down cards
    played: tuple[tuple[str, ...], ...] = ()  # per seat: destination cards played this hand
    destination: str | None = None
    proposer: int = 0  # who played the current destination
    first_proposer: int = 0
    turn: int = 0
    set_off: tuple[SetOffRecord, ...] = ()  # in playing order
    win_points: tuple[int, ...] = ()
    hand_number: int = 0

    def left(self, seat: int) -> int:
        return left_of(seat, self.players)

    def clockwise_from(self, seat: int) -> list[int]:
        return [(seat + i) % self.players for i in range(self.players)]

    def face_down(self) -> tuple[str, ...]:
        return self.pot[:POT_FACE_DOWN]

    def face_up(self) -> tuple[str, ...]:
        return self.pot[POT_FACE_DOWN:]

    def visible_value(self) -> int:
        """The holiday's value as everyone sees it: the face-up card and the paid cards."""
        return sum(map(card_value, self.face_up() + self.paid))

    def pot_value(self) -> int:
        return sum(map(card_value, self.pot + self.paid))

    def destinations_left(self, seat: int) -> tuple[str, ...]:
        return tuple(d for d in DESTINATIONS if d not in self.played[seat])

    def can_change(self, seat: int) -> bool:
        return bool(self.hands[seat]) and bool(self.destinations_left(seat))


def replace(state: State, **changes: Any) -> State:
    return attrs.evolve(state, **changes)


# ---------------------------------------------------------------------------------------------
# setup and initial


def initial(players: int, options: Mapping[str, Any]) -> State:
    return State(players=players)


def setup(
    players: int, options: Mapping[str, Any], deal: Mapping[str, Any] | None, rng: Any
) -> list[Any]:
    if deal is None:
        cards = rng.shuffled(ALL_TRAVELLERS)
        dealt = players * HAND_SIZE
        hands = tuple(tuple(cards[i : i + HAND_SIZE]) for i in range(0, dealt, HAND_SIZE))
        pot, deck = tuple(cards[dealt : dealt + POT_SIZE]), tuple(cards[dealt + POT_SIZE :])
    else:
        hands, pot, deck = read_deal(players, deal)
    first = left_of(FIRST_DEALER, players)
    return [CardsDealt(hands=hands, pot=pot, deck=deck), HandStarted(number=1, first_proposer=first)]


DEAL_SHAPE = '{"hands": [[6 cards], ...], "pot": [down, down, up], "deck": [top, ...]}'


def read_deal(players: int, deal: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """Check a deal's shape and cards; its hands, pot and deck as canonical card texts."""
    if set(deal) != {"hands", "pot", "deck"}:
        raise SetupError(f"a holidays deal has exactly the keys hands, pot and deck: {DEAL_SHAPE}")
    hands, pot, deck = deal["hands"], deal["pot"], deal["deck"]
    if not all(isinstance(part, list | tuple) for part in (hands, pot, deck)):
        raise SetupError(f"hands, pot and deck are lists: {DEAL_SHAPE}")
    if len(hands) != players:
        raise SetupError(f"the deal has {len(hands)} hands for {players} players")
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list | tuple) or len(hand) != HAND_SIZE:
            raise SetupError(f"seat {seat}'s hand must be a list of {HAND_SIZE} cards")
    if len(pot) != POT_SIZE:
        raise SetupError(f"the pot has {POT_SIZE} cards (down, down, up), not {len(pot)}")

    def canonical(cards: Iterable[Any]) -> tuple[str, ...]:
        return tuple((parse_card(c) or c) if isinstance(c, str) else repr(c) for c in cards)

    hands = tuple(canonical(hand) for hand in hands)
    pot, deck = canonical(pot), canonical(deck)
    everything = [card for hand in hands for card in hand] + list(pot) + list(deck)
    check_cards(everything, list(ALL_TRAVELLERS), "holidays deal")
    return hands, pot, deck


# ---------------------------------------------------------------------------------------------
# evolve: applies, never validates


def _dealt(state: State, e: CardsDealt) -> State:
    return replace(
        state,
        hands=tuple(sort_cards(hand) for hand in e.hands),
        pot=e.pot,
        deck=e.deck,
        played=((),) * state.players,
        win_points=(0,) * state.players,
    )


def _hand_started(state: State, e: HandStarted) -> State:
    return replace(
        state,
        phase=Phase.PROPOSE,
        hand_number=e.number,
        first_proposer=e.first_proposer,
        proposer=e.first_proposer,
        turn=e.first_proposer,
        destination=None,
        pot_revealed=False,
    )


def _play_destination(state: State, seat: int, destination: str) -> State:
    return replace(
        state,
        phase=Phase.CHOOSE,
        destination=destination,
        proposer=seat,
        turn=state.left(seat),
        played=with_item(state.played, seat, state.played[seat] + (destination,)),
    )


def _proposed(state: State, e: DestinationProposed) -> State:
    return _play_destination(state, e.seat, e.destination)


def _changed(state: State, e: DestinationChanged) -> State:
    state = _play_destination(state, e.seat, e.destination)
    hands = with_item(state.hands, e.seat, without(state.hands[e.seat], [e.paid]))
    return replace(state, hands=hands, paid=state.paid + (e.paid,))


def _accepted(state: State, e: DestinationAccepted) -> State:
    return replace(state, turn=state.left(e.seat))


def _confirmed(state: State, e: DestinationConfirmed) -> State:
    return replace(state, phase=Phase.SETOFF, turn=e.seat)


def _set_off(state: State, seat: int, record: SetOffRecord) -> State:
    return replace(
        state,
        hands=with_item(state.hands, seat, without(state.hands[seat], record.cards)),
        set_off=state.set_off + (record,),
        turn=state.left(seat),
    )


def _combination(state: State, e: CombinationPlayed) -> State:
    return _set_off(state, e.seat, SetOffRecord(e.seat, e.cards, True, e.score))


def _discarded(state: State, e: CardsDiscarded) -> State:
    return _set_off(state, e.seat, SetOffRecord(e.seat, e.cards, False, 0))


def _pot_won(state: State, e: PotWon) -> State:
    points = with_item(state.win_points, e.seat, state.win_points[e.seat] + e.points)
    over = points[e.seat] >= WIN_POINTS_TO_END
    return replace(
        state, win_points=points, pot_revealed=True, phase=Phase.OVER if over else Phase.CLEAN_UP
    )


def _pot_discarded(state: State, e: PotDiscarded) -> State:
    return replace(state, phase=Phase.CLEAN_UP)


def _shown(record: SetOffRecord) -> bool:
    """Whether everyone saw these set-off cards: combinations always, discards as decided."""
    return record.combination or DISCARDS_SHOWN


def _cleared(state: State, e: TableCleared) -> State:
    seen = [card for record in state.set_off if _shown(record) for card in record.cards]
    unseen = [card for record in state.set_off if not _shown(record) for card in record.cards]
    seen += state.face_up() + state.paid
    # House decision: a pot nobody won is discarded as it lies, its face-down cards unseen.
    (seen if state.pot_revealed else unseen).extend(state.face_down())
    return replace(
        state,
        discard=state.discard + tuple(seen),
        discard_face_down=state.discard_face_down + tuple(unseen),
        pot=(),
        paid=(),
        pot_revealed=False,
        set_off=(),
        destination=None,
        played=((),) * state.players,
    )


def _reshuffled(state: State, e: DrawPileReshuffled) -> State:
    return replace(state, deck=state.deck + e.deck, discard=(), discard_face_down=())


def _drawn(state: State, e: CardsDrawn) -> State:
    hands = with_item(state.hands, e.seat, sort_cards(state.hands[e.seat] + e.cards))
    return replace(state, hands=hands, deck=state.deck[len(e.cards) :])


def _pot_dealt(state: State, e: PotDealt) -> State:
    return replace(state, pot=state.pot + e.cards, deck=state.deck[len(e.cards) :])


EVOLVE: dict[type, Callable[[State, Any], State]] = {
    CardsDealt: _dealt,
    HandStarted: _hand_started,
    DestinationProposed: _proposed,
    DestinationChanged: _changed,
    DestinationAccepted: _accepted,
    DestinationConfirmed: _confirmed,
    CombinationPlayed: _combination,
    CardsDiscarded: _discarded,
    PotWon: _pot_won,
    PotDiscarded: _pot_discarded,
    TableCleared: _cleared,
    DrawPileReshuffled: _reshuffled,
    CardsDrawn: _drawn,
    PotDealt: _pot_dealt,
}


def evolve(state: State, event: Any) -> State:
    return EVOLVE[type(event)](state, event)


# ---------------------------------------------------------------------------------------------
# decide: the only place rules are checked


def decide(state: State, seat: int, move: Move, rng: Any) -> list[Any]:
    if state.phase is Phase.PROPOSE:
        return _decide_proposal(state, seat, move)
    if state.phase is Phase.CHOOSE:
        return _decide_choice(state, seat, move)
    if state.phase is Phase.SETOFF:
        return _decide_set_off(state, seat, move, rng)
    raise IllegalMove("nothing can be played now")


def _decide_proposal(state: State, seat: int, move: Move) -> list[Any]:
    if not isinstance(move, Propose):
        raise IllegalMove("first propose a destination, for free: propose <destination>")
    return [DestinationProposed(seat, move.destination)]


def _decide_choice(state: State, seat: int, move: Move) -> list[Any]:
    proposing = seat == state.proposer
    if isinstance(move, Change):
        return [_checked_change(state, seat, move)]
    if isinstance(move, Accept) and not proposing:
        return [DestinationAccepted(seat)]
    if isinstance(move, Confirm) and proposing:
        return [DestinationConfirmed(seat)]
    if proposing:
        raise IllegalMove(
            f"everyone accepted your {state.destination}: confirm it or change <destination> pay <card>"
        )
    raise IllegalMove(
        f"{seat_name(state.proposer)} proposed {state.destination}: "
        "accept or change <destination> pay <card>"
    )


def _checked_change(state: State, seat: int, move: Change) -> DestinationChanged:
    if not state.can_change(seat):
        lacking = "traveller card to pay with" if not state.hands[seat] else "destination card"
        stay = "confirm" if seat == state.proposer else "accept"
        raise IllegalMove(f"you have no {lacking} left: you can only {stay}")
    if move.destination in state.played[seat]:
        left = ", ".join(state.destinations_left(seat)) or "none"
        raise IllegalMove(f"you already played your {move.destination} card this hand (left: {left})")
    if move.pay not in state.hands[seat]:
        raise IllegalMove(f"you cannot pay with {move.pay}: you do not hold it")
    return DestinationChanged(seat, move.destination, move.pay)


def _decide_set_off(state: State, seat: int, move: Move, rng: Any) -> list[Any]:
    if not isinstance(move, SetOff | Discard):
        raise IllegalMove(
            f"{state.destination} is confirmed: "
            "setoff <card> ... with a combination, or discard [<card> ...]"
        )
    missing = Counter(move.cards) - Counter(state.hands[seat])
    if missing:
        raise IllegalMove(f"you do not hold {cards_text(missing.elements())}")
    if isinstance(move, Discard):
        event: Any = CardsDiscarded(seat, move.cards)
    elif not is_combination(state.destination, move.cards):
        _, needs = COMBINATIONS[state.destination]
        raise IllegalMove(f"{cards_text(move.cards)} is no combination: {needs}")
    else:
        event = CombinationPlayed(seat, move.cards, sum(map(card_value, move.cards)))
    script = Script(state)
    script.emit(event)
    if len(script.state.set_off) == state.players:
        _finish_hand(script, rng)
    return script.events


class Script:
    """Events decided one after another, each applied so the next decision sees its effect."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def winning_record(set_off: tuple[SetOffRecord, ...]) -> SetOffRecord | None:
    """The highest combination; `max` keeps the first of equals, and the records are in playing order."""
    played = [record for record in set_off if record.combination]
    return max(played, key=lambda record: record.score) if played else None


def _finish_hand(script: Script, rng: Any) -> None:
    state = script.state
    best = winning_record(state.set_off)
    if best is None:
        script.emit(PotDiscarded())
    else:
        value = state.pot_value()
        points = value // POT_VALUE_PER_WIN_POINT  # fractions of 10 are worth nothing
        script.emit(PotWon(best.seat, best.score, state.face_down(), value, points))
    if script.state.phase is Phase.OVER:
        return  # the game ends at once: no clean-up, no refill
    script.emit(TableCleared())
    winner = None if best is None else best.seat
    start = state.first_proposer if winner is None else winner
    for seat in state.clockwise_from(start):
        lacking = HAND_SIZE - len(script.state.hands[seat])
        _draw(script, rng, lacking, lambda cards, s=seat: CardsDrawn(s, cards))
    _draw(script, rng, POT_SIZE, PotDealt)
    first = next_first_proposer(state.first_proposer, winner, state.players)
    script.emit(HandStarted(state.hand_number + 1, first))


def _draw(script: Script, rng: Any, count: int, drawn: Callable[[tuple[str, ...]], Any]) -> None:
    """Draw `count` cards from the top; the discard pile becomes the draw pile only when a card
    must be drawn and none is left."""
    while count > 0:
        if not script.state.deck:
            pile = script.state.discard + script.state.discard_face_down
            script.emit(DrawPileReshuffled(tuple(rng.shuffled(pile))))
        cards = script.state.deck[:count]
        script.emit(drawn(cards))
        count -= len(cards)


# ---------------------------------------------------------------------------------------------
# Whose turn, what they may do, how it ends


def to_act(state: State) -> tuple[int, ...]:
    if state.phase in (Phase.PROPOSE, Phase.CHOOSE, Phase.SETOFF):
        return (state.turn,)
    return ()


def legal_moves(state: State, seat: int) -> list[Move]:
    if seat not in to_act(state):
        return []
    if state.phase is Phase.PROPOSE:
        return [Propose(d) for d in DESTINATIONS]
    if state.phase is Phase.CHOOSE:
        stay: Move = Confirm() if seat == state.proposer else Accept()
        payments = sort_cards(set(state.hands[seat]))
        return [stay] + [Change(d, card) for d in state.destinations_left(seat) for card in payments]
    return list(setting_off_moves(state.destination, state.hands[seat]))


# Searching bots ask for the same few hands' moves thousands of times; the moves are frozen values.
@functools.lru_cache(maxsize=1 << 14)
def setting_off_moves(destination: str, hand: tuple[str, ...]) -> tuple[Move, ...]:
    """Every combination `hand` holds for `destination`, then every discard (hands are kept
    sorted, so each hand is one cache entry; the moves sort their cards either way)."""
    return (*(SetOff(cards) for cards in combinations(destination, hand)), *(Discard(cards) for cards in sub_multisets(hand)))


def outcome(state: State) -> Outcome | None:
    winners = tuple(seat for seat, points in enumerate(state.win_points) if points >= WIN_POINTS_TO_END)
    return Outcome(scores=state.win_points, winners=winners) if winners else None


# ---------------------------------------------------------------------------------------------
# What a seat sees


def view(state: State, seat: int | None) -> dict[str, Any]:
    return {
        "hand": [] if seat is None or not state.hands else list(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "win_points": list(state.win_points),
        "hand_number": state.hand_number,
        "phase": state.phase.value,
        "first_proposer": state.first_proposer,
        "proposer": state.proposer if state.destination else None,
        "destination": state.destination,
        "destinations_played": [list(played) for played in state.played],
        "pot_face_down": list(state.face_down()) if state.pot_revealed else [],
        "pot_face_down_count": len(state.face_down()),
        "pot_face_up": list(state.face_up()),
        "pot_paid": list(state.paid),
        "holiday_value": state.visible_value(),
        "set_off": [_record_view(record, seat) for record in state.set_off],
        "draw_pile": len(state.deck),
        "discard_pile": len(state.discard) + len(state.discard_face_down),
        "discarded_face_up": list(sort_cards(state.discard)),
    }


def _record_view(record: SetOffRecord, seat: int | None) -> dict[str, Any]:
    shown = _shown(record) or seat == record.seat
    return {
        "seat": record.seat,
        "combination": record.combination,
        "cards": list(record.cards) if shown else [],
        "card_count": len(record.cards),
        "score": record.score,
    }


def determinize(state: State, seat: int | None, rng: Any) -> State:
    """Every card hidden from `seat` (other hands, the draw pile, unrevealed face-down pot cards,
    unseen discards) dealt anew among those same places, sizes kept."""
    others = [s for s in range(state.players) if s != seat]
    secret_records = [i for i, r in enumerate(state.set_off) if not _shown(r) and r.seat != seat]
    places = [state.hands[s] for s in others] + [
        state.deck,
        () if state.pot_revealed else state.face_down(),
        state.discard_face_down,
    ]
    places += [state.set_off[i].cards for i in secret_records]
    pool = rng.shuffled([card for place in places for card in place])
    dealt = []
    for place in places:
        dealt.append(tuple(pool[: len(place)]))
        pool = pool[len(place) :]
    hands, set_off = list(state.hands), list(state.set_off)
    for s in others:
        hands[s] = sort_cards(dealt.pop(0))
    deck, face_down, discard_face_down = dealt[:3]
    for i, cards in zip(secret_records, dealt[3:]):
        set_off[i] = attrs.evolve(set_off[i], cards=sort_cards(cards))
    return replace(
        state,
        hands=tuple(hands),
        deck=deck,
        pot=state.pot if state.pot_revealed else face_down + state.face_up(),
        discard_face_down=discard_face_down,
        set_off=tuple(set_off),
    )


# ---------------------------------------------------------------------------------------------
# Turn reports


def narrate(state: State, event: Any, seat: int | None) -> str:
    return NARRATE[type(event)](state, event, seat)


def _n_dealt(state: State, e: CardsDealt, seat: int | None) -> str:
    line = f"the travellers are dealt, {HAND_SIZE} to each seat; the pot: {_pot_text(0, e.pot)}"
    if seat is not None:
        line += f"; your hand: {cards_text(e.hands[seat])}"
    return line


def _pot_text(already: int, cards: tuple[str, ...]) -> str:
    """Pot cards dealt after `already` others: the first two face down, the third face up."""
    down = sum(1 for i in range(len(cards)) if already + i < POT_FACE_DOWN)
    parts = [f"{down} face-down card" + ("s" if down > 1 else "")] if down else []
    parts += [f"{card} face up" for card in cards[down:]]
    return " and ".join(parts)


def _n_hand_started(state: State, e: HandStarted, seat: int | None) -> str:
    return (
        f"hand {e.number}: the holiday is worth {state.visible_value()}; "
        f"{seat_name(e.first_proposer)} proposes first"
    )


def _n_proposed(state: State, e: DestinationProposed, seat: int | None) -> str:
    return f"{seat_name(e.seat)} proposed {e.destination}; the holiday is worth {state.visible_value()}"


def _n_changed(state: State, e: DestinationChanged, seat: int | None) -> str:
    value = state.visible_value() + card_value(e.paid)
    who = seat_name(e.seat)
    return f"{who} changed to {e.destination}, paying {e.paid}; the holiday is worth {value}"


def _n_accepted(state: State, e: DestinationAccepted, seat: int | None) -> str:
    return f"{seat_name(e.seat)} accepted {state.destination}"


def _n_confirmed(state: State, e: DestinationConfirmed, seat: int | None) -> str:
    return (
        f"{seat_name(e.seat)} confirmed {state.destination} (worth {state.visible_value()}): "
        f"time to set off, {seat_name(e.seat)} first"
    )


def _n_combination(state: State, e: CombinationPlayed, seat: int | None) -> str:
    return f"{seat_name(e.seat)} set off for {state.destination} with {cards_text(e.cards)}: {e.score}"


def _n_discarded(state: State, e: CardsDiscarded, seat: int | None) -> str:
    if not e.cards:
        return f"{seat_name(e.seat)} played no combination and discarded nothing"
    if DISCARDS_SHOWN or seat == e.seat:
        return f"{seat_name(e.seat)} played no combination and discarded {cards_text(e.cards)}"
    return f"{seat_name(e.seat)} played no combination and discarded {len(e.cards)} cards face down"


def _n_pot_won(state: State, e: PotWon, seat: int | None) -> str:
    total = state.win_points[e.seat] + e.points
    line = (
        f"{seat_name(e.seat)} wins the hand with {e.score} and takes the pot "
        f"(face down {cards_text(e.face_down)}) worth {e.value}: {e.points} win point"
        + ("" if e.points == 1 else "s")
        + f", {total} in all"
    )
    if total >= WIN_POINTS_TO_END:
        line += f"; {seat_name(e.seat)} wins the game"
    return line


def _n_pot_discarded(state: State, e: PotDiscarded, seat: int | None) -> str:
    return "nobody played a combination: no winner, the pot is discarded unseen"


def _n_cleared(state: State, e: TableCleared, seat: int | None) -> str:
    return "the used cards go to the discard pile; the destination cards go back to their owners"


def _n_reshuffled(state: State, e: DrawPileReshuffled, seat: int | None) -> str:
    return (
        "the draw pile is empty: the discard pile is shuffled into "
        f"a new draw pile of {len(e.deck)} cards"
    )


def _n_drawn(state: State, e: CardsDrawn, seat: int | None) -> str:
    if seat == e.seat:
        return f"{seat_name(e.seat)} drew {cards_text(e.cards)}"
    return f"{seat_name(e.seat)} drew {len(e.cards)} card" + ("" if len(e.cards) == 1 else "s")


def _n_pot_dealt(state: State, e: PotDealt, seat: int | None) -> str:
    return f"the next pot: {_pot_text(len(state.pot), e.cards)}"


NARRATE: dict[type, Callable[[State, Any, int | None], str]] = {
    CardsDealt: _n_dealt,
    HandStarted: _n_hand_started,
    DestinationProposed: _n_proposed,
    DestinationChanged: _n_changed,
    DestinationAccepted: _n_accepted,
    DestinationConfirmed: _n_confirmed,
    CombinationPlayed: _n_combination,
    CardsDiscarded: _n_discarded,
    PotWon: _n_pot_won,
    PotDiscarded: _n_pot_discarded,
    TableCleared: _n_cleared,
    DrawPileReshuffled: _n_reshuffled,
    CardsDrawn: _n_drawn,
    PotDealt: _n_pot_dealt,
}
