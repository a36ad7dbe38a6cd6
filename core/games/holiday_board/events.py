"""Holiday! events: the stored contract of this game. Review a change here like a database
migration: the `kind` tags are permanent, fields only primitives, tuples and str enums."""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs


class EndReason(str, enum.Enum):
    LAST_CARD = "last_card"  # someone used their last card; that city's sightseeing was finished
    NO_BID = "no_bid"  # an auction in which nobody bid (nobody would, or nobody had money)


@attrs.frozen
class Dealt:
    """The deal: each seat's cards (sorted ids); the cards in no hand are out of the game.
    `die` is the first roll when a deal fixed it, else 0 (then it is rolled at the first flight)."""

    kind: ClassVar[str] = "holiday-board.dealt"
    hands: tuple[tuple[str, ...], ...]
    die: int


@attrs.frozen
class AuctionOpened:
    """An auction for the plane, opened by `opener`; bids may go up to `cap`."""

    kind: ClassVar[str] = "holiday-board.auction_opened"
    opener: int
    cap: int


@attrs.frozen
class BidMade:
    """A bid; `destination` is the city slug it names (open destinations), else ""."""

    kind: ClassVar[str] = "holiday-board.bid_made"
    seat: int
    amount: int
    destination: str


@attrs.frozen
class Passed:
    """A pass: the seat leaves this auction."""

    kind: ClassVar[str] = "holiday-board.passed"
    seat: int


@attrs.frozen
class PlaneChartered:
    """The auction's winner paid the bid to the bank and will name where the plane goes
    (or flies at once to `destination`, the city named with the winning bid)."""

    kind: ClassVar[str] = "holiday-board.plane_chartered"
    seat: int
    amount: int
    destination: str


@attrs.frozen
class CharterForfeited:
    """The auction's winner could not pay `bid` and forfeited all their `money` to the bank."""

    kind: ClassVar[str] = "holiday-board.charter_forfeited"
    seat: int
    bid: int
    money: int


@attrs.frozen
class PlaneFlew:
    kind: ClassVar[str] = "holiday-board.plane_flew"
    seat: int
    city: str


@attrs.frozen
class DieRolled:
    """The first flight's die: 1 = Monday ... 6 = Saturday."""

    kind: ClassVar[str] = "holiday-board.die_rolled"
    roll: int


@attrs.frozen
class SightSeen:
    kind: ClassVar[str] = "holiday-board.sight_seen"
    seat: int
    card: str
    points: int


@attrs.frozen
class SightSkipped:
    """A seat saw nothing in this city: by choice (`held_card`), or because it holds no card of it."""

    kind: ClassVar[str] = "holiday-board.sight_skipped"
    seat: int
    held_card: bool


@attrs.frozen
class DayAdvanced:
    """The week moved on after a city; `day` is the new day's index (0 = the board's first day)."""

    kind: ClassVar[str] = "holiday-board.day_advanced"
    day: int


@attrs.frozen
class GameEnded:
    kind: ClassVar[str] = "holiday-board.game_ended"
    reason: EndReason


EVENT_TYPES: tuple[type, ...] = (
    Dealt,
    AuctionOpened,
    BidMade,
    Passed,
    PlaneChartered,
    CharterForfeited,
    PlaneFlew,
    DieRolled,
    SightSeen,
    SightSkipped,
    DayAdvanced,
    GameEnded,
)
