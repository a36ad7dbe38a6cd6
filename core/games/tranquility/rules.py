"""Tranquility's rules: cards, cells, moves, the state and the contract functions. Pure: no I/O,
no randomness except the rng handed to setup/decide/determinize, rule checks only in decide,
evolve only applies.

The grid is one tuple of 36 cells in the order the rules read it (a1..f1, a2..f2, ..., a6..f6);
0 marks an empty cell. Cards are their canonical texts everywhere (`17`, `start`, `finish`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from core.contract import IllegalMove, OptionValue, Outcome, SetupError, check_cards, seat_name, with_item
from core.games.tranquility.events import (
    CardsDiscarded,
    CardsDrawn,
    FinishPlayed,
    GameLost,
    HandsRefilled,
    IslandPlayed,
    LossReason,
    PilesDealt,
    StartPlayed,
    StartShareDiscarded,
    TurnPassed,
)

# ---------------------------------------------------------------------------------------------
# The components, and the house decisions (rules/tranquility.md), each in this one place.

ISLANDS: tuple[str, ...] = tuple(str(number) for number in range(1, 81))
START = "start"
FINISH = "finish"
FINISH_CARDS = 5
HAND_SIZE = 5
COLUMNS = "abcdef"
ROWS = 6
CELLS = len(COLUMNS) * ROWS
# A1 is the first cell of the sequence, f6 the last; a row's last cell is next to the next row's first.
CELL_NAMES: tuple[str, ...] = tuple(f"{column}{row}" for row in range(1, ROWS + 1) for column in COLUMNS)
CELL_INDEX: Mapping[str, int] = {name: index for index, name in enumerate(CELL_NAMES)}
# Cards the table discards together when a Start card is played.
START_DISCARD = 8
# Island cards the Galateia variant removes (face down, unseen) before the deal.
GALATEIA_SET_ASIDE = 4
FIRST_SEAT = 0
# The Start's discard, house protocol for asynchronous play: clockwise from the Start's player,
# each discards 0 or more of what is still owed in the first circle, at least one from the second
# circle on (and after a refill), empty hands skipped; see `start_discard_turn`, `least_discard`.
FIRST_CIRCLE_MINIMUM = 0
LATER_CIRCLE_MINIMUM = 1


def pile_sizes(cards: int, players: int) -> list[int]:
    """House decision: the piles are as even as possible and the lower seats take the extra cards
    (the Start card each player shuffles in comes on top of these)."""
    base, extra = divmod(cards, players)
    return [base + (1 if seat < extra else 0) for seat in range(players)]


def seat_after_start(starter: int, players: int) -> int:
    """House decision: after the Start's discard and the refill, the turn passes to the seat after
    the Start's player (playing the Start was that player's action)."""
    return (starter + 1) % players


# ---------------------------------------------------------------------------------------------
# Cards and cells


def card_key(card: str) -> tuple[int, int]:
    """Notation order: numbers ascending, then `start`, then `finish`."""
    if card == START:
        return (1, 0)
    if card == FINISH:
        return (2, 0)
    return (0, int(card))


def sorted_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=card_key))


def parse_card(text: Any) -> str | None:
    """The canonical text of a card written as `text` (`07` -> `7`, `START` -> `start`), or None."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)
    if not isinstance(text, str):
        return None
    text = text.strip().lower()
    if text in (START, FINISH):
        return text
    if text.isascii() and text.isdigit() and 1 <= int(text) <= len(ISLANDS):
        return str(int(text))
    return None


def is_island(card: str) -> bool:
    return card not in (START, FINISH)


def remove_cards(hand: Sequence[str], cards: Iterable[str]) -> tuple[str, ...]:
    """`hand` without `cards` (a multiset difference; the caller knows they are there)."""
    left = list(hand)
    for card in cards:
        left.remove(card)
    return tuple(left)


def missing_cards(hand: Sequence[str], cards: Iterable[str]) -> list[str]:
    """The cards of `cards` that `hand` cannot cover (counting duplicates)."""
    return sorted((Counter(cards) - Counter(hand)).elements(), key=card_key)


