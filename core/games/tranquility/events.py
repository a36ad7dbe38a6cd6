"""Tranquility's events: the stored contract. Review a change here like a database migration.

Cards are stored as their canonical texts (`17`, `start`, `finish`), cells as their names (`c2`).
Every event carries the faces it moves, so the log alone shows where each card went (views and
turn reports hide them). Nothing here computes: decide fills the fields, evolve applies them.
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs


class LossReason(enum.Enum):
    """Why the voyage was lost. A plain Enum: a `str` mixin would let the codec's `str` hook claim it."""

    # the player to act can neither play a card legally nor discard two
    STUCK = "stuck"
    # the grid is full with a Start in the frame and the player to act holds no Finish card
    NO_FINISH = "no_finish"
    # cards of the Start's discard are still owed, every hand is empty and no pile has a card left
    NO_CARDS = "no_cards"


@attrs.frozen
class PilesDealt:
    """The deal: `piles[seat]` is that seat's draw pile, top first, its Start card shuffled in;
    `set_aside` the Island cards the Galateia variant removed (face down, out of the game)."""

    kind: ClassVar[str] = "tranquility.piles_dealt"
    piles: tuple[tuple[str, ...], ...]
    set_aside: tuple[str, ...]


@attrs.frozen
class CardsDrawn:
    """`seat` drew `cards` from the top of its own pile (back up to five)."""

    kind: ClassVar[str] = "tranquility.cards_drawn"
    seat: int
    cards: tuple[str, ...]


@attrs.frozen
class HandsRefilled:
    """Everyone drew back to five at once: `draws[seat]` from that seat's pile (maybe nothing).
    While cards of a Start's discard are still owed, it ends that discard's first circle for good."""

    kind: ClassVar[str] = "tranquility.hands_refilled"
    draws: tuple[tuple[str, ...], ...]


@attrs.frozen
class TurnPassed:
    """It is `seat`'s turn (also ends a Start's discard)."""

    kind: ClassVar[str] = "tranquility.turn_passed"
    seat: int


@attrs.frozen
class IslandPlayed:
    """`seat` placed Island `card` in `cell` and discarded `paid` face down as its cost."""

    kind: ClassVar[str] = "tranquility.island_played"
    seat: int
    card: int
    cell: str
    paid: tuple[str, ...]


@attrs.frozen
class CardsDiscarded:
    """`seat` discarded two cards face down as its action."""

    kind: ClassVar[str] = "tranquility.cards_discarded"
    seat: int
    cards: tuple[str, ...]


@attrs.frozen
class StartPlayed:
    """`seat` put a Start card in the frame: the table now owes a discard of eight cards."""

    kind: ClassVar[str] = "tranquility.start_played"
    seat: int


@attrs.frozen
class StartShareDiscarded:
    """During a Start's discard, `seat` took its turn and discarded `cards` face down (maybe none)."""

    kind: ClassVar[str] = "tranquility.start_share_discarded"
    seat: int
    cards: tuple[str, ...]


@attrs.frozen
class FinishPlayed:
    """`seat` played a Finish card on the full grid: the voyage is complete, everyone wins."""

    kind: ClassVar[str] = "tranquility.finish_played"
    seat: int


@attrs.frozen
class GameLost:
    """Everyone lost; `seat` is the player who was to act."""

    kind: ClassVar[str] = "tranquility.game_lost"
    seat: int
    reason: LossReason


EVENT_TYPES: tuple[type, ...] = (
    PilesDealt,
    CardsDrawn,
    HandsRefilled,
    TurnPassed,
    IslandPlayed,
    CardsDiscarded,
    StartPlayed,
    StartShareDiscarded,
    FinishPlayed,
    GameLost,
)
