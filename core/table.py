"""A table: one game's events folded into its state, and the public API over it. Pure: no I/O,
clock, randomness (it draws only from the seed it is given) or logging."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.contract import (
    LIFECYCLE_EVENTS,
    SHELL_EVENTS,
    BotsSeated,
    BrokenLog,
    ClockPaused,
    ClockResumed,
    ClockSet,
    DeadlineExtended,
    Game,
    GameStarted,
    IllegalMove,
    OptionValue,
    Outcome,
    SaltGiven,
    SaltsAwaited,
    SaltsClosed,
    SeedRevealed,
    SetupError,
    TurnTimedOut,
    VacationTaken,
)
from core.bounds import check_move_text, check_salts, check_value
from core.rng import NoRng, Rng, commitment, seed_from_hex, seed_hex
from core.salts import Salting, check_salt, check_salt_seats, refusal, salting_after, salting_of, seats_text


class Unknown:
    """A table's clock not looked for yet."""


# A table keeps the states it passed at most MARKS points of its recent past, MARK_EVERY events or
# more apart, so a report of the last moves (narrate from a recent seq) folds from the nearest one
# instead of from the game's start: a seat's page costs its latest events, not the game's length.
MARK_EVERY = 64
MARKS = 4


class Table:
    """A game in progress (or over): its events, its state and, when known, its secret seed.

    `play` is all-or-nothing: a refused move raises IllegalMove and leaves the table as it was.
    """

    def __init__(
        self,
        game: Game,
        events: list[Any],
        state: Any,
        seed: int | None,
        bots: dict[int, str] | None = None,
        clock: ClockSet | None | type[Unknown] = Unknown,
        salting: Salting | None | type[Unknown] = Unknown,
    ) -> None:
        self.game = game
        # Any sequence of the events with `extend` and `copy`: events.snapshots gives one that
        # holds only the latest events and reads the earlier ones from the log if they are asked for.
        self.events = events
        self.state = state
        self.seed = seed
        self._bots = bots
        self._clock = clock  # the clock's settings (ClockSet), kept like the bots; Unknown until looked for
        self._marks = [(len(events), state)]  # (seq, the state after seq events), oldest first
        self._salting = salting  # the late salts (core.salts), Unknown until looked for

    def copy(self) -> Table:
        twin = Table(self.game, self.events.copy(), self.state, self.seed, self._bots, self._clock, self._salting)
        twin._marks = self._marks.copy()
        return twin

    @property
    def clock(self) -> ClockSet | None:
        """The game's clock settings, None for a game without a deadline."""
        if self._clock is Unknown:
            self._clock = clock_of(self.events)
        return self._clock

    @property
    def salting(self) -> Salting | None:
        """The late salts so far; None for a game dealt at creation."""
        if self._salting is Unknown:
            self._salting = salting_of(self.events)
        return self._salting

    @property
    def waiting_for_salts(self) -> tuple[int, ...]:
        """The seats whose salt the opening deal still waits for; () once dealt (or never asked)."""
        salting = self.salting
        return () if salting is None or salting.closed else salting.missing

    @property
    def salts(self) -> tuple[str, ...]:
        """What the key mixes with the seed: GameStarted's salts, then the late salts by seat (a
        silent seat's from the seed: ValueError on a table rebuilt without it)."""
        salting = self.salting
        return self.started.salts + (() if salting is None else salting.salts(self.seed))

    @property
    def bots(self) -> dict[int, str]:
        """seat -> bot kind, as the log records it (kept as events come in: no scan per move)."""
        if self._bots is None:
            self._bots = bot_seats(self.events)
        return dict(self._bots)

    @property
    def seq(self) -> int:
        """The seq the next event will get (= how many events there are)."""
        return len(self.events)

    @property
    def players(self) -> int:
        return self.started.players

    @property
    def started(self) -> GameStarted:
        return self.events[0]

    @property
    def to_act(self) -> tuple[int, ...]:
        salting = self.salting
        if salting is not None and salting.waiting:
            return ()  # nobody moves before the deal
        return self.game.to_act(self.state)

    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome(self.state)

    def rng(self) -> Rng | NoRng:
        """The generator for the next command: derived from (seed, seq of its first event)."""
        return self.rng_at(self.seq)

    def rng_at(self, seq: int, salts: tuple[str, ...] | None = None) -> Rng | NoRng:
        return NoRng() if self.seed is None else Rng(self.seed, seq, self.salts if salts is None else salts)

    def check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise IllegalMove(f"no seat {seat!r}: this table has seats 0 to {self.players - 1}")

    def legal_moves(self, seat: int) -> list[str]:
        self.check_seat(seat)
        if seat not in self.to_act:
            return []
        return [str(move) for move in self.game.legal_moves(self.state, seat)]

    def decide(self, seat: int, text: str) -> list[Any]:
        """The events `text` by `seat` would append, without appending them."""
        return self.decided(seat, text)[0]

    def decided(self, seat: int, text: str) -> tuple[list[Any], Any]:
        """The events of the move and the state they lead to (folded once, to see if the game ends)."""
        check_move_text(text)
        self.check_seat(seat)
        if self.outcome is not None:
            raise IllegalMove("the game is over")
        salting = self.salting
        if salting is not None and salting.waiting:
            raise IllegalMove(f"the game waits for salts before its opening deal (from {seats_text(salting.missing)}): no moves yet")
        if seat not in self.to_act:
            waiting = ", ".join(str(s) for s in self.to_act)
            raise IllegalMove(f"it is not seat {seat}'s turn (waiting for seat {waiting})")
        move = self.game.parse_move(text)
        events = list(self.game.decide(self.state, seat, move, self.rng()))
        state = self.state
        for event in events:
            state = self.game.evolve(state, event)
        if self.game.outcome(state) is not None and self.seed is not None:
            events.append(SeedRevealed(seed_hex(self.seed)))  # folds to the same state
        return events, state

    def salted(self, seat: int, salt: Any) -> tuple[list[Any], Any]:
        """The events of `seat`'s salt and the state they lead to: with the last awaited salt,
        the salts close and the opening deal follows (IllegalMove, one line, if refused)."""
        self.check_seat(seat)
        check_salt(salt)
        why = refusal(self.salting, seat)
        if why is not None:
            raise IllegalMove(why)
        return self._deal_when_closed([SaltGiven(seat=seat, salt=salt)])

    def closed_salts(self) -> tuple[list[Any], Any]:
        """The salt deadline: the collection closes as it stands, the seats that gave none are
        silent and take their silent salts, derived from the committed seed (a salt the server
        chose for them now, having seen the others', would let it pick among deals; in a log from
        before silent salts they add nothing), and the opening deal follows."""
        salting = self.salting
        if salting is None:
            raise IllegalMove("this game takes no salts: it was dealt when it was created")
        if salting.closed:
            raise IllegalMove("the salts are closed already and the game is dealt")
        silent = salting.missing
        return self._deal_when_closed([SaltsClosed(silent=silent, from_seed=salting.silent_from_seed and bool(silent))])

    def _deal_when_closed(self, events: list[Any]) -> tuple[list[Any], Any]:
        """`events` (a salt, or the close), and the close and the deal once nothing is missing."""
        after = salting_after(self.salting, events)
        assert after is not None  # only a game that awaits salts gets here
        if not after.closed and after.missing:
            return events, self.state
        if not after.closed:
            events.append(SaltsClosed())
            after = after.after(events[-1])
        started = self.started
        # The deal draws at its own first seq, with the key of every salt now in.
        rng = self.rng_at(self.seq + len(events), None if self.seed is None else started.salts + after.salts(self.seed))
        state = self.state
        for event in self.game.setup(started.players, dict(started.options), None, rng):
            events.append(event)
            state = self.game.evolve(state, event)
        return events, state

    def play(self, seat: int, text: str) -> list[Any]:
        """Decide and apply one move; returns the new events."""
        events, state = self.decided(seat, text)
        self.advance(events, state)
        return events

    def advance(self, events: list[Any], state: Any) -> None:
        """Take events with the state `decided` folded them to (a writer that appended them keeps
        the fold it already did)."""
        self._note_bots(events)
        self.events.extend(events)
        self.state = state
        self._mark(self.seq, state)

    def _mark(self, seq: int, state: Any) -> None:
        if seq - self._marks[-1][0] >= MARK_EVERY:
            self._marks = [*self._marks[1 - MARKS :], (seq, state)]

    def _note_bots(self, events: list[Any]) -> None:
        if self._bots is not None:
            self._bots = bots_after(self._bots, events)
        if self._clock is not Unknown:
            self._clock = next((e for e in reversed(events) if isinstance(e, ClockSet)), self._clock)
        if self._salting is not Unknown:
            self._salting = salting_after(self._salting, events)

    def extend(self, events: Iterable[Any]) -> None:
        """Apply events already decided (from the log); never validates the rules, but an event
        that does not fold (a forged log) raises BrokenLog and leaves the table as it was."""
        new = list(events)
        marks = []
        try:
            # Folded in pieces at the points to mark: every MARK_EVERY events of the last
            # MARKS * MARK_EVERY (a long log folded at once is marked near its head).
            state, done = self.state, 0
            for cut in range(len(new) - (MARKS - 1) * MARK_EVERY, len(new) + 1, MARK_EVERY):
                if cut > done:
                    state, done = fold(self.game, state, new[done:cut]), cut
                    marks.append((self.seq + done, state))
        except SetupError:
            raise  # the options of a new table refused (a board that does not parse): say so as such
        except Exception:  # whatever a forged event makes evolve trip over: which one, event by event
            state = self.state
            index = 0
            try:
                for index, event in enumerate(new):
                    state = apply(self.game, state, event)
            except SetupError:
                raise
            except Exception as error:
                raise BrokenLog(self.seq + index, new[index].kind, error) from None
        self.state = state
        self._note_bots(new)
        self.events.extend(new)
        for seq, marked in marks:
            self._mark(seq, marked)

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator), as a JSON-able dict."""
        if seat is not None:
            self.check_seat(seat)
        outcome = self.outcome
        view = {
            "game": self.game.slug,
            "seq": self.seq,
            "seat": seat,
            "to_act": list(self.to_act),
            "legal_moves": [] if seat is None else self.legal_moves(seat),
            "outcome": None if outcome is None else outcome.to_dict(),
        }
        own = self.game.view(self.state, seat)
        clash = own.keys() & view.keys()
        if clash:
            raise TypeError(f"{self.game.slug}'s view must not set the common keys {sorted(clash)}")
        view.update(own)
        waiting = self.waiting_for_salts
        if waiting:  # said plainly while nobody can move: whose salt the deal waits for
            view["status"] = "waiting for salts"
            view["waiting_for_salts"] = list(waiting)
        return view

    def narrate(self, seat: int | None = None, start: int = 0) -> list[tuple[int, str]]:
        """(seq, line) for every event from `start` on, as `seat` may see it: folded from the
        latest of the table's marks at or before `start` (from the game's start if none is)."""
        base, state = next(((seq, marked) for seq, marked in reversed(self._marks) if seq <= start), (0, None))
        lines = []
        for seq in range(base, self.seq):
            event = self.events[seq]
            if seq >= start:
                lines.append((seq, narrate(self.game, state, event, seat)))
            state = apply(self.game, state, event)
        return lines


def clock_of(events: Iterable[Any]) -> ClockSet | None:
    """The latest ClockSet in `events` (None: the game has no clock)."""
    found = None
    for event in events:
        if isinstance(event, ClockSet):
            found = event
    return found


def bot_seats(events: Iterable[Any]) -> dict[int, str]:
    """seat -> bot kind, as the log records it: the latest BotsSeated holds the whole mapping
    (a seat handed back to a person is left out of it)."""
    return bots_after({}, events)


def bots_after(bots: Mapping[int, str], events: Iterable[Any]) -> dict[int, str]:
    """The bot seats once `events` follow a log whose bot seats are `bots`."""
    found = dict(bots)
    for event in events:
        if isinstance(event, BotsSeated):
            found = dict(event.bots)
    return found


def fold(game: Game, state: Any, events: Sequence[Any]) -> Any:
    """The state after `events`: the lifecycle events applied here, the runs of the game's own
    between them by its fold if it has one (else one by one, as `apply` does)."""
    if game.fold is None:
        for event in events:
            state = apply(game, state, event)
        return state
    run: list[Any] = []
    for event in events:
        if isinstance(event, LIFECYCLE_EVENTS):  # the table's own, as `apply` has them
            if run:
                state, run = game.fold(state, run), []
            state = apply(game, state, event)
        else:
            run.append(event)
    return game.fold(state, run) if run else state


def apply(game: Game, state: Any, event: Any) -> Any:
    """Fold one event: the lifecycle events are the table's, the rest the game's."""
    if isinstance(event, GameStarted):
        return game.initial(event.players, dict(event.options))
    if isinstance(event, (SeedRevealed, *SHELL_EVENTS)):
        return state
    return game.evolve(state, event)


def narrate(game: Game, state: Any, event: Any, seat: int | None) -> str:
    if isinstance(event, GameStarted):
        return f"{game.title} started for {event.players} players (seed commitment {event.seed_commitment[:12]}…)"
    if isinstance(event, SeedRevealed):
        return f"the seed is revealed: {event.seed}"
    if isinstance(event, BotsSeated):
        if not event.bots:
            return "people play every seat"
        return "bots play " + ", ".join(f"seat {seat} ({kind})" for seat, kind in event.bots)
    if isinstance(event, SaltsAwaited):
        line = f"the opening deal waits for a salt from {seats_text(event.seats)}"
        return line + (" (a seat that sends none by the deadline is salted from the committed seed)" if event.silent_from_seed else "")
    if isinstance(event, SaltGiven):
        return f"seat {event.seat} gave its salt"
    if isinstance(event, SaltsClosed):
        silent = " and ".join(f"seat {seat}" for seat in event.silent)
        if event.from_seed:
            return f"the server salted the deal for {silent} from the committed seed, since {silent} sent none by the deadline; the cards are dealt"
        if event.silent:
            return f"the salt deadline passed: {silent} sent none (they add nothing to the key); the cards are dealt"
        return "every salt is in: the cards are dealt"
    if isinstance(event, SHELL_EVENTS):
        return narrate_clock(event)
    return game.narrate(state, event, seat)


def duration_text(seconds: int) -> str:
    """48h, 90m, 2d, 1d 12h: a duration as the clock's settings are written."""
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size and (seconds // size or not parts):
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return " ".join(parts) or "0s"


def narrate_clock(event: Any) -> str:
    if isinstance(event, ClockSet):
        line = f"the clock is set: {duration_text(event.deadline_s)} a move"
        if event.reminders_s:
            line += ", reminders " + ", ".join(duration_text(r) for r in event.reminders_s) + " before"
        if event.vacation_days:
            line += f", {event.vacation_days} vacation days a year per seat"
        if event.autopilot_after:
            line += f", the autopilot takes a seat after {event.autopilot_after} timeouts in a row"
        return line
    if isinstance(event, ClockPaused):
        return "the operator paused the clock"
    if isinstance(event, ClockResumed):
        return "the operator resumed the clock"
    if isinstance(event, DeadlineExtended):
        who = ", ".join(f"seat {s}" for s in event.seats)
        return f"the operator gave {who} {duration_text(event.seconds)} more"
    if isinstance(event, VacationTaken):
        return f"seat {event.seat} takes {event.days} vacation day{'s' if event.days != 1 else ''}"
    if isinstance(event, TurnTimedOut):
        return f"seat {event.seat}'s time ran out: the autopilot moves for it"
    raise TypeError(f"no narration for {type(event).__name__}")


def resolve_options(game: Game, options: Mapping[str, OptionValue] | None) -> dict[str, OptionValue]:
    chosen = dict(game.options)
    for name, value in (options or {}).items():
        if name not in game.options:
            known = ", ".join(sorted(game.options)) or "none"
            raise SetupError(f"{game.slug} has no option {name!r} (options: {known})")
        default = game.options[name]
        check_value(value, f"option {name!r}")
        if type(value) is not type(default):
            raise SetupError(f"option {name!r} takes a {type(default).__name__}, not {value!r}")
        chosen[name] = value
    return chosen


def new_table(
    game: Game,
    players: int,
    seed: int,
    deal: Mapping[str, Any] | None = None,
    options: Mapping[str, OptionValue] | None = None,
    salts: Iterable[str] = (),
    salt_seats: Iterable[int] = (),
) -> Table:
    if not isinstance(players, int) or not game.min_players <= players <= game.max_players:
        raise SetupError(
            f"{game.slug} is for {game.min_players} to {game.max_players} players, not {players!r}"
        )
    chosen = resolve_options(game, options)
    started = GameStarted(
        game=game.slug,
        rules_version=game.rules_version,
        players=players,
        options=tuple(sorted(chosen.items())),
        seed_commitment=commitment(seed),
        fixed_deal=deal is not None,
        salts=check_salts(salts),
    )
    if deal is not None and not isinstance(deal, Mapping):
        raise SetupError(f"a deal is a mapping, not {type(deal).__name__}")
    if deal is not None:
        check_value(deal, "the deal")
    try:
        awaited = check_salt_seats(salt_seats, players)
    except ValueError as error:
        raise SetupError(str(error)) from None
    if awaited and deal is not None:
        raise SetupError("a game given an exact deal draws no opening deal: it takes no late salts")
    table = Table(game, [], None, seed)
    table.extend([started])
    if awaited:  # the opening deal waits for these seats' salts (Table.salted)
        table.extend([SaltsAwaited(seats=awaited, silent_from_seed=True)])
        return table
    table.extend(game.setup(players, chosen, deal, table.rng()))
    return table


def replay_table(game: Game, events: Iterable[Any], seed: int | None = None) -> Table:
    table = Table(game, [], None, None)
    table.extend(events)
    if not table.events or not isinstance(table.events[0], GameStarted):
        raise SetupError("a log starts with GameStarted")
    if seed is None:
        seed = next((seed_from_hex(e.seed) for e in table.events if isinstance(e, SeedRevealed)), None)
    if seed is not None and commitment(seed) != table.started.seed_commitment:
        raise SetupError("that seed does not match this game's seed commitment")
    table.seed = seed
    return table
