"""Holly Oak's rules: cards, the move, the state and the contract functions. Pure: no I/O, no
randomness except the rng handed to setup/decide, rule checks only in decide, evolve only applies.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

import attrs

from core.contract import IllegalMove, OptionValue, Outcome, SetupError, check_cards, seat_name, with_item
from core.games.holly_oak.events import (
    CardPlayed,
    GameEnded,
    HandsDealt,
    LeadPassed,
    RoundEndedOutOfSeason,
    RoundScored,
    Season,
    TrickWon,
)

# ---------------------------------------------------------------------------------------------
# House decisions and per-player-count tables (holly-oak.md): each in this one place.

# The six Oak and Holly kings (bordered indices) and what each is worth to the trick's winner.
# The printed list was not found: this is the house table from holly-oak.md.
KING_POINTS: Mapping[str, int] = {
    "0Sp": 2,
    "7Sp": 1,
    "9Su": 1,
    "0Fa": 2,
    "7Fa": 1,
    "9Wi": 1,
}
# Cards returned to the box, by player count (so that every hand has the same size).
REMOVED_CARDS: Mapping[int, tuple[str, ...]] = {3: (), 4: ("0Wi",), 5: ()}
# Points for a player who won no trick in the round, by player count.
NO_TRICK_BONUS: Mapping[int, int] = {3: 8, 4: 5, 5: 3}
# The game ends after a round in which someone has at least this many points.
WINNING_SCORE: Mapping[int, int] = {3: 15, 4: 13, 5: 10}
# The first trick of every round: led in Spring by the holder of this card, who must lead it.
FIRST_SEASON = Season.SPRING
FIRST_LEAD = "1Sp"
# Season Retreats ranks 1/2 in the season it moved to: ranks are compared doubled, so it is 1.
RETREAT_STRENGTH = 1

# ---------------------------------------------------------------------------------------------
# Seasons and cards

SEASONS: tuple[Season, ...] = tuple(Season)
INITIALS: Mapping[Season, str] = {season: season.value[:2] for season in SEASONS}


def next_season(season: Season) -> Season:
    return SEASONS[(SEASONS.index(season) + 1) % len(SEASONS)]


def previous_season(season: Season) -> Season:
    return SEASONS[(SEASONS.index(season) - 1) % len(SEASONS)]


@attrs.frozen(eq=False)
class Card:
    """A season card (rank 0-10), or Season Retreats: season and rank None, since it has no
    season until it is played (it is not "all seasons").

    Equal by season and rank, as attrs would make it, but written out with a first test of
    identity: every card the rules make is one of ALL_CARDS, so most comparisons end there, and
    hands are searched with `in` and filtered card by card on every move (bench/spine.py's profile).
    """

    season: Season | None = None
    rank: int | None = None

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not Card:
            return NotImplemented
        return self.season is other.season and self.rank == other.rank

    def __hash__(self) -> int:
        return hash((self.season, self.rank))

    @property
    def is_retreat(self) -> bool:
        return self.season is None

    def __str__(self) -> str:
        text = _TEXT_BY_ID.get(id(self))
        if text is None:  # not one of ALL_CARDS
            text = "SR" if self.season is None else f"{self.rank}{INITIALS[self.season]}"
        return text


# The texts of ALL_CARDS (filled below) by identity: a card's text is asked for on every move it
# could make and every card played, and made afresh it costs a lookup keyed by a Season, whose hash
# is a Python call (Enum.__hash__).
_TEXT_BY_ID: dict[int, str] = {}
RETREATS = Card()
ALL_CARDS: tuple[Card, ...] = (
    *(Card(season, rank) for season in SEASONS for rank in range(11)),
    RETREATS,
)
_TEXT_BY_ID.update((id(card), str(card)) for card in ALL_CARDS)
CARD_ORDER: Mapping[Card, int] = {card: i for i, card in enumerate(ALL_CARDS)}
# The module keeps ALL_CARDS alive, so no other object can have one of these ids.
_ALL_CARD_IDS = frozenset(map(id, ALL_CARDS))
CARDS_BY_TEXT: Mapping[str, Card] = {str(card).lower(): card for card in ALL_CARDS}
# By canonical text first: an event holds that, and a fold looks up every card it plays.
_CARDS_BY_CANONICAL: Mapping[str, Card] = {str(card): card for card in ALL_CARDS}


def card_of(text: str) -> Card:
    """The card a canonical (or differently cased) text names; KeyError if none."""
    return _CARDS_BY_CANONICAL.get(text) or CARDS_BY_TEXT[text.lower()]


def deck(players: int) -> tuple[Card, ...]:
    removed = REMOVED_CARDS[players]
    return tuple(card for card in ALL_CARDS if str(card) not in removed)


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=CARD_ORDER.__getitem__))


def without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """`cards` without `card` (nor any card equal to it). When every one of them is one of
    ALL_CARDS, as the rules make them, equal means identical, and the cards are filtered by
    identity without a Python call per card (this runs for every card played, in every fold);
    else (a state decoded from a snapshot) by equality."""
    if id(card) in _ALL_CARD_IDS and _ALL_CARD_IDS.issuperset(map(id, cards)):
        return tuple(filter(partial(operator.is_not, card), cards))
    return tuple(c for c in cards if c != card)


def texts(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


# Whether each of ALL_CARDS is a king, by identity: a won trick asks it of each of its cards, in
# every fold; a card that is not one of ALL_CARDS (from a snapshot) is asked by its text.
_KING_BY_ID: Mapping[int, bool] = {id(card): str(card) in KING_POINTS for card in ALL_CARDS}


def is_king(card: Card) -> bool:
    king = _KING_BY_ID.get(id(card))
    return str(card) in KING_POINTS if king is None else king


# ---------------------------------------------------------------------------------------------
# The move


@attrs.frozen
class Play:
    """The only move: play one card from hand."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"


def parse_move(text: str) -> Play:
    words = text.split()
    if len(words) == 2 and words[0].lower() == "play" and words[1].lower() in CARDS_BY_TEXT:
        return Play(card_of(words[1]))
    raise IllegalMove(f"malformed move {text!r}: expected play <card>, e.g. play 7Su or play SR")


# ---------------------------------------------------------------------------------------------
# The state


@attrs.frozen
class Played:
    """A card in the current trick; `season` is the season it counts in: its own, or for Season
    Retreats the season it moved to (kept for the rest of the trick)."""

    seat: int
    card: Card
    season: Season


@attrs.frozen
class State:
    players: int
    round: int  # 0 until the first deal
    hands: tuple[tuple[Card, ...], ...]
    season: Season
    leader: int  # the seat that leads (or led) the current trick
    trick: tuple[Played, ...]
    tricks_won: tuple[int, ...]  # this round
    kings_taken: tuple[tuple[Card, ...], ...]  # this round
    scores: tuple[int, ...]
    round_points: tuple[int, ...]  # of the last round scored: the tie-break
    over: bool = False
    winners: tuple[int, ...] = ()
    # The trick won last and who won it: what the table shows once a trick is taken (a page at
    # the end of a game would otherwise show an empty table). Cleared by a new deal.
    last_trick: tuple[Played, ...] = ()
    last_winner: int | None = None


def initial(players: int, options: Mapping[str, OptionValue]) -> State:
    return State(
        players=players,
        round=0,
        hands=((),) * players,
        season=FIRST_SEASON,
        leader=0,
        trick=(),
        tricks_won=(0,) * players,
        kings_taken=((),) * players,
        scores=(0,) * players,
        round_points=(0,) * players,
    )


def clockwise(start: int, players: int) -> list[int]:
    return [(start + step) % players for step in range(players)]


# ---------------------------------------------------------------------------------------------
# Rules of play


def lead_options(hand: Sequence[Card], season: Season) -> list[Card]:
    """A leader may lead a current-season card, a next-season card or Season Retreats."""
    leadable = (season, next_season(season))
    return [card for card in hand if card.is_retreat or card.season in leadable]


def follow_options(hand: Sequence[Card], season: Season) -> list[Card]:
    """A follower holding the current season must play it (never Season Retreats then); else any card."""
    in_season = [card for card in hand if card.season == season]
    return in_season or list(hand)


def leads_round(state: State) -> bool:
    """True when the next card is the round's very first: the 1 Spring lead."""
    return not state.trick and not any(state.tricks_won)


def playable_cards(state: State, seat: int) -> list[Card]:
    hand = state.hands[seat]
    if leads_round(state):
        return [card for card in hand if str(card) == FIRST_LEAD]
    if not state.trick:
        return lead_options(hand, state.season)
    return follow_options(hand, state.season)


def season_after(season: Season, card: Card) -> Season:
    """A next-season card advances the season, Season Retreats moves it back, others leave it."""
    if card.is_retreat:
        return previous_season(season)
    if card.season == next_season(season):
        return next_season(season)
    return season


def strength(played: Played) -> int:
    return RETREAT_STRENGTH if played.card.is_retreat else 2 * played.card.rank


def trick_winner(trick: Sequence[Played], season: Season) -> Played:
    """The highest card counting in the season current at the end of the trick (there always is
    one: whatever made the season current, or the lead if nothing changed it)."""
    return max((played for played in trick if played.season == season), key=strength)


def played_into(trick: Sequence[Played], season: Season, seat: int, card: Card) -> tuple[tuple[Played, ...], Season]:
    """The trick with `card` played into it by `seat`, and the season current then."""
    after = season_after(season, card)
    return (*trick, Played(seat, card, after if card.is_retreat else card.season)), after


def beats(trick: Sequence[Played], season: Season, seat: int, card: Card) -> bool:
    """Whether `card`, played by `seat` now, would be the trick's best card so far: the highest
    of the season current then (led into an empty trick, any card that may lead is)."""
    played, after = played_into(trick, season, seat, card)
    mine = played[-1]
    return mine.season == after and all(strength(other) < strength(mine) for other in trick if other.season == after)


def round_points(state: State) -> tuple[int, ...]:
    bonus = NO_TRICK_BONUS[state.players]
    return tuple(
        sum(KING_POINTS[str(card)] for card in kings) if won else bonus
        for won, kings in zip(state.tricks_won, state.kings_taken)
    )


def winners_of(scores: Sequence[int], last_round: Sequence[int]) -> tuple[int, ...]:
    """Most points; among those tied, most points in the final round; still tied: all share."""
    top = max(scores)
    tied = [seat for seat, score in enumerate(scores) if score == top]
    best_round = max(last_round[seat] for seat in tied)
    return tuple(seat for seat in tied if last_round[seat] == best_round)


def season_choices(season: Season) -> str:
    return f"{season.value}, {next_season(season).value} or SR"


# ---------------------------------------------------------------------------------------------
# setup and decide: the only places rules are checked and randomness drawn


def dealt(players: int, round_number: int, rng: Any) -> HandsDealt:
    """Shuffle the whole deck and deal it all, evenly."""
    cards = rng.shuffled(deck(players))
    size = len(cards) // players
    hands = tuple(
        tuple(texts(sorted_cards(cards[seat * size : (seat + 1) * size]))) for seat in range(players)
    )
    return HandsDealt(round=round_number, hands=hands)


def setup(
    players: int, options: Mapping[str, OptionValue], deal: Mapping[str, Any] | None, rng: Any
) -> list[Any]:
    if deal is None:
        return [dealt(players, 1, rng)]
    return [HandsDealt(round=1, hands=hands_from_deal(players, deal))]


def hands_from_deal(players: int, deal: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    shape = 'a holly-oak deal is {"hands": [[card, ...], ...]}, one list per seat'
    if set(deal) != {"hands"}:
        raise SetupError(f"{shape}; got keys {sorted(map(str, deal))}")
    hands = deal["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise SetupError(f"{shape}: {players} lists for {players} players")
    size = len(deck(players)) // players
    canonical = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)) or not all(isinstance(text, str) for text in hand):
            raise SetupError(f"deal: seat {seat}'s hand must be a list of card texts")
        if len(hand) != size:
            raise SetupError(
                f"deal: seat {seat} has {len(hand)} cards; with {players} players each hand has {size}"
            )
        canonical.append([str(card_of(t)) if t.lower() in CARDS_BY_TEXT else t for t in hand])
    check_cards([t for hand in canonical for t in hand], texts(deck(players)), f"deal for {players} players")
    return tuple(tuple(texts(sorted_cards(map(card_of, hand)))) for hand in canonical)


def decide(state: State, seat: int, move: Play, rng: Any) -> list[Any]:
    card = move.card
    if card not in state.hands[seat]:
        raise IllegalMove(f"you do not hold {card}")
    if card not in playable_cards(state, seat):
        raise IllegalMove(refusal(state, seat, card))
    played = CardPlayed(seat=seat, card=str(card), season=season_after(state.season, card))
    if len(state.trick) + 1 < state.players:  # the trick goes on: nothing follows from the card
        return [played]
    return [played, *finish_trick(evolve(state, played), rng)]


def refusal(state: State, seat: int, card: Card) -> str:
    if leads_round(state):
        return f"the first trick of a round is led with {FIRST_LEAD}, not {card}"
    if not state.trick:
        return f"you must lead {season_choices(state.season)}: {card} is none of these"
    in_season = [c for c in state.hands[seat] if c.season == state.season]
    return f"you must follow {state.season.value}: you hold {', '.join(texts(in_season))}"


def finish_trick(state: State, rng: Any) -> list[Any]:
    best = trick_winner(state.trick, state.season)
    won = TrickWon(seat=best.seat, card=str(best.card))
    after = evolve(state, won)
    if not any(after.hands):
        return [won, *end_round(after, rng)]
    return [won, *next_lead(after, rng)]


def next_lead(state: State, rng: Any) -> list[Any]:
    """The winner leads if they can; else the first player clockwise who can; else nobody can and
    the round ends out of season."""
    order = clockwise(state.leader, state.players)
    for passes, seat in enumerate(order):
        if lead_options(state.hands[seat], state.season):
            return [LeadPassed(seat=seat, passed=tuple(order[:passes]))] if passes else []
    out = RoundEndedOutOfSeason(round=state.round)
    return [out, *end_round(evolve(state, out), rng)]


def end_round(state: State, rng: Any) -> list[Any]:
    scored = RoundScored(round=state.round, points=round_points(state))
    after = evolve(state, scored)
    if max(after.scores) >= WINNING_SCORE[after.players]:
        return [scored, GameEnded(scores=after.scores, winners=winners_of(after.scores, after.round_points))]
    return [scored, dealt(after.players, after.round + 1, rng)]


# ---------------------------------------------------------------------------------------------
# evolve: applies, never validates


def evolve(state: State, event: Any) -> State:
    # The two events of nearly every move build their State directly: attrs.evolve looks up the
    # class's fields on every call, which cost as much as the rest of the fold (bench/spine.py).
    if isinstance(event, CardPlayed):
        hand, card, counts_in = card_leaves(state.hands[event.seat], event)
        return State(
            players=state.players,
            round=state.round,
            hands=with_item(state.hands, event.seat, hand),
            season=event.season,
            leader=state.leader,
            trick=(*state.trick, Played(event.seat, card, counts_in)),
            tricks_won=state.tricks_won,
            kings_taken=state.kings_taken,
            scores=state.scores,
            round_points=state.round_points,
            over=state.over,
            winners=state.winners,
            last_trick=state.last_trick,
            last_winner=state.last_winner,
        )
    if isinstance(event, TrickWon):
        seat = event.seat
        kings = kings_in(played.card for played in state.trick)
        return State(
            players=state.players,
            round=state.round,
            hands=state.hands,
            season=state.season,
            leader=seat,
            trick=(),
            tricks_won=with_item(state.tricks_won, seat, state.tricks_won[seat] + 1),
            kings_taken=with_item(state.kings_taken, seat, state.kings_taken[seat] + kings),
            scores=state.scores,
            round_points=state.round_points,
            over=state.over,
            winners=state.winners,
            last_trick=state.trick,
            last_winner=seat,
        )
    if isinstance(event, HandsDealt):
        hands = tuple(tuple(card_of(text) for text in hand) for hand in event.hands)
        first = card_of(FIRST_LEAD)
        return attrs.evolve(
            state,
            round=event.round,
            hands=hands,
            season=FIRST_SEASON,
            leader=next(seat for seat, hand in enumerate(hands) if first in hand),
            trick=(),
            tricks_won=(0,) * state.players,
            kings_taken=((),) * state.players,
            last_trick=(),
            last_winner=None,
        )
    if isinstance(event, LeadPassed):
        return attrs.evolve(state, leader=event.seat)
    if isinstance(event, RoundEndedOutOfSeason):
        return attrs.evolve(state, hands=((),) * state.players)
    if isinstance(event, RoundScored):
        scores = tuple(score + points for score, points in zip(state.scores, event.points))
        return attrs.evolve(state, scores=scores, round_points=event.points)
    if isinstance(event, GameEnded):
        return attrs.evolve(state, over=True, scores=event.scores, winners=event.winners)
    raise TypeError(f"holly-oak cannot apply {type(event).__name__}")


def card_leaves(hand: tuple[Card, ...], event: CardPlayed) -> tuple[tuple[Card, ...], Card, Season]:
    """The hand without the card played, the card, and the season it counts in for the rest of
    the trick (Season Retreats: the season it moved to)."""
    card = card_of(event.card)
    return without(hand, card), card, event.season if card.season is None else card.season


def kings_in(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(card for card in cards if is_king(card))


def fold(state: State, events: Sequence[Any]) -> State:
    """evolve over many events (a replay, a cold read): the parts a card or a won trick changes
    are kept in local variables and one State is built at the end, instead of one a card (most
    of a replay's time went into building States). The trick is kept as (seat, card, season)
    triples, made Played only for a State: most tricks are won before one is built. The other
    events go through evolve."""

    def unbuilt(state: State) -> tuple[list[Any], ...]:
        trick = [(played.seat, played.card, played.season) for played in state.trick]
        last = [(played.seat, played.card, played.season) for played in state.last_trick]
        return (list(state.hands), trick, state.season, state.leader, list(state.tricks_won), list(state.kings_taken),
                last, state.last_winner)

    hands, trick, season, leader, tricks_won, kings_taken, last_trick, last_winner = unbuilt(state)
    changed = False  # the locals hold events the state does not

    def built() -> State:
        return State(
            players=state.players,
            round=state.round,
            hands=tuple(hands),
            season=season,
            leader=leader,
            trick=tuple(Played(*played) for played in trick),
            tricks_won=tuple(tricks_won),
            kings_taken=tuple(kings_taken),
            scores=state.scores,
            round_points=state.round_points,
            over=state.over,
            winners=state.winners,
            last_trick=tuple(Played(*played) for played in last_trick),
            last_winner=last_winner,
        )

    for event in events:
        if isinstance(event, CardPlayed):
            hands[event.seat], card, counts_in = card_leaves(hands[event.seat], event)
            trick.append((event.seat, card, counts_in))
            season = event.season
            changed = True
        elif isinstance(event, TrickWon):
            seat = event.seat
            kings_taken[seat] = kings_taken[seat] + kings_in(card for _seat, card, _season in trick)
            tricks_won[seat] += 1
            leader, trick, last_trick, last_winner = seat, [], trick, seat
            changed = True
        else:
            state = evolve(built() if changed else state, event)
            hands, trick, season, leader, tricks_won, kings_taken, last_trick, last_winner = unbuilt(state)
            changed = False
    return built() if changed else state


# ---------------------------------------------------------------------------------------------
# What players see


def to_act(state: State) -> tuple[int, ...]:
    if state.over or state.round == 0:
        return ()
    return ((state.leader + len(state.trick)) % state.players,)


def legal_moves(state: State, seat: int) -> list[Play]:
    if seat not in to_act(state):
        return []
    return [Play(card) for card in playable_cards(state, seat)]


def outcome(state: State) -> Outcome | None:
    return Outcome(scores=state.scores, winners=state.winners) if state.over else None


def view(state: State, seat: int | None) -> dict[str, Any]:
    return {
        "hand": [] if seat is None else texts(state.hands[seat]),
        "round": state.round,
        "season": state.season.value,
        "leader": state.leader,
        "trick": [
            {"seat": p.seat, "card": str(p.card), "season": p.season.value} for p in state.trick
        ],
        # the trick taken last (this round's; none yet after a deal) and the seat that took it
        "last_trick": [
            {"seat": p.seat, "card": str(p.card), "season": p.season.value} for p in state.last_trick
        ],
        "last_winner": state.last_winner,
        "tricks_won": list(state.tricks_won),
        "kings_taken": [texts(kings) for kings in state.kings_taken],
        "scores": list(state.scores),
        "round_points": list(state.round_points),
        "hand_sizes": [len(hand) for hand in state.hands],
        "winning_score": WINNING_SCORE[state.players],
        "no_trick_bonus": NO_TRICK_BONUS[state.players],
    }


def determinize(state: State, seat: int, rng: Any) -> State:
    """The other hands dealt anew from their pooled cards, each keeping its size."""
    others = [s for s in range(state.players) if s != seat]
    pool = rng.shuffled([card for s in others for card in state.hands[s]])
    hands = list(state.hands)
    for s in others:
        size = len(hands[s])
        hands[s], pool = sorted_cards(pool[:size]), pool[size:]
    return attrs.evolve(state, hands=tuple(hands))


def seats_text(seats: Sequence[int]) -> str:
    names = [seat_name(s) for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def narrate(state: State | None, event: Any, seat: int | None) -> str:
    if isinstance(event, HandsDealt):
        leader = next(s for s, hand in enumerate(event.hands) if FIRST_LEAD in hand)
        size = len(event.hands[0])
        yours = "" if seat is None else f"; you hold {' '.join(event.hands[seat])}"
        return (
            f"round {event.round}: the cards are dealt, {size} to each seat{yours}; "
            f"{seat_name(leader)} holds {FIRST_LEAD} and leads"
        )
    if isinstance(event, CardPlayed):
        return card_played_text(state, event)
    if isinstance(event, TrickWon):
        kings = [str(p.card) for p in state.trick if is_king(p.card)]
        taken = f" (kings: {', '.join(kings)})" if kings else ""
        return f"{seat_name(event.seat)} won the trick with {event.card}{taken}"
    if isinstance(event, LeadPassed):
        return (
            f"{seats_text(event.passed)} cannot lead {season_choices(state.season)}: "
            f"the lead passes to {seat_name(event.seat)}"
        )
    if isinstance(event, RoundEndedOutOfSeason):
        left = sum(len(hand) for hand in state.hands)
        return (
            f"nobody can lead {season_choices(state.season)}: round {event.round} ends out of season; "
            f"the {left} cards left in hands are set aside and do not score"
        )
    if isinstance(event, RoundScored):
        return f"round {event.round} scored: " + "; ".join(
            score_text(state, s, points) for s, points in enumerate(event.points)
        )
    if isinstance(event, GameEnded):
        return game_end_text(state, event)
    return f"holly-oak: {type(event).__name__}"



def card_played_text(state: State, event: CardPlayed) -> str:
    """Says the season out loud, as the rulebook's tip asks: the new one, or "still" the old one."""
    who, season = seat_name(event.seat), event.season.value
    if leads_round(state):
        return f"{who} led {event.card}: round {state.round} begins in {season}"
    verb = "played" if state.trick else "led"
    if card_of(event.card).is_retreat:
        return f"{who} {verb} SR: it's {season} now (SR counts as 1/2 {season})"
    if event.season != state.season:
        return f"{who} {verb} {event.card}: it's {season} now"
    return f"{who} {verb} {event.card}: still {season}"


def score_text(state: State, seat: int, points: int) -> str:
    if not state.tricks_won[seat]:
        why = "no tricks"
    elif state.kings_taken[seat]:
        why = "kings " + ", ".join(texts(state.kings_taken[seat]))
    else:
        why = "no kings"
    return f"{seat_name(seat)} +{points} ({why}), total {state.scores[seat] + points}"


def game_end_text(state: State, event: GameEnded) -> str:
    top = max(event.scores)
    tied = [s for s, score in enumerate(event.scores) if score == top]
    if len(event.winners) > 1:
        return f"the game ends: {seats_text(event.winners)} share the win with {top} points"
    why = " and the most points in the final round" if len(tied) > 1 else ""
    return f"the game ends: {seat_name(event.winners[0])} wins with {top} points{why}"
