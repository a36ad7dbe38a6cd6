"""Holly Oak's events: the stored contract. Review a change here like a database migration.

Cards are stored as their canonical texts (`7Su`, `SR`), seasons as the Season enum's value
("Spring", ...). Nothing here computes: decide fills the fields, evolve applies them.
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs


class Season(enum.Enum):
    """The four seasons, in the order of their cycle (Winter is followed by Spring).

    A plain Enum on purpose: a `str` mixin would let the codec's strict `str` hook claim it.
    """

    SPRING = "Spring"
    SUMMER = "Summer"
    FALL = "Fall"
    WINTER = "Winter"


@attrs.frozen
class HandsDealt:
    """A round began: every card dealt. `hands[seat]` holds that seat's cards (sorted texts)."""

    kind: ClassVar[str] = "holly-oak.hands_dealt"
    round: int
    hands: tuple[tuple[str, ...], ...]


@attrs.frozen
class CardPlayed:
    """`seat` played `card`; `season` is the current season right after it (for Season Retreats
    also the season it counts in for the rest of the trick)."""

    kind: ClassVar[str] = "holly-oak.card_played"
    seat: int
    card: str
    season: Season


@attrs.frozen
class TrickWon:
    """The trick is complete; `seat` won it with `card` and leads next."""

    kind: ClassVar[str] = "holly-oak.trick_won"
    seat: int
    card: str


@attrs.frozen
class LeadPassed:
    """The seats in `passed` (clockwise from the trick's winner) could not lead; `seat` leads."""

    kind: ClassVar[str] = "holly-oak.lead_passed"
    seat: int
    passed: tuple[int, ...]


@attrs.frozen
class RoundEndedOutOfSeason:
    """Nobody could lead: the cards still in hands are set aside and do not score."""

    kind: ClassVar[str] = "holly-oak.round_ended_out_of_season"
    round: int


@attrs.frozen
class RoundScored:
    """Each seat's points for the round just ended (kings taken, or the no-trick bonus)."""

    kind: ClassVar[str] = "holly-oak.round_scored"
    round: int
    points: tuple[int, ...]


@attrs.frozen
class GameEnded:
    """Someone reached the target after scoring: the final totals and the winner(s)."""

    kind: ClassVar[str] = "holly-oak.game_ended"
    scores: tuple[int, ...]
    winners: tuple[int, ...]


EVENT_TYPES: tuple[type, ...] = (
    HandsDealt,
    CardPlayed,
    TrickWon,
    LeadPassed,
    RoundEndedOutOfSeason,
    RoundScored,
    GameEnded,
)
