"""The per-game rule-based players and the tables they are filed in (read through
workers.heuristics, which imports this module: this one imports nothing of workers). No I/O.

Each reads only its seat's view and legal move texts, and may call its game's pure rule helpers.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from core.games.holly_oak import rules as holly
from core.games.holly_oak.events import Season


def registry(table: dict[str, Any]) -> Callable[[str], Callable[[Any], Any]]:
    """A decorator by slug that files the decorated function in `table`: @heuristic("holidays")."""

    def by_slug(slug: str) -> Callable[[Any], Any]:
        def register(function: Any) -> Any:
            table[slug] = function
            return function

        return register

    return by_slug


Heuristic = Callable[[dict[str, Any], list[str], random.Random], str]
HEURISTICS: dict[str, Heuristic] = {}
heuristic = registry(HEURISTICS)


# Per game, the moves worth the search's time: (view, legal move texts) -> a non-empty subset.
# It drops moves that are never sensible (a bid beyond one's own money in Holiday!) and keeps one
# of many near-equal ones (which card pays for a change in Holidays), so the search's visits are
# not spread over hundreds of moves. Games not named search every legal move.
Candidates = Callable[[dict[str, Any], list[str]], list[str]]
CANDIDATES: dict[str, Candidates] = {}
candidates = registry(CANDIDATES)


# ---------------------------------------------------------------------------------------------
# Holly Oak


@heuristic("holly-oak")
def holly_oak(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Take tricks that hold kings (playing our own kings into them), duck empty tricks while the
    no-trick bonus is still ours to lose, and otherwise shed high cards we cannot win with."""
    me = view["seat"]
    season = Season(view["season"])
    trick = [holly.Played(p["seat"], holly.card_of(p["card"]), Season(p["season"])) for p in view["trick"]]
    players = len(view["scores"])
    still_to_play = players - len(trick) - 1
    bonus_alive = view["tricks_won"][me] == 0
    best, best_score = legal[0], None
    for text in legal:
        card = holly.card_of(text.split()[1])
        played, after = holly.played_into(trick, season, me, card)
        winning = holly.trick_winner(played, after).seat == me
        kings = sum(holly.KING_POINTS.get(str(p.card), 0) for p in played)
        strength = 0 if card.is_retreat else card.rank
        if winning:
            # A win that later players may still take from us is worth less; a king won is points.
            safety = 1.0 if still_to_play == 0 else strength / 10
            score = kings * 3 * safety - (view["no_trick_bonus"] * 0.6 if bonus_alive and kings == 0 else 0)
            score -= strength * 0.05  # win cheaply
        else:
            # Losing: never hand our own king to someone else; shed the highest harmless card.
            score = -3 * holly.KING_POINTS.get(str(card), 0) + strength * 0.1
        score += rng.random() * 1e-3
        if best_score is None or score > best_score:
            best, best_score = text, score
    return best


# ---------------------------------------------------------------------------------------------
# Holidays

from core.games.holidays import rules as holidays  # noqa: E402


def traveller_value(card: str) -> int:
    return int(card[1:])


def best_combination(destination: str, hand: list[str]) -> int:
    """The highest combination `hand` holds for `destination` (0: none), worked out from the suits
    directly (every card is worth at least 3, so more cards of a suit that fits only add)."""
    return _best_combination(destination, tuple(sorted(hand)))


@functools.lru_cache(maxsize=1 << 16)
def _best_combination(destination: str, hand: tuple[str, ...]) -> int:
    by_suit: dict[str, list[int]] = {"M": [], "W": [], "C": []}
    for card in hand:
        by_suit[card[0]].append(traveller_value(card))
    men, women, children = by_suit["M"], by_suit["W"], by_suit["C"]
    top = {suit: max(values, default=0) for suit, values in by_suit.items()}
    if destination == "venice":
        return top["M"] + top["W"] if men and women else 0
    if destination == "mykonos":
        return sum(men) + sum(women)
    if destination == "park":
        return max(top["M"], top["W"]) + sum(children) if men or women else 0
    if destination == "berghotel":
        return top["M"] + top["W"] + top["C"] if men and women and children else 0
    return max(sum(men), sum(women))  # cruise