def distinct_combinations(hand: Sequence[str], size: int) -> list[tuple[str, ...]]:
    """Every choice of `size` cards from `hand`, identical cards (Finishes, dead Starts) counted once."""
    return list(dict.fromkeys(itertools.combinations(sorted_cards(hand), size)))


def cards_text(cards: Sequence[str]) -> str:
    return " ".join(cards)


def count_text(count: int, noun: str = "card") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# ---------------------------------------------------------------------------------------------
# Moves


@attrs.frozen
class PlayIsland:
    """Place Island `card` in `cell` (index into the sequence), discarding `paid` as its cost."""

    card: int
    cell: int
    paid: tuple[str, ...] = attrs.field(default=(), converter=sorted_cards)

    def __str__(self) -> str:
        text = f"play {self.card} {CELL_NAMES[self.cell]}"
        return f"{text} discard {cards_text(self.paid)}" if self.paid else text


@attrs.frozen
class PlayStart:
    def __str__(self) -> str:
        return "play start"


@attrs.frozen
class PlayFinish:
    def __str__(self) -> str:
        return "play finish"


@attrs.frozen
class Discard:
    """Two cards as a turn's action, or 0 or more as one's share of a Start's discard."""

    cards: tuple[str, ...] = attrs.field(converter=sorted_cards)

    def __str__(self) -> str:
        return " ".join(["discard", *self.cards])


Move = PlayIsland | PlayStart | PlayFinish | Discard

MOVE_FORMS = (
    "expected 'play <1-80> <a1-f6>' (with ' discard <card> ...' when it costs cards), "
    "'play start', 'play finish' or 'discard <card> ...'"
)


def parse_move(text: str) -> Move:
    words = text.lower().split()

    def malformed() -> IllegalMove:
        return IllegalMove(f"malformed move {text!r}: {MOVE_FORMS}")

    if words and words[0] == "discard":
        cards = [parse_card(word) for word in words[1:]]
        if None in cards:
            raise malformed()
        return Discard(cards)
    if words[:1] != ["play"] or len(words) < 2:
        raise malformed()
    if words[1:] == [START]:
        return PlayStart()
    if words[1:] == [FINISH]:
        return PlayFinish()
    card = parse_card(words[1])
    if card is None or not is_island(card) or len(words) < 3 or words[2] not in CELL_INDEX:
        raise malformed()
    paid: list[str | None] = []
    if len(words) > 3:
        if words[3] != "discard":
            raise malformed()
        paid = [parse_card(word) for word in words[4:]]
        if None in paid:
            raise malformed()
    return PlayIsland(int(card), CELL_INDEX[words[2]], paid)


# ---------------------------------------------------------------------------------------------
# The state


@attrs.frozen
class StartDiscard:
    """A Start's discard in progress: whose Start it was, how many cards the table still owes,
    how many turns have been taken since (skipped ones included: it counts the circles), and
    whether the hands were refilled during it (after which no circle is a first circle)."""

    starter: int
    owed: int
    taken: int = 0
    refilled: bool = False


@attrs.frozen
class State:
    players: int
    galateia: bool
    piles: tuple[tuple[str, ...], ...]  # top card first
    hands: tuple[tuple[str, ...], ...]  # sorted in notation order
    discards: tuple[tuple[str, ...], ...]  # each seat's face-down discards, in the order made
    set_aside: tuple[str, ...] = ()
    grid: tuple[int, ...] = (0,) * CELLS
    start_down: bool = False
    finish_down: bool = False
    turn: int = FIRST_SEAT
    start_discard: StartDiscard | None = None
    lost: LossReason | None = None
    lost_by: int | None = None  # the seat whose turn it was when the voyage was lost


def initial(players: int, options: Mapping[str, OptionValue]) -> State:
    empty = ((),) * players
    return State(players, bool(options.get("galateia", False)), empty, empty, empty)


def filled(state: State) -> int:
    return sum(1 for value in state.grid if value)


def is_over(state: State) -> bool:
    return state.finish_down or state.lost is not None


