"""Snapshots: a game's folded state saved beside its log, a disposable cache so that a cold read
folds only the events after it. Never the truth: replays and `pbm replay verify` never read one.

One per game (keys.snapshot), msgpack [SCHEMA, rules version, seq, hash, state, bots, clock, salting]: the state
after the events before `seq`, encoded by the codec's converter; `hash` is the log's hash of event
seq - 1. A reader uses it only if the game's rules version is the same and the log still has that
hash at that seq; a missing, stale or undecodable snapshot is ignored (the log is folded instead).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import cattrs.errors

import core
from core.salts import Salting
from core.table import Table
from events import codec
from events.codec import DecodeError

# 2: the clock's settings (None, or a ClockSet's data) after the bots; 3: the late salts after it
# (None, or core.salts.Salting's data), which every later draw's key needs: a snapshot of schema 2
# is a miss (one cold read of the whole log), never read as a game without salts; 4: states that
# learnt fields (Holly Oak's last trick, Tranquility's lost_by), which a 3 would decode as their
# defaults.
SCHEMA = 4
EVERY = 64  # events between snapshots: the most a cold read folds, whatever the game's length


@attrs.frozen
class Snapshot:
    seq: int
    hash: bytes
    state: Any
    bots: dict[int, str]
    clock: core.ClockSet | None = None
    salting: Salting | None = None


def encode(table: Table, last_hash: bytes) -> bytes:
    bots = sorted(table.bots.items())
    state = codec.converter.unstructure(table.state)
    clock = None if table.clock is None else codec.converter.unstructure(table.clock)
    salting = None if table.salting is None else codec.converter.unstructure(table.salting)
    return codec.pack([SCHEMA, table.game.rules_version, table.seq, last_hash, state, bots, clock, salting])


def decode(game: core.Game, started: core.GameStarted, raw: bytes | None) -> Snapshot | None:
    """The snapshot if it is one for this game's rules, else None (a cache miss, never an error)."""
    if raw is None:
        return None
    try:
        schema, rules_version, seq, last_hash, state, bots, clock, salting = codec.unpack(raw)
        if schema != SCHEMA or rules_version != game.rules_version or type(seq) is not int or seq < 1:
            return None
        state = codec.converter.structure(state, state_type(game, started.players, started.options))
        clock = None if clock is None else codec.converter.structure(clock, core.ClockSet)
        salting = None if salting is None else codec.converter.structure(salting, Salting)
        return Snapshot(seq, last_hash, state, {int(seat): str(kind) for seat, kind in bots}, clock, salting)
    except (DecodeError, ValueError, TypeError, KeyError, AttributeError, cattrs.errors.CattrsError):
        return None  # a bad cache entry is a miss


_STATE_TYPES: dict[str, type] = {}


def state_type(game: core.Game, players: int, options: tuple) -> type:
    """The class of the game's states (one per game: the conformance tests check it)."""
    found = _STATE_TYPES.get(game.slug)
    if found is None:
        found = _STATE_TYPES[game.slug] = type(game.initial(players, dict(options)))
    return found


class History(Sequence):
    """A table's events when it was built from a snapshot: the first event and those from `base`
    on are held; the ones between are read from the log (by `load`) the first time anyone asks for
    them. Folding a move, viewing or dispatching never does."""

    def __init__(self, started: Any, base: int, tail: list[Any], load: Callable[[], list[Any]]) -> None:
        self._started = started
        self._base = base
        self._tail = tail
        self._load = load
        self._before: list[Any] | None = None  # events 0 .. base - 1, once read

    def _head(self) -> list[Any]:
        if self._before is None:
            self._before = [self._started, *self._load()]
            if len(self._before) != self._base:
                raise DecodeError(f"the log holds {len(self._before)} events before seq {self._base}, not {self._base}")
        return self._before

    def __len__(self) -> int:
        return self._base + len(self._tail)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError("event index out of range")
        if position == 0:
            return self._started
        if position >= self._base:
            return self._tail[position - self._base]
        return self._head()[position]

    def __iter__(self) -> Iterator[Any]:
        yield from self._head()
        yield from self._tail

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def extend(self, events: Any) -> None:
        self._tail.extend(events)

    def copy(self) -> History:
        twin = History(self._started, self._base, list(self._tail), self._load)
        twin._before = self._before
        return twin