@heuristic("holidays")
def holidays_player(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Steer the trip to where our hand scores best (paying our least useful card to change it),
    set off only with a combination that beats what was played, else throw low cards away."""
    hand = list(view["hand"])
    kinds = {text.split()[0] for text in legal}
    if "propose" in kinds:
        return max(legal, key=lambda t: (best_combination(t.split()[1], hand), rng.random()))
    if kinds & {"setoff", "discard"}:
        to_beat = max((r["score"] for r in view["set_off"] if r["combination"]), default=-1)
        setoffs = [t for t in legal if t.startswith("setoff")]
        best = max(setoffs, key=lambda t: sum(traveller_value(c) for c in t.split()[1:]), default=None)
        if best is not None and sum(traveller_value(c) for c in best.split()[1:]) > to_beat:
            return best
        low = "discard " + " ".join(c for c in hand if traveller_value(c) <= 4)
        return low.strip() if low.strip() in legal else ("discard" if "discard" in legal else legal[0])
    # Choosing: accept/confirm unless a change gains clearly more than the card it costs.
    keep = "accept" if "accept" in legal else "confirm"
    current = best_combination(view["destination"], hand) if view["destination"] else 0
    best_text, best_gain = keep, 5
    for text in legal:
        words = text.split()
        if words[0] != "change":
            continue
        rest = list(hand)
        rest.remove(words[3])
        gain = best_combination(words[1], rest) - current
        if gain > best_gain:
            best_text, best_gain = text, gain
    return best_text if best_text in legal else legal[0]


@candidates("holidays")
def holidays_candidates(view: dict[str, Any], legal: list[str]) -> list[str]:
    """Every proposal; accepting, or a change to each destination paying the card it misses least;
    the two best combinations, and discarding nothing, the low cards or everything."""
    hand = list(view["hand"])
    kinds = {text.split()[0] for text in legal}
    if kinds & {"setoff", "discard"}:
        setoffs = sorted(
            (t for t in legal if t.startswith("setoff")),
            key=lambda t: -sum(traveller_value(c) for c in t.split()[1:]),
        )
        discards = {"discard " + " ".join(c for c in hand if traveller_value(c) <= top) for top in (0, 4, 5, 8)}
        return setoffs[:2] + [t for t in (d.strip() for d in sorted(discards)) if t in legal] or legal
    if "propose" in kinds:
        return legal
    chosen = [t for t in legal if t in ("accept", "confirm")]
    best: dict[str, tuple[int, int, str]] = {}
    for text in legal:
        words = text.split()
        if words[0] == "change":
            rest = list(hand)
            rest.remove(words[3])
            key = (best_combination(words[1], rest), -traveller_value(words[3]), text)
            best[words[1]] = max(best.get(words[1], key), key)
    return chosen + [key[2] for key in best.values()]


# ---------------------------------------------------------------------------------------------
# Holiday! (the board game)

from core.games.holiday_board import rules as board  # noqa: E402

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def card_points(card: str, today: int | None) -> float:
    """What seeing a card is worth today (unknown day, before the first flight: the average)."""
    best = DAYS.index(card.split("@")[1])
    if today is None:
        return 4000.0
    return board.sight_points(today, best)


@heuristic("holiday-board")
def holiday_board_player(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Bid a modest share of what a charter is worth to us, fly where our cards score most, and see
    a sight when it pays well or our hand is running out."""
    hand = list(view["hand"])
    today = None if view["day"] is None else DAYS.index(view["day"])
    kind = legal[-1].split()[0] if legal[0] == "pass" else legal[0].split()[0]
    if kind == "bid":
        willing = bid_limit(view)
        bids = [t for t in legal if t.startswith("bid")]
        cheapest = min(bids, key=lambda t: int(t.split()[1]), default=None)
        if cheapest is not None and int(cheapest.split()[1]) <= willing:
            return cheapest
        return "pass" if "pass" in legal else legal[0]
    if kind == "fly":
        arriving = None if today is None else (today + 1) % 7

        def trip_value(text: str) -> float:
            city = text.split()[1]
            return max((card_points(c, arriving) for c in hand if c.split("@")[0] == city), default=0) + rng.random()

        return max((t for t in legal if t.startswith("fly")), key=trip_value)
    sights = [t for t in legal if t.startswith("see")]
    if sights:
        best = max(sights, key=lambda t: card_points(t.split()[1], today))
        if card_points(best.split()[1], today) >= 5000 or len(hand) <= 2:
            return best
    return "skip" if "skip" in legal else legal[0]


def bid_limit(view: dict[str, Any]) -> float:
    """The most the Holiday! heuristic bids for the plane. Money counts at the end: pay only part
    of what the best trip is worth (the card scoring most the day after the flight)."""
    after_flight = None if view["day"] is None else (DAYS.index(view["day"]) + 1) % 7
    best_trip = max((card_points(card, after_flight) for card in view["hand"]), default=0)
    return min(view["money"][view["seat"]], 0.35 * best_trip)


BID_RAISES = (0, 500, 1000, 2000, 3000)


@candidates("holiday-board")
def holiday_board_candidates(view: dict[str, Any], legal: list[str]) -> list[str]:
    """Passing, or a few bids from the lowest up, never beyond our own money (winning such a bid
    forfeits all of it); every flight and every sight."""
    if not legal[-1].startswith("bid"):
        return legal
    money = view["money"][view["seat"]]
    lowest = min(int(t.split()[1]) for t in legal if t.startswith("bid"))
    wanted = {f"bid {lowest + raise_}" for raise_ in BID_RAISES if lowest + raise_ <= money}
    return [t for t in legal if t == "pass" or t in wanted] or legal


# ---------------------------------------------------------------------------------------------
# Tranquility (cooperative)

from core.games.tranquility import rules as tranquility  # noqa: E402


def expected_cell(number: int) -> float:
    """Where a number belongs if the 80 islands spread evenly over the 36 cells."""
    return (number - 0.5) / 80 * tranquility.CELLS - 0.5


def spare(card: str, hand: list[str]) -> float:
    """How little we lose by giving a card up: a dead Start or a second Finish costs nothing."""
    if card == "start":
        return 1.0
    if card == "finish":
        return 1.0 if hand.count("finish") > 1 else -2.0
    return 0.0


@heuristic("tranquility")
def tranquility_player(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Place islands where their number fits the even spread, cheaply; otherwise discard the two
    cards we miss least; in a Start's discard give what is owed, worst cards first."""
    for forced in ("play finish", "play start"):
        if forced in legal:
            return forced
    hand = list(view["hand"])

    def score(text: str) -> float:
        words = text.split()
        if words[0] == "play":
            number, cell = int(words[1]), tranquility.CELL_INDEX[words[2]]
            paid = words[4:] if len(words) > 3 else []
            misfit = abs(cell - expected_cell(number))
            return 4 - 1.6 * len(paid) - 0.5 * misfit + sum(spare(c, hand) for c in paid) * 0.5
        paid = words[1:]
        # Discarding: the normal two cards, or a Start's share (which must be given anyway).
        return -1 + sum(spare(c, hand) for c in paid) - 0.2 * len(paid) * (view["start_discard"] is None)

    return max(legal, key=lambda t: (score(t), rng.random()))