def finish_due(state: State) -> bool:
    """The grid is full and a Start is in the frame: the player to act must play a Finish."""
    return state.start_down and all(state.grid)


def start_due(state: State, hand: Sequence[str]) -> bool:
    """A player holding a Start while none is in the frame must play it."""
    return not state.start_down and START in hand


# ---------------------------------------------------------------------------------------------
# Placing an Island


def placement_problem(grid: Sequence[int], value: int, cell: int) -> str | None:
    """Why `value` cannot go in `cell` (occupied, or not ascending along the sequence), or None."""
    name = CELL_NAMES[cell]
    if grid[cell]:
        return f"{name} already holds {grid[cell]}"
    before = next((i for i in range(cell - 1, -1, -1) if grid[i]), None)
    if before is not None and grid[before] > value:
        return (
            f"{value} cannot go in {name}: {CELL_NAMES[before]} before it holds {grid[before]}, "
            "and the numbers must ascend from a1 to f6"
        )
    after = next((i for i in range(cell + 1, CELLS) if grid[i]), None)
    if after is not None and grid[after] < value:
        return (
            f"{value} cannot go in {name}: {CELL_NAMES[after]} after it holds {grid[after]}, "
            "and the numbers must ascend from a1 to f6"
        )
    return None


def placement_cost(grid: Sequence[int], value: int, cell: int) -> tuple[int, int | None]:
    """(cards to discard, the neighbour that sets it): the smaller difference to an occupied cell
    just before or just after in the sequence; (0, None) with no occupied neighbour."""
    neighbours = [grid[i] for i in (cell - 1, cell + 1) if 0 <= i < CELLS and grid[i]]
    if not neighbours:
        return 0, None
    nearest = min(neighbours, key=lambda neighbour: abs(neighbour - value))
    return abs(nearest - value), nearest


def placements(state: State, hand: Sequence[str]) -> Iterator[PlayIsland]:
    """Every legal placement from `hand`, with every distinct choice of the cards paid."""
    for card in hand:
        if not is_island(card):
            continue
        value, rest = int(card), remove_cards(hand, [card])
        for cell in range(CELLS):
            if placement_problem(state.grid, value, cell) is not None:
                continue
            cost, _ = placement_cost(state.grid, value, cell)
            if cost <= len(rest):
                for paid in distinct_combinations(rest, cost):
                    yield PlayIsland(value, cell, paid)


# ---------------------------------------------------------------------------------------------
# The Start's discard


def start_discard_turn(state: State) -> int | None:
    """The turn number (counted from the Start's player) of the next seat that holds cards:
    seats with empty hands are skipped, their turn counting as taken. None if every hand is empty."""
    assert state.start_discard is not None
    taken, starter = state.start_discard.taken, state.start_discard.starter
    for turn in range(taken, taken + state.players):
        if state.hands[(starter + turn) % state.players]:
            return turn
    return None


def start_discard_seat(state: State, turn: int) -> int:
    assert state.start_discard is not None
    return (state.start_discard.starter + turn) % state.players


def least_discard(state: State) -> int:
    """The least a seat holding cards may discard now: nothing in the first circle, at least one
    from the second circle on or once the hands have been refilled."""
    assert state.start_discard is not None
    turn = start_discard_turn(state)
    later = state.start_discard.refilled or (turn is not None and turn >= state.players)
    return LATER_CIRCLE_MINIMUM if later else FIRST_CIRCLE_MINIMUM


def start_discard_moves(state: State, seat: int) -> Iterator[Discard]:
    assert state.start_discard is not None
    hand = state.hands[seat]
    most = min(state.start_discard.owed, len(hand))
    for size in range(least_discard(state), most + 1):
        for cards in distinct_combinations(hand, size):
            yield Discard(cards)


# ---------------------------------------------------------------------------------------------
# setup, evolve, to_act, legal_moves, outcome


