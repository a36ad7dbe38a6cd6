"""A game's log as the replay tools read it: envelopes and events, folded to a table at any seq.

Reads only: from Redis (events.store) or from bytes already read (replays.archive). It never writes
and never decides; checking that the log is honest is replays.verify's work.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

import core
from core.rng import seed_from_hex
from core.table import Table, apply
from events import codec
from events.codec import DecodeError
from events.disputes import Dispute
from events.envelope import GENESIS, Envelope, from_value
from events.store import Store

SHELL_KINDS = frozenset(cls.kind for cls in core.contract.SHELL_EVENTS)


class BadLog(ValueError):
    """A log the replay tools cannot use; the text is one line: source, seq (when known), problem."""

    def __init__(self, source: str, problem: str, seq: int | None = None) -> None:
        where = source if seq is None else f"{source}: seq {seq}"
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.seq = seq
        self.problem = problem


class Log:
    """One game's envelopes with their events decoded; states are folded lazily and kept, so a
    walk back and forth (step) or many views (audit) fold each event once."""

    def __init__(self, source: str, envelopes: list[Envelope], raw: list[bytes] | None = None, disputes: Sequence[Dispute] = ()) -> None:
        if not envelopes:
            raise BadLog(source, "no events: a log starts with GameStarted")
        self.source = source
        self.envelopes = envelopes
        self.raw = raw
        self.disputes = tuple(disputes)  # those beside the log (events.disputes): a replay file's, or an export's
        self.events = [_event(source, env) for env in envelopes]
        self.game = _game_of(source, self.events[0])
        for env, event in zip(envelopes, self.events):
            if not isinstance(event, core.contract.LIFECYCLE_EVENTS) and not env.kind.startswith(self.game.slug + "."):
                raise BadLog(source, f"event {env.kind} does not belong to a {self.game.slug} game", env.seq)
        self._states: list[Any] = []

    @property
    def game_id(self) -> str:
        return self.envelopes[0].game_id

    @property
    def started(self) -> core.GameStarted:
        return self.events[0]

    @property
    def last_seq(self) -> int:
        return len(self.events) - 1

    @property
    def revealed_seed(self) -> int | None:
        """The seed the last event reveals (None while the game runs); BadLog if malformed."""
        last = self.events[-1]
        if not isinstance(last, core.SeedRevealed):
            return None
        try:
            return seed_from_hex(last.seed)
        except ValueError as error:
            raise BadLog(self.source, f"the revealed seed is malformed: {error}", self.last_seq) from None

    def check_seq(self, seq: int) -> int:
        """`seq` as an index into this log; negative counts from the end, like a list index."""
        index = seq + len(self.events) if seq < 0 else seq
        if not 0 <= index < len(self.events):
            raise BadLog(self.source, f"no seq {seq}: this log has seqs 0 to {self.last_seq}")
        return index

    def state_after(self, seq: int) -> Any:
        """The state right after the event at `seq` was applied."""
        seq = self.check_seq(seq)
        states = self._states
        state = states[-1] if states else None
        for index in range(len(states), seq + 1):
            try:
                state = apply(self.game, state, self.events[index])
            except Exception as error:  # evolve trusts its log; a forged one may break it anywhere
                raise BadLog(self.source, f"cannot apply {self.envelopes[index].kind}: {type(error).__name__}: {error}", index) from None
            states.append(state)
        return states[seq]

    def table(self, at: int | None = None, seed: int | None = None) -> Table:
        """The table right after event `at` (default: the last); `seed` lets it decide on."""
        seq = self.last_seq if at is None else self.check_seq(at)
        return Table(self.game, self.events[: seq + 1], self.state_after(seq), seed)

    def table_before(self, seq: int, seed: int | None = None) -> Table:
        """The table as it stood when the event at `seq` (> 0) was about to be appended."""
        return self.table(self.check_seq(seq) - 1, seed)

    def narrate(self, seq: int, seat: int | None = None) -> str:
        """One line for the event at `seq`, as `seat` may see it."""
        seq = self.check_seq(seq)
        before = self.state_after(seq - 1) if seq else None
        return core.table.narrate(self.game, before, self.events[seq], seat)

    def commands(self) -> list[tuple[int, int]]:
        """(first seq, count) of every command: a command's first envelope names its move; it
        ends at the next command or at one of the shell's events (a seat handed over, the clock
        paused, a turn timed out: nobody's move)."""
        bounds = [env.seq for env in self.envelopes if env.command is not None or env.kind in SHELL_KINDS]
        pairs = zip(bounds, bounds[1:] + [len(self.envelopes)])
        return [(start, end - start) for start, end in pairs if self.envelopes[start].command is not None]

    def integrity(self) -> list[tuple[int, str]]:
        """(seq, problem) for every envelope out of place or off the hash chain, in log order."""
        problems = []
        prev = GENESIS
        for index, env in enumerate(self.envelopes):
            if env.seq != index:
                problems.append((index, f"out of order: envelope says seq {env.seq}"))
            if env.game_id != self.game_id:
                problems.append((index, f"belongs to game {env.game_id!r}, not {self.game_id!r}"))
            if env.prev != prev:
                problems.append((index, "hash chain broken: prev is not the hash of the event before"))
            if env.hash != env.expected_hash():
                problems.append((index, "hash does not match the event's bytes (changed after it was sealed)"))
            prev = env.hash
        return problems

    def check_integrity(self) -> Log:
        """This log, or BadLog for its first envelope out of place or off the chain."""
        problems = self.integrity()
        if problems:
            seq, problem = problems[0]
            raise BadLog(self.source, problem, seq)
        return self


