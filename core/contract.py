"""The game contract: what every game provides, the errors and outcome it speaks in, and the two
events every game's log shares. Pure: no I/O, clock, randomness or logging.

A game is `setup + decide + evolve` plus what a player needs to see (DESIGN.md, "The game contract"):

    setup(players, options, deal, rng) -> events      the opening events (deal, first pot, ...)
    initial(players, options) -> state                the state before the opening events
    decide(state, seat, move, rng) -> events          the only place rules are checked
    evolve(state, event) -> state                     applies, never validates, never draws
    to_act(state) -> tuple of seats                   () when the game is over
    legal_moves(state, seat) -> list of moves         moves have a canonical str()
    parse_move(text) -> move                          raises IllegalMove("malformed move ...")
    outcome(state) -> Outcome | None
    view(state, seat) -> dict                         what that seat may see (seat None: public)
    narrate(state, event, seat) -> str                one line; `state` is the state before `event`
    determinize(state, seat, rng) -> state            the cards hidden from `seat` dealt anew among
                                                      the places hidden from it: a state that seat
                                                      cannot tell apart (tests and search use it)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import attrs

OptionValue = str | int | bool


class IllegalMove(ValueError):
    """A move refused: malformed text, out of turn, or against the rules. The text is for players."""


class SetupError(ValueError):
    """A table that cannot start: unknown game, wrong player count, bad option or bad deal."""


class BrokenLog(ValueError):
    """Events that do not fold into a state of their game: a damaged or forged log (evolve trusts
    its log, so a forged event can make it fail anywhere). The text names the seq and the event."""

    def __init__(self, seq: int, kind: str, error: Exception) -> None:
        super().__init__(f"seq {seq} ({kind}) does not apply: {type(error).__name__}: {error}")
        self.seq = seq


@attrs.frozen
class Outcome:
    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def to_dict(self) -> dict[str, list[int]]:
        return {"scores": list(self.scores), "winners": list(self.winners)}


@attrs.frozen
class GameStarted:
    """The first event of every log: which game, for whom, under which rules, and the seed's promise."""

    kind: ClassVar[str] = "pbm.game_started"
    game: str
    rules_version: int
    players: int
    options: tuple[tuple[str, OptionValue], ...]
    seed_commitment: str
    # True when the opening was given as an exact deal, not drawn from the seed (so a verifier
    # knows not to re-derive it). Added after schema 1: stored only when True (events/codec.py).
    fixed_deal: bool = False
    # The players' salts, mixed with the seed into every random step (core/rng.py). Added after
    # schema 1 too: stored only when there are any.
    salts: tuple[str, ...] = ()


@attrs.frozen
class SeedRevealed:
    """The last event of every finished game: the secret seed, so anyone can check every deal."""

    kind: ClassVar[str] = "pbm.seed_revealed"
    seed: str  # the seed's 32 bytes as hex (core.rng.seed_hex): msgpack integers stop at 64 bits


@attrs.frozen
class BotsSeated:
    """Which seats a program plays, and which kind of player (e.g. "random", "ismcts"); recorded
    right after the opening events, so the log says who was a bot. Rules never read it."""

    kind: ClassVar[str] = "pbm.bots_seated"
    bots: tuple[tuple[int, str], ...]  # (seat, bot kind), by seat


# The clock's events (events/clock.py reads them with their envelopes' times). The clock is the
# shell's: these record what the operator, a seat or a deadline did to it; rules never read them,
# and no rule's outcome depends on them (a timed-out seat's move is an ordinary command after).


@attrs.frozen
class ClockSet:
    """A game's clock, recorded at creation: each turn has `deadline_s` seconds (counted from the
    envelope time of the event that began it), reminders that many seconds before the deadline,
    `vacation_days` a seat may take per calendar year (UTC), and after `autopilot_after` timeouts in
    a row (0: never) the autopilot plays the seat until its player moves again."""

    kind: ClassVar[str] = "pbm.clock_set"
    deadline_s: int
    reminders_s: tuple[int, ...] = ()
    vacation_days: int = 0
    autopilot_after: int = 0


@attrs.frozen
class ClockPaused:
    """The operator stopped every seat's clock (from this event's envelope time)."""

    kind: ClassVar[str] = "pbm.clock_paused"


@attrs.frozen
class ClockResumed:
    """The operator started the clocks again."""

    kind: ClassVar[str] = "pbm.clock_resumed"


@attrs.frozen
class DeadlineExtended:
    """The operator gave these seats' turns in progress `seconds` more."""

    kind: ClassVar[str] = "pbm.deadline_extended"
    seats: tuple[int, ...]
    seconds: int


@attrs.frozen
class VacationTaken:
    """A seat's clock stops for `days` days from this event's envelope time."""

    kind: ClassVar[str] = "pbm.vacation_taken"
    seat: int
    days: int


@attrs.frozen
class TurnTimedOut:
    """The seat's turn that began at seq `turn` passed its deadline; the autopilot's move follows
    (command id `timeout:<turn>:<seat>`)."""

    kind: ClassVar[str] = "pbm.turn_timed_out"
    seat: int
    turn: int


CLOCK_EVENTS: tuple[type, ...] = (ClockSet, ClockPaused, ClockResumed, DeadlineExtended, VacationTaken, TurnTimedOut)


# Late salts (core/salts.py): the players' entropy, given after GameStarted has committed to the
# seed, which the opening deal waits for, so a server cannot draw seeds until it likes the deal.