def setup(players: int, options: Mapping[str, OptionValue], deal: Mapping[str, Any] | None, rng: Any) -> list[Any]:
    galateia = bool(options.get("galateia", False))
    if deal is None:
        piles, set_aside = shuffled_piles(players, galateia, rng)
    else:
        piles, set_aside = dealt_piles(players, galateia, deal)
    events: list[Any] = [PilesDealt(piles, set_aside)]
    events += [CardsDrawn(seat, pile[:HAND_SIZE]) for seat, pile in enumerate(piles)]
    return events + pass_turn(fold(initial(players, options), events), FIRST_SEAT)


Piles = tuple[tuple[str, ...], ...]


def shuffled_piles(players: int, galateia: bool, rng: Any) -> tuple[Piles, tuple[str, ...]]:
    islands, set_aside = list(ISLANDS), ()
    if galateia:
        islands = rng.shuffled(islands)
        set_aside, islands = sorted_cards(islands[:GALATEIA_SET_ASIDE]), islands[GALATEIA_SET_ASIDE:]
    cards = rng.shuffled(islands + [FINISH] * FINISH_CARDS)
    piles, start = [], 0
    for size in pile_sizes(len(cards), players):
        # each player shuffles one Start card into their own pile
        piles.append(tuple(rng.shuffled([*cards[start : start + size], START])))
        start += size
    return tuple(piles), set_aside


def dealt_piles(players: int, galateia: bool, deal: Mapping[str, Any]) -> tuple[Piles, tuple[str, ...]]:
    """The piles of an exact deal, checked: exactly the game's cards, one Start in every pile, the
    pile sizes a shuffled deal makes, and with Galateia exactly four Islands left out."""
    shape = 'a tranquility deal is {"piles": [[top card, ...], ...]} with one pile per seat'
    raw = deal.get("piles")
    if set(deal) != {"piles"} or not isinstance(raw, (list, tuple)):
        raise SetupError(shape)
    if len(raw) != players:
        raise SetupError(f"the deal has {len(raw)} piles for {players} players")
    piles = []
    for seat, pile in enumerate(raw):
        if not isinstance(pile, (list, tuple)):
            raise SetupError(f"pile {seat} is not a list of cards ({shape})")
        cards = []
        for text in pile:
            card = parse_card(text)
            if card is None:
                raise SetupError(f"pile {seat}: {text!r} is not a card of this game")
            cards.append(card)
        if cards.count(START) != 1:
            raise SetupError(f"pile {seat} holds {cards.count(START)} Start cards; every pile holds exactly one")
        piles.append(tuple(cards))
    given = [card for pile in piles for card in pile if card != START]
    expected = list(ISLANDS) + [FINISH] * FINISH_CARDS
    set_aside: tuple[str, ...] = ()
    if galateia:
        twice = sorted((card for card, n in Counter(given).items() if n > 1 and is_island(card)), key=card_key)
        if twice:
            raise SetupError(f"the deal: card {twice[0]} appears more often than the game has it")
        set_aside = tuple(card for card in ISLANDS if card not in set(given))
        if len(set_aside) != GALATEIA_SET_ASIDE:
            raise SetupError(
                f"the deal leaves out {len(set_aside)} Islands; "
                f"with galateia it leaves out exactly {GALATEIA_SET_ASIDE}"
            )
        expected = [card for card in expected if card not in set_aside]
    check_cards(given, expected, "the deal")
    sizes = [size + 1 for size in pile_sizes(len(given), players)]
    if [len(pile) for pile in piles] != sizes:
        raise SetupError(
            f"the deal has piles of {', '.join(str(len(p)) for p in piles)} cards; they must hold "
            f"{', '.join(map(str, sizes))} (as even as possible, lower seats taking the extra cards, "
            "each with its Start)"
        )
    return tuple(piles), set_aside