def _event(source: str, env: Envelope) -> Any:
    try:
        return codec.structure(env.kind, env.data)
    except DecodeError as error:
        raise BadLog(source, str(error), env.seq) from None


def _game_of(source: str, first: Any) -> core.Game:
    if not isinstance(first, core.GameStarted):
        raise BadLog(source, f"a log starts with GameStarted, not {type(first).__name__}", 0)
    game = core.GAMES.get(first.game)
    if game is None:
        raise BadLog(source, f"unknown game {first.game!r} (this pbm plays {', '.join(sorted(core.GAMES))})", 0)
    if first.rules_version != game.rules_version:
        raise BadLog(
            source,
            f"played under {game.slug} rules version {first.rules_version}; this pbm plays version "
            f"{game.rules_version} and replays only logs of that version",
            0,
        )
    return game


def from_raw(source: str, raw: Sequence[bytes]) -> Log:
    """A log from envelope bytes in seq order (as Redis holds them)."""
    envelopes = []
    for index, data in enumerate(raw):
        try:
            envelopes.append(from_value(codec.unpack(data)))
        except DecodeError as error:
            raise BadLog(source, str(error), index) from None
    return Log(source, envelopes, list(raw))


def from_store(store: Store, game_id: str) -> Log:
    """A game's log as Redis holds it now."""
    raw = [data for _seq, data in store.read_raw(game_id)]
    if not raw:
        raise BadLog(f"game {game_id}", "no such game in the log (see `pbm list`)")
    return from_raw(f"game {game_id}", raw)


def from_events(game_id: str, envelopes: Iterable[Envelope]) -> Log:
    """A log from envelopes already in memory (tests, the golden generator)."""
    envelopes = list(envelopes)
    return Log(f"game {game_id}", envelopes, [env.encode() for env in envelopes])


def plain(value: Any) -> Any:
    """A game state (or any part of it) as JSON-able data: the whole truth, hidden cards included.
    Values with a text form of their own (cards, moves) are written as that text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, Mapping):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted((plain(v) for v in value), key=str)
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if type(value).__str__ is not object.__str__:
        return str(value)
    if attrs.has(type(value)):
        return {field.name: plain(getattr(value, field.name)) for field in attrs.fields(type(value))}
    return repr(value)