@attrs.frozen
class SaltsAwaited:
    """Recorded right after GameStarted: the opening deal waits for a salt from each of these seats.
    `silent_from_seed`: a seat silent at the deadline puts its silent salt (core.rng.silent_salt,
    from the committed seed) in the key. Logs from before it was added have it False: their silent
    seats add nothing. Fixed here, before any salt is seen, so the server cannot choose between
    the two rules once it knows which deal each would give."""

    kind: ClassVar[str] = "pbm.salts_awaited"
    seats: tuple[int, ...]
    silent_from_seed: bool = False


@attrs.frozen
class SaltGiven:
    """One seat's salt, mixed with the seed (and the other salts) into every random step."""

    kind: ClassVar[str] = "pbm.salt_given"
    seat: int
    salt: str


@attrs.frozen
class SaltsClosed:
    """No more salts: every awaited one is in, or the salt deadline passed and the `silent` seats
    sent none. `from_seed`: they take their silent salt (core.rng.silent_salt), as SaltsAwaited's
    `silent_from_seed` promised, said here too so that the close reads as what it did; in an old
    log they add nothing. The opening deal follows at once, in the same append."""

    kind: ClassVar[str] = "pbm.salts_closed"
    silent: tuple[int, ...] = ()
    from_seed: bool = False


SALT_EVENTS: tuple[type, ...] = (SaltsAwaited, SaltGiven, SaltsClosed)
# Recorded by the shell between commands, nobody's move: they neither start a turn nor belong to
# the command before them (replays.log's command bounds, verify's opening).
# The salts' events are the shell's too: nobody's move, and no turn begins with them (the first
# turn begins with the opening deal that follows SaltsClosed).
SHELL_EVENTS: tuple[type, ...] = (BotsSeated, *CLOCK_EVENTS, *SALT_EVENTS)
LIFECYCLE_EVENTS: tuple[type, ...] = (GameStarted, SeedRevealed, *SHELL_EVENTS)


@attrs.frozen
class Game:
    """One game, as `core.GAMES` registers it."""

    slug: str
    title: str
    min_players: int
    max_players: int
    rules_version: int
    # option name -> default; a value's type is its default's type
    options: Mapping[str, OptionValue]
    event_types: tuple[type, ...]
    setup: Callable[..., list[Any]]
    initial: Callable[[int, Mapping[str, OptionValue]], Any]
    decide: Callable[..., list[Any]]
    evolve: Callable[[Any, Any], Any]
    to_act: Callable[[Any], tuple[int, ...]]
    legal_moves: Callable[[Any, int], list[Any]]
    parse_move: Callable[[str], Any]
    outcome: Callable[[Any], Outcome | None]
    view: Callable[[Any, int | None], dict[str, Any]]
    narrate: Callable[[Any, Any, int | None], str]
    determinize: Callable[[Any, int, Any], Any]
    # a sentence for `pbm games`
    description: str = ""
    # everyone wins or nobody does (Tranquility): reports give the team's win rate over games
    cooperative: bool = False
    # option name -> what it does, one line for `pbm games` and `pbm rules` (every option has one)
    option_help: Mapping[str, str] = attrs.field(factory=dict)
    # Optional: fold(state, events) -> state, evolve over a run of the game's own events at once (a
    # replay, a cold read), equal to evolving them one by one (the conformance suite checks it). A
    # game whose state is costly to rebuild per event keeps what changes in local variables and
    # builds one state at the end. None: the table evolves event by event.
    fold: Callable[[Any, Sequence[Any]], Any] | None = None
    # Optional: the game's conditions for standing orders (core/games/<game>/conditions.py, read by
    # core/orders.py): a module that parses and evaluates them on a seat's view. None: orders of
    # this game take no conditions.
    conditions: Any = None
    # Optional: how the game's moves divide for a person (core/games/<game>/moves.py, read by
    # core/menus.py): `patterns(view)`, and for a game whose moves are many, `steps(view)` and
    # `stepped(view)`. None: patterns by the moves' first words, no steps.
    moves: Any = None

    def __attrs_post_init__(self) -> None:
        if set(self.option_help) != set(self.options):
            raise TypeError(f"{self.slug}: option_help must explain exactly the options {sorted(self.options)}")
        for cls in self.event_types:
            if not cls.kind.startswith(self.slug + "."):
                raise TypeError(f"{cls.__name__}.kind {cls.kind!r} must start with {self.slug!r}.")


CONTRACT_FUNCTIONS = (
    "setup", "initial", "decide", "evolve", "to_act", "legal_moves",
    "parse_move", "outcome", "view", "narrate", "determinize",
)


def game_from_rules(rules: Any, **facts: Any) -> Game:
    """The Game whose contract functions are the same-named functions of a game's rules module
    (every game package has one), with its facts (slug, title, players, ...) given here."""
    return Game(**facts, **{name: getattr(rules, name) for name in CONTRACT_FUNCTIONS}, fold=getattr(rules, "fold", None))


def with_item(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """A copy of the tuple with one item changed: how frozen states update a seat's hand, score..."""
    return values[:index] + (value,) + values[index + 1 :]


def seat_name(seat: int | None) -> str:
    """How narration names a seat."""
    return "the table" if seat is None else f"seat {seat}"


def check_cards(given: list[str], expected: list[str], what: str) -> None:
    """Refuse a deal that is not exactly `expected` (as a multiset), naming the first difference."""
    wanted, got = Counter(expected), Counter(given)
    for card in got:
        if card not in wanted:
            raise SetupError(f"{what}: {card!r} is not a card of this game")
        if got[card] > wanted[card]:
            raise SetupError(f"{what}: card {card} appears more often than the game has it")
    missing = sorted(str(card) for card in (wanted - got))
    if missing:
        raise SetupError(f"{what}: missing {', '.join(missing)}")
