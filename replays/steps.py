"""Walking a log step by step for one reader: where first, previous, next, last, "my next move",
"skip passes and forced moves" and "by round" lead from a seq, and what one step shows (its
line, the move's text when the reader may read it, what changed in the reader's view). Pure over
a replays.log.Log: no I/O. It decides nothing about who may read what: every view and line comes
from Table.view and narrate for the reader it is given; the caller chooses the reader.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import core
from events.envelope import is_move_of
from replays.log import Log

# A game's moves that say "nothing from me" (by their canonical text): a walk may skip them.
PASSES: Mapping[str, frozenset[str]] = {
    "holiday-board": frozenset({"pass", "skip"}),
    "holidays": frozenset({"accept", "discard"}),  # "discard" alone: none of one's cards
    "tranquility": frozenset({"discard"}),  # a share of the Start's discard with no card
    "holly-oak": frozenset(),
}
# The view's field that counts a game's rounds (hands, days), where the game has them.
ROUND_FIELD: Mapping[str, str] = {"holly-oak": "round", "holidays": "hand_number", "holiday-board": "day"}
CHANGE_TEXT = 60  # a changed field's value, shortened to this many characters


def canonical(game: core.Game, text: str) -> str:
    """A move's text as the game writes it (as typed, for a text the game cannot read)."""
    try:
        return str(game.parse_move(text))
    except core.IllegalMove:
        return text


def skippable(log: Log) -> list[bool]:
    """For each seq: whether it belongs to a move the shell played (its only legal one) or to a
    pass. Events that are nobody's move (a deal, a reveal, the clock) are never skipped."""
    skip = [False] * len(log.envelopes)
    passes = PASSES.get(log.game.slug, frozenset())
    for start, count in log.commands():
        env = log.envelopes[start]
        if env.origin == "forced" or canonical(log.game, env.command) in passes:
            skip[start : start + count] = [True] * count
    return skip


def command_shown(log: Log, seq: int, reader: int | None) -> str | None:
    """The move's text of the event at `seq`, if it starts a move and `reader` may read it: the
    whole state's reader (None) or the seat that sent it. A move as typed may name cards its
    seat hid (Tranquility's discards), so another seat reads the event's line alone."""
    env = log.envelopes[seq]
    if env.command is None or (reader is not None and env.actor != reader):
        return None
    return env.command


def view_at(log: Log, seq: int, seat: int | None) -> dict[str, Any]:
    return log.table(seq).view(seat)


def changes(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(field, was, now) for each top-level field of a view that differs, values shortened."""
    if before is None:
        return []
    fields = [k for k in after if k != "seq" and before.get(k) != after[k]]
    return [(k, short(before.get(k)), short(after[k])) for k in fields]


def short(value: Any) -> str:
    if isinstance(value, list | tuple) and len(value) > 6:
        text = f"{len(value)} items"
    else:
        text = "–" if value is None else str(value)
    return text if len(text) <= CHANGE_TEXT else text[: CHANGE_TEXT - 1] + "…"


class Walk:
    """The places a reader can go from one seq of a log. `seat`: whose moves are "mine" and whose
    view counts rounds (None: the whole state's reader, rounds from the public view)."""

    def __init__(self, log: Log, seat: int | None) -> None:
        self.log = log
        self.seat = seat
        self.last = log.last_seq
        self._skip: list[bool] | None = None
        self._rounds: dict[int, Any] = {}

    def targets(self, seq: int) -> dict[str, int | None]:
        """name -> seq for every way out of `seq` (None where that way leads nowhere)."""
        last = self.last
        mine = [env.seq for env in self.log.envelopes if self.seat is not None and is_move_of(env, self.seat)]
        return {
            "first": 0 if seq > 0 else None,
            "prev": seq - 1 if seq > 0 else None,
            "next": seq + 1 if seq < last else None,
            "last": last if seq < last else None,
            "prev_mine": max((s for s in mine if s < seq), default=None),
            "next_mine": min((s for s in mine if s > seq), default=None),
            "prev_skipping": self._find(seq, -1, lambda s: not self.skip[s]),
            "next_skipping": self._find(seq, +1, lambda s: not self.skip[s]),
            "prev_round": self.round_start(seq, -1),
            "next_round": self.round_start(seq, +1),
        }

    @property
    def skip(self) -> list[bool]:
        if self._skip is None:
            self._skip = skippable(self.log)
        return self._skip

    def _find(self, seq: int, step: int, wanted: Callable[[int], bool]) -> int | None:
        at = seq + step
        while 0 <= at <= self.last:
            if wanted(at):
                return at
            at += step
        return None

    def round_of(self, seq: int) -> Any:
        if seq not in self._rounds:
            self._rounds[seq] = view_at(self.log, seq, self.seat).get(ROUND_FIELD[self.log.game.slug])
        return self._rounds[seq]

    def round_start(self, seq: int, step: int) -> int | None:
        """The first seq of the next round (step +1), or of this round, or if `seq` is that, of
        the round before (step -1). A round's seqs are contiguous, so each is a binary search."""
        if self.log.game.slug not in ROUND_FIELD:
            return None
        if step > 0:
            here = self.round_of(seq)
            if self.round_of(self.last) == here:
                return None
            return self._first_after(seq, self.last, lambda s: self.round_of(s) != here)
        start = self._first_after(0, seq, lambda s: self.round_of(s) == self.round_of(seq)) if self.round_of(0) != self.round_of(seq) else 0
        if start < seq:
            return start
        if start == 0:
            return None
        before = self.round_of(start - 1)
        return self._first_after(0, start - 1, lambda s: self.round_of(s) == before) if self.round_of(0) != before else 0

    @staticmethod
    def _first_after(low: int, high: int, true_from: Callable[[int], bool]) -> int:
        """The least s in (low, high] where true_from(s), which holds from some s on (and at high)."""
        while high - low > 1:
            middle = (low + high) // 2
            if true_from(middle):
                high = middle
            else:
                low = middle
        return high

