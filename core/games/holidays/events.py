"""Holidays: the stored contract, every event a Holidays log may hold. Pure data, no rules.

Review a change here like a database migration: the `kind` tags are permanent. Cards are their
canonical texts ("M3", "W8", "C5"), destinations their notation ("venice", "park", ...).
"""

from __future__ import annotations

from typing import ClassVar

import attrs


@attrs.frozen
class CardsDealt:
    """The travellers shuffled and dealt: 6 per hand, the first pot (down, down, up), the draw pile."""

    kind: ClassVar[str] = "holidays.cards_dealt"
    hands: tuple[tuple[str, ...], ...]
    pot: tuple[str, ...]
    deck: tuple[str, ...]  # top first


@attrs.frozen
class HandStarted:
    """A hand begins: the pot is on the table and `first_proposer` makes the free proposal."""

    kind: ClassVar[str] = "holidays.hand_started"
    number: int
    first_proposer: int


@attrs.frozen
class DestinationProposed:
    """The free first proposal of a hand."""

    kind: ClassVar[str] = "holidays.destination_proposed"
    seat: int
    destination: str


@attrs.frozen
class DestinationChanged:
    """A new destination card played, `paid` put face up into the pot."""

    kind: ClassVar[str] = "holidays.destination_changed"
    seat: int
    destination: str
    paid: str


@attrs.frozen
class DestinationAccepted:
    kind: ClassVar[str] = "holidays.destination_accepted"
    seat: int


@attrs.frozen
class DestinationConfirmed:
    """The proposer confirmed after all others accepted: time to set off."""

    kind: ClassVar[str] = "holidays.destination_confirmed"
    seat: int


@attrs.frozen
class CombinationPlayed:
    kind: ClassVar[str] = "holidays.combination_played"
    seat: int
    cards: tuple[str, ...]
    score: int


@attrs.frozen
class CardsDiscarded:
    """A player set off with no combination, discarding these cards (maybe none)."""

    kind: ClassVar[str] = "holidays.cards_discarded"
    seat: int
    cards: tuple[str, ...]


@attrs.frozen
class PotWon:
    """The best combination takes the pot; its face-down cards are shown now."""

    kind: ClassVar[str] = "holidays.pot_won"
    seat: int
    score: int
    face_down: tuple[str, ...]
    value: int
    points: int


@attrs.frozen
class PotDiscarded:
    """Nobody played a combination: no winner; the pot goes unseen to the discard pile."""

    kind: ClassVar[str] = "holidays.pot_discarded"


@attrs.frozen
class TableCleared:
    """Used cards to the discard pile, destination cards back to their owners."""

    kind: ClassVar[str] = "holidays.table_cleared"


@attrs.frozen
class DrawPileReshuffled:
    """A card had to be drawn from an empty draw pile: the discard pile, shuffled, is the new one."""

    kind: ClassVar[str] = "holidays.draw_pile_reshuffled"
    deck: tuple[str, ...]  # top first


@attrs.frozen
class CardsDrawn:
    """A player refilled (part of) their hand from the top of the draw pile."""

    kind: ClassVar[str] = "holidays.cards_drawn"
    seat: int
    cards: tuple[str, ...]


@attrs.frozen
class PotDealt:
    """Cards from the top of the draw pile onto the next pot, in deal order: down, down, up.

    Usually all three at once; split in two when the draw pile runs out on the way."""

    kind: ClassVar[str] = "holidays.pot_dealt"
    cards: tuple[str, ...]


EVENT_TYPES: tuple[type, ...] = (
    CardsDealt,
    HandStarted,
    DestinationProposed,
    DestinationChanged,
    DestinationAccepted,
    DestinationConfirmed,
    CombinationPlayed,
    CardsDiscarded,
    PotWon,
    PotDiscarded,
    TableCleared,
    DrawPileReshuffled,
    CardsDrawn,
    PotDealt,
)