def fold(state: State, events: Iterable[Any]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def evolve(state: State, event: Any) -> State:
    if isinstance(event, PilesDealt):
        return attrs.evolve(state, piles=event.piles, set_aside=event.set_aside)
    if isinstance(event, CardsDrawn):
        return drawn(state, event.seat, event.cards)
    if isinstance(event, HandsRefilled):
        for seat, cards in enumerate(event.draws):
            state = drawn(state, seat, cards)
        pending = state.start_discard
        if pending is not None and pending.owed > 0:
            state = attrs.evolve(state, start_discard=attrs.evolve(pending, refilled=True))
        return state
    if isinstance(event, TurnPassed):
        return attrs.evolve(state, turn=event.seat, start_discard=None)
    if isinstance(event, IslandPlayed):
        cell = CELL_INDEX[event.cell]
        state = attrs.evolve(state, grid=with_item(state.grid, cell, event.card))
        return discarded(taken_from_hand(state, event.seat, [str(event.card)]), event.seat, event.paid)
    if isinstance(event, CardsDiscarded):
        return discarded(state, event.seat, event.cards)
    if isinstance(event, StartPlayed):
        state = taken_from_hand(state, event.seat, [START])
        return attrs.evolve(state, start_down=True, start_discard=StartDiscard(event.seat, START_DISCARD))
    if isinstance(event, StartShareDiscarded):
        pending = state.start_discard
        assert pending is not None
        turn = start_discard_turn(state)
        assert turn is not None
        state = discarded(state, event.seat, event.cards)
        share = attrs.evolve(pending, owed=pending.owed - len(event.cards), taken=turn + 1)
        return attrs.evolve(state, start_discard=share)
    if isinstance(event, FinishPlayed):
        return attrs.evolve(taken_from_hand(state, event.seat, [FINISH]), finish_down=True)
    if isinstance(event, GameLost):
        return attrs.evolve(state, lost=event.reason, lost_by=event.seat)
    raise TypeError(f"not a tranquility event: {event!r}")


def drawn(state: State, seat: int, cards: Sequence[str]) -> State:
    hands = with_item(state.hands, seat, sorted_cards(state.hands[seat] + tuple(cards)))
    piles = with_item(state.piles, seat, state.piles[seat][len(cards) :])
    return attrs.evolve(state, hands=hands, piles=piles)


def taken_from_hand(state: State, seat: int, cards: Sequence[str]) -> State:
    return attrs.evolve(state, hands=with_item(state.hands, seat, remove_cards(state.hands[seat], cards)))


def discarded(state: State, seat: int, cards: Sequence[str]) -> State:
    state = taken_from_hand(state, seat, cards)
    return attrs.evolve(state, discards=with_item(state.discards, seat, state.discards[seat] + tuple(cards)))


def to_act(state: State) -> tuple[int, ...]:
    if is_over(state):
        return ()
    if state.start_discard is not None:
        turn = start_discard_turn(state)
        return () if turn is None else (start_discard_seat(state, turn),)
    return (state.turn,)


def legal_moves(state: State, seat: int) -> list[Move]:
    if seat not in to_act(state):
        return []
    if state.start_discard is not None:
        return list(start_discard_moves(state, seat))
    return list(turn_moves(state, seat))


def turn_moves(state: State, seat: int) -> Iterator[Move]:
    hand = state.hands[seat]
    if finish_due(state):
        if FINISH in hand:
            yield PlayFinish()
        return
    if start_due(state, hand):
        yield PlayStart()
        return
    yield from placements(state, hand)
    for pair in distinct_combinations(hand, 2):
        yield Discard(pair)


def outcome(state: State) -> Outcome | None:
    if not is_over(state):
        return None
    winners = tuple(range(state.players)) if state.finish_down else ()
    return Outcome(scores=(filled(state),) * state.players, winners=winners)


# ---------------------------------------------------------------------------------------------
# decide


def decide(state: State, seat: int, move: Move, rng: Any) -> list[Any]:
    if state.start_discard is not None:
        return decide_start_discard(state, seat, move)
    problem = turn_problem(state, seat, move)
    if problem is not None:
        raise IllegalMove(problem)
    return end_turn(state, seat, action_event(seat, move))


def turn_problem(state: State, seat: int, move: Move) -> str | None:
    """Why `seat` may not make `move` on its turn, or None."""
    hand = state.hands[seat]
    if finish_due(state) and not isinstance(move, PlayFinish):
        return "the grid is full and a Start card is in the frame: the only move is 'play finish'"
    if start_due(state, hand) and not isinstance(move, PlayStart):
        return "you hold a Start card and none is in the frame: you must play it ('play start')"
    if isinstance(move, PlayStart):
        if state.start_down:
            return "a Start card is already in the frame: the other Start cards can only be discarded"
        return None if START in hand else "you hold no Start card"
    if isinstance(move, PlayFinish):
        return finish_problem(state, hand)
    if isinstance(move, PlayIsland):
        return island_problem(state, hand, move)
    if len(move.cards) != 2:
        return f"discard exactly two cards as your action, not {len(move.cards)} (or play a card)"
    missing = missing_cards(hand, move.cards)
    return f"you do not hold {cards_text(missing)}" if missing else None


def finish_problem(state: State, hand: Sequence[str]) -> str | None:
    if not all(state.grid):
        return f"a Finish card can be played only on a full grid ({filled(state)} of {CELLS} cells are filled)"
    if not state.start_down:
        return "a Finish card can be played only once a Start card is in the frame"
    return None if FINISH in hand else "you hold no Finish card"


def island_problem(state: State, hand: Sequence[str], move: PlayIsland) -> str | None:
    card, where = str(move.card), CELL_NAMES[move.cell]
    if card not in hand:
        return f"you do not hold {card}"
    problem = placement_problem(state.grid, move.card, move.cell)
    if problem is not None:
        return problem
    cost, neighbour = placement_cost(state.grid, move.card, move.cell)
    rest = remove_cards(hand, [card])
    if cost > len(rest):
        return (
            f"placing {card} in {where} costs {count_text(cost)} (next to {neighbour}), "
            f"more than the {len(rest)} you would have left"
        )
    if len(move.paid) != cost:
        if cost == 0:
            return f"placing {card} in {where} costs nothing: play it without 'discard'"
        return (
            f"placing {card} in {where} costs {count_text(cost)} (the difference to {neighbour}): "
            f"add 'discard' and exactly {cost} of your other cards"
        )
    missing = missing_cards(rest, move.paid)
    if missing:
        return f"you cannot pay with {cards_text(missing)}: it is not among your other cards"
    return None


def action_event(seat: int, move: Move) -> Any:
    if isinstance(move, PlayIsland):
        return IslandPlayed(seat, move.card, CELL_NAMES[move.cell], move.paid)
    if isinstance(move, PlayStart):
        return StartPlayed(seat)
    if isinstance(move, PlayFinish):
        return FinishPlayed(seat)
    return CardsDiscarded(seat, move.cards)


def end_turn(state: State, seat: int, action: Any) -> list[Any]:
    """The action, then the draw back to five from the player's own pile, then the next turn."""
    events = [action]
    after = evolve(state, action)
    if after.finish_down:
        return events
    if after.start_discard is not None:
        return events + continue_start_discard(after)
    draw = draw_back(after, seat)
    if draw:
        events.append(CardsDrawn(seat, draw))
        after = evolve(after, events[-1])
    return events + pass_turn(after, (seat + 1) % state.players)


def draw_back(state: State, seat: int) -> tuple[str, ...]:
    """The cards `seat` draws to hold five again: fewer (or none) when its pile runs out."""
    return state.piles[seat][: max(0, HAND_SIZE - len(state.hands[seat]))]


def pass_turn(state: State, seat: int) -> list[Any]:
    """The turn passes to `seat`; if it can neither play nor discard two, everyone loses."""
    passed = TurnPassed(seat)
    after = evolve(state, passed)
    if next(turn_moves(after, seat), None) is not None:
        return [passed]
    reason = LossReason.NO_FINISH if finish_due(after) else LossReason.STUCK
    return [passed, GameLost(seat, reason)]


def decide_start_discard(state: State, seat: int, move: Move) -> list[Any]:
    pending = state.start_discard
    assert pending is not None
    hand = state.hands[seat]
    most, least = min(pending.owed, len(hand)), least_discard(state)
    if not isinstance(move, Discard):
        raise IllegalMove(
            f"the table is discarding for the Start ({count_text(pending.owed)} still owed): "
            f"discard {least} to {most} cards ('discard <card> ...')"
        )
    if len(move.cards) > pending.owed:
        raise IllegalMove(f"only {count_text(pending.owed)} still owed: discard at most {pending.owed}")
    missing = missing_cards(hand, move.cards)
    if missing:
        raise IllegalMove(f"you do not hold {cards_text(missing)}")
    if len(move.cards) < least:
        raise IllegalMove("past the first circle of the Start's discard you must discard at least one card")
    share = StartShareDiscarded(seat, move.cards)
    return [share, *continue_start_discard(evolve(state, share))]


def continue_start_discard(state: State) -> list[Any]:
    """After the Start or a share of its discard: when all 8 are paid, everyone draws back to five
    and the turn passes on; when every hand is empty with cards still owed, everyone draws back to
    five and the discard goes on (everyone loses if that brings no card at all)."""
    pending = state.start_discard
    assert pending is not None
    if pending.owed == 0:
        refill = HandsRefilled(draws_back(state))
        return [refill, *pass_turn(evolve(state, refill), seat_after_start(pending.starter, state.players))]
    if any(state.hands):
        return []
    draws = draws_back(state)
    if not any(draws):
        return [GameLost(start_discard_seat(state, pending.taken), LossReason.NO_CARDS)]
    return [HandsRefilled(draws)]


def draws_back(state: State) -> tuple[tuple[str, ...], ...]:
    return tuple(draw_back(state, seat) for seat in range(state.players))


# ---------------------------------------------------------------------------------------------
# view, narrate, determinize


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What `seat` sees: its own hand, the grid and the frame, and only the sizes of piles, hands
    and discards (discards lie face down; nobody sees another's hand)."""
    return {
        "hand": [] if seat is None else list(state.hands[seat]),
        "grid": {CELL_NAMES[cell]: value for cell, value in enumerate(state.grid) if value},
        "filled": filled(state),
        "frame": {"start": state.start_down, "finish": state.finish_down},
        "piles": [len(pile) for pile in state.piles],
        "hands": [len(hand) for hand in state.hands],
        "discarded": [len(cards) for cards in state.discards],
        "set_aside": len(state.set_aside),
        "start_discard": start_discard_view(state),
        "result": None if not is_over(state) else "won" if state.finish_down else f"lost: {state.lost.value}",
        # why the voyage was lost, in words (None unless it was)
        "loss": None if state.lost is None else LOSS_TEXT[state.lost].format(who=seat_name(state.lost_by)),
    }


def start_discard_view(state: State) -> dict[str, Any] | None:
    pending = state.start_discard
    if pending is None or is_over(state):
        return None
    turn = start_discard_turn(state)
    return {
        "starter": pending.starter,
        "owed": pending.owed,
        "circle": 1 + (pending.taken if turn is None else turn) // state.players,
        "at_least": least_discard(state),
    }


def narrate(state: State, event: Any, seat: int | None) -> str:
    if isinstance(event, PilesDealt):
        sizes = ", ".join(str(len(pile)) for pile in event.piles)
        aside = f"; {len(event.set_aside)} Islands are set aside unseen (Galateia)" if event.set_aside else ""
        return f"the cards are dealt into draw piles of {sizes}, each with its Start card{aside}"
    if isinstance(event, CardsDrawn):
        return f"{seat_name(event.seat)} draws {drawn_text(event.cards, event.seat == seat)}"
    if isinstance(event, HandsRefilled):
        first = state.start_discard.starter if state is not None and state.start_discard is not None else 0
        order = [(first + step) % len(event.draws) for step in range(len(event.draws))]
        draws = [f"{seat_name(s)} draws {drawn_text(event.draws[s], s == seat)}" for s in order]
        return "everyone draws back to five: " + ", ".join(draws)
    if isinstance(event, TurnPassed):
        return f"it is {seat_name(event.seat)}'s turn"
    if isinstance(event, IslandPlayed):
        paid = f", discarding {discard_text(event.paid, event.seat == seat)}" if event.paid else ""
        return f"{seat_name(event.seat)} places {event.card} in {event.cell}{paid}"
    if isinstance(event, CardsDiscarded):
        return f"{seat_name(event.seat)} discards {discard_text(event.cards, event.seat == seat)}"
    if isinstance(event, StartPlayed):
        return (
            f"{seat_name(event.seat)} plays a Start card into the frame: the table discards "
            f"{START_DISCARD} cards, {seat_name(event.seat)} first"
        )
    if isinstance(event, StartShareDiscarded):
        owed = state.start_discard.owed - len(event.cards) if state is not None and state.start_discard else 0
        what = discard_text(event.cards, event.seat == seat) if event.cards else "nothing"
        return f"{seat_name(event.seat)} discards {what} for the Start ({count_text(owed)} still owed)"
    if isinstance(event, FinishPlayed):
        return f"{seat_name(event.seat)} plays a Finish card: the voyage is complete, everyone wins"
    if isinstance(event, GameLost):
        return f"everyone loses: {LOSS_TEXT[event.reason].format(who=seat_name(event.seat))}"
    raise TypeError(f"not a tranquility event: {event!r}")


LOSS_TEXT: Mapping[LossReason, str] = {
    LossReason.STUCK: "{who} can neither play a card nor discard two",
    LossReason.NO_FINISH: "the grid is full but {who} holds no Finish card",
    LossReason.NO_CARDS: "cards of the Start's discard are still owed, but every hand and pile is empty",
}


def drawn_text(cards: Sequence[str], own: bool) -> str:
    if not cards:
        return "nothing"
    return f"{count_text(len(cards))} ({cards_text(cards)})" if own else count_text(len(cards))


def discard_text(cards: Sequence[str], own: bool) -> str:
    """Discards lie face down: only their owner is reminded of the faces."""
    faces = f" ({cards_text(cards)})" if own else ""
    return f"{count_text(len(cards))} face down{faces}"


def determinize(state: State, seat: int, rng: Any) -> State:
    """The cards hidden from `seat` dealt anew among the places hidden from it, each keeping its
    size: the other hands, every draw pile (its own too), the others' discards and the Galateia
    set-aside. `seat` remembers its own discards, so they stay. What everyone knows is kept:
    every seat's unplayed Start stays among that seat's own places (pile, and for others hand and,
    once a Start is down, discards), and the set-aside holds Islands only."""
    places: dict[tuple[str, int], tuple[str, ...]] = {}
    for other in range(state.players):
        places["pile", other] = state.piles[other]
        if other != seat:
            places["hand", other] = state.hands[other]
            places["discards", other] = state.discards[other]
    places["set_aside", 0] = state.set_aside
    slots: dict[tuple[str, int], list[str | None]] = {key: [None] * len(cards) for key, cards in places.items()}

    for key, cards in places.items():
        for _ in range(cards.count(START)):
            owner = key[1]
            kinds = ["pile"] if owner == seat else ["pile", "hand"] + (["discards"] if state.start_down else [])
            free = [(kind, i) for kind in kinds for i, card in enumerate(slots[kind, owner]) if card is None]
            kind, index = free[rng.below(len(free))]
            slots[kind, owner][index] = START

    pool = rng.shuffled([card for cards in places.values() for card in cards if card != START])
    aside = [card for card in pool if is_island(card)][: len(state.set_aside)]
    slots["set_aside", 0] = aside
    for card in aside:
        pool.remove(card)
    for cards in slots.values():
        for index, card in enumerate(cards):
            if card is None:
                cards[index] = pool.pop()

    def dealt(kind: str, current: tuple[tuple[str, ...], ...], order: Any = tuple) -> tuple[tuple[str, ...], ...]:
        return tuple(order(slots[kind, s]) if (kind, s) in slots else current[s] for s in range(state.players))

    return attrs.evolve(
        state,
        piles=dealt("pile", state.piles),
        hands=dealt("hand", state.hands, sorted_cards),
        discards=dealt("discards", state.discards),
        set_aside=sorted_cards(aside),
    )
