"""Late salts: where a game stands in collecting its players' salts, read from its events, and the
order rules a log must keep. Pure: no I/O, clock or randomness; it never draws the deal itself.

A game created with late salts logs GameStarted (the seed's commitment), then SaltsAwaited(seats);
each of those seats then gives one SaltGiven; SaltsClosed ends the collection (every salt in, or
the deadline passed: the seats that sent none are `silent`) and the opening deal follows in the
same append, drawn at its own first seq. The key K mixes the seed with GameStarted's salts (given
at creation, if any) and then the late salts by seat (core/rng.py): a silent seat's is its silent
salt, derived from the committed seed, when SaltsAwaited says `silent_from_seed` (every log since
it was added; in older logs a silent seat adds nothing).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from core.bounds import MAX_SALT_CHARS, shown
from core.contract import LIFECYCLE_EVENTS, GameStarted, IllegalMove, SaltGiven, SaltsAwaited, SaltsClosed
from core.rng import silent_salt


@attrs.frozen
class Salting:
    """A game's late salts so far: the seats asked, the salts given (in log order), and whether the
    collection is closed (and which seats stayed silent, and whether they take silent salts)."""

    awaited: tuple[int, ...]
    given: tuple[tuple[int, str], ...] = ()
    closed: bool = False
    silent: tuple[int, ...] = ()
    silent_from_seed: bool = False

    @property
    def waiting(self) -> bool:
        return not self.closed

    @property
    def missing(self) -> tuple[int, ...]:
        done = {seat for seat, _salt in self.given}
        return tuple(seat for seat in self.awaited if seat not in done)

    @property
    def seeded(self) -> tuple[int, ...]:
        """The silent seats whose place in the key is their silent salt."""
        return self.silent if self.silent_from_seed else ()

    def salts(self, seed: int | None) -> tuple[str, ...]:
        """The late salts as the key takes them: by seat (not by arrival, which the server orders),
        a seeded seat's derived from `seed` (ValueError without it)."""
        by_seat = dict(self.given)
        if self.seeded and seed is None:
            raise ValueError("the silent seats' salts come from the seed, which this table was rebuilt without")
        by_seat.update((seat, silent_salt(seed, seat)) for seat in self.seeded)
        return tuple(by_seat[seat] for seat in sorted(by_seat))

    def after(self, event: Any) -> Salting:
        if isinstance(event, SaltGiven):
            return attrs.evolve(self, given=(*self.given, (event.seat, event.salt)))
        if isinstance(event, SaltsClosed):
            return attrs.evolve(self, closed=True, silent=tuple(event.silent))
        return self


def salting_after(salting: Salting | None, events: Iterable[Any]) -> Salting | None:
    """The salting once `events` follow (None: the game takes no late salts)."""
    for event in events:
        if isinstance(event, SaltsAwaited):
            salting = Salting(awaited=tuple(event.seats), silent_from_seed=event.silent_from_seed)
        elif salting is not None:
            salting = salting.after(event)
    return salting


def salting_of(events: Iterable[Any]) -> Salting | None:
    """A log's salting, read from its opening only: salts come before the deal, so the scan stops
    at the first of the game's own events (a table built on a long log pays for its opening)."""
    salting = None
    for event in events:
        if not isinstance(event, LIFECYCLE_EVENTS):
            break
        salting = salting_after(salting, [event])
    return salting


def check_salt(salt: Any) -> str:
    """A seat's salt: 1 to MAX_SALT_CHARS printable characters (IllegalMove, one line, otherwise)."""
    if not isinstance(salt, str):
        raise IllegalMove(f"a salt is a text, not {type(salt).__name__}")
    if not 0 < len(salt) <= MAX_SALT_CHARS or not salt.isprintable():
        raise IllegalMove(f"a salt is 1 to {MAX_SALT_CHARS} printable characters, not {shown(salt)}")
    return salt


def check_salt_seats(seats: Iterable[Any], players: int) -> tuple[int, ...]:
    seats = tuple(seats)
    for seat in seats:
        if type(seat) is not int or not 0 <= seat < players:
            raise ValueError(f"no seat {seat!r} to give a salt: this table has seats 0 to {players - 1}")
    if len(set(seats)) != len(seats):
        raise ValueError("a seat is asked for its salt once")
    return tuple(sorted(seats))


def refusal(salting: Salting | None, seat: int) -> str | None:
    """Why `seat` may not give a salt now (None: it may)."""
    if salting is None:
        return "this game takes no salts: it was dealt when it was created"
    if salting.closed:
        return "the salts are closed and the game is dealt: a salt now would change nothing"
    if seat not in salting.awaited:
        return f"seat {seat} is not asked for a salt (the deal waits for {seats_text(salting.awaited)})"
    if seat not in salting.missing:
        return f"seat {seat} has given its salt already: each seat gives one"
    return None


def seats_text(seats: Iterable[int]) -> str:
    return ", ".join(f"seat {seat}" for seat in seats) or "nobody"


def order_problems(events: list[Any]) -> list[tuple[int, str]]:
    """(seq, problem) for each break of the salts' order in a log: the commitment (GameStarted, seq
    0) before SaltsAwaited, before every salt, before SaltsClosed, before the deal and any move;
    one salt per awaited seat; `silent` exactly the awaited seats that gave none, salted from the
    seed (`from_seed`) exactly when there are some and SaltsAwaited promised it. A log without
    SaltsAwaited (an immediate deal) has none of the salts' events."""
    problems: list[tuple[int, str]] = []
    salting: Salting | None = None
    for seq, event in enumerate(events):
        if isinstance(event, GameStarted):
            if seq:
                problems.append((seq, "a second GameStarted"))
            continue
        if isinstance(event, SaltsAwaited):
            if seq != 1:
                problems.append((seq, "SaltsAwaited is not the event right after the commitment"))
            salting = salting_after(None, [event])
            continue
        if isinstance(event, (SaltGiven, SaltsClosed)):
            if salting is None:
                problems.append((seq, f"{event.kind} in a game that awaits no salts"))
                continue
            if salting.closed:
                problems.append((seq, f"{event.kind} after the salts were closed"))
                continue
            if isinstance(event, SaltGiven):
                why = refusal(salting, event.seat)
                if why is not None:
                    problems.append((seq, why))
            elif tuple(event.silent) != salting.missing:
                problems.append((seq, f"SaltsClosed names {seats_text(event.silent)} silent, but {seats_text(salting.missing)} gave none"))
            elif event.from_seed != (salting.silent_from_seed and bool(event.silent)):
                does = "salts" if event.from_seed else "does not salt"
                promised = "promised" if salting.silent_from_seed else "did not promise"
                problems.append((seq, f"SaltsClosed {does} the silent seats ({seats_text(event.silent)}) from the seed, but SaltsAwaited {promised} it"))
            salting = salting.after(event)
            continue
        if not isinstance(event, LIFECYCLE_EVENTS) and salting is not None and salting.waiting:
            problems.append((seq, f"{event.kind} before the salts were closed: the deal must wait for them"))
            salting = attrs.evolve(salting, closed=True)  # one problem for the whole early deal
    return problems
