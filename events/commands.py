"""The command path, the only writer of game logs: read, fold, decide, append, dispatch.

Games are folded incrementally: a table in memory is brought up to date by reading only the events
appended since, so a long game does not cost a full replay per move. The log stays the truth: a
table that does not match what Redis holds is dropped and rebuilt.
"""

from __future__ import annotations

import functools
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import attrs

import core
from core.bounds import check_command_id
from core.orders import forced_move, order_to_fire
from core.table import Table, bots_after
from events import cooperative, envelope, index, keys, server, snapshots
from events.codec import DecodeError
from events.envelope import Envelope
from events.seats import TokenCheck
from events.server import RedisUnavailable
from events.store import Appended, Conflict, NotPlayable, OrderGone, Status, Store

if TYPE_CHECKING:
    from events.clock import Clock

Dispatch = Callable[..., None]  # (game id, table[, reach=seats with a channel]) -> None
RETRIES = 50
LOCK_STRIPES = 64
# A game's `forced_moves` setting (its row): "auto" plays a person's only legal move for them, "ask"
# waits for them to play it. A row without it (a game from before the setting) is "auto".
FORCED_MOVES = ("auto", "ask")
FOLLOW_UPS = 10_000  # more moves than any game has: a bound on one append's follow-ups, not a rule


REINDEX_GRACE_MS = 60_000  # an index entry without a log younger than this may be a create in flight


class UnknownGame(LookupError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r} (see `pbm list`)")


class UnreadableGame(ValueError):
    """A stored log that does not make a game: undecodable bytes, a forged or damaged event.
    Readers list it as unreadable with this reason; nobody can play it."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id} is unreadable: {reason}")
        self.reason = reason


class CommandIdReused(core.IllegalMove):
    """A command id already used by another seat or another move: refused like an illegal move
    (nothing appended), since answering with the first move's result would claim this one played."""

    def __init__(self, command_id: str, what: str = "move") -> None:
        super().__init__(f"command id {command_id!r} was used for another {what}")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@attrs.frozen
class Submitted:
    seq: int  # the seq of the first new event
    events: list[Envelope]
    duplicate: bool  # the command id had been seen: nothing new was appended


def status_of(game: core.Game, state: Any, bots: Mapping[int, str], since_ms: int, waiting: bool = False) -> Status:
    """The row's changing part for a game at `state` with these bot seats; `waiting`: for salts
    (nobody is to act before the deal)."""
    outcome = game.outcome(state)
    to_act = () if waiting else tuple(game.to_act(state))
    return Status(to_act, None if outcome is None else outcome.to_dict(), since_ms, tuple(sorted(bots)), "salts" if waiting else "")


def bots_seated(bots: Mapping[int, str], players: int) -> core.BotsSeated:
    for seat, kind in bots.items():
        if type(seat) is not int or not 0 <= seat < players:
            raise core.SetupError(f"no seat {seat!r} for a bot: this table has seats 0 to {players - 1}")
        if not isinstance(kind, str) or not kind:
            raise core.SetupError(f"seat {seat}: a bot kind is a name, not {kind!r}")
    return core.BotsSeated(bots=tuple(sorted(bots.items())))


def forced_command_id(seq: int, seat: int) -> str:
    """The command id of the move the shell plays for a seat whose only legal move it is: two
    processes that both find it play it once."""
    return f"forced:{seq}:{seat}"


def order_command_id(order_id: str, seq: int) -> str:
    """The command id of a standing order's firing at `seq`."""
    return f"order:{order_id}:{seq}"


def same_move(game: core.Game, played: str | None, move: str) -> bool:
    """Whether two move texts are one move (`PLAY 1sp` is `play 1Sp`)."""
    if played is None:
        return False
    try:
        return str(game.parse_move(played)) == str(game.parse_move(move))
    except core.IllegalMove:  # the new text does not parse: it is not the move that was played
        return False


@attrs.frozen
class Command:
    """One command of an append: whose, its move and ids, its events and the state they lead to."""

    seat: int | None
    move: str | None
    command_id: str | None
    origin: str | None
    events: list[Any]
    state: Any


def forced_run(table: Table, new_events: list[Any], state: Any) -> list[Command]:
    """The forced moves (core.orders.forced_move: a person's only legal move) that follow
    `new_events` on `table`, one after the other, decided on a copy: the table is not changed."""
    probe = table.copy()
    probe.advance(new_events, state)
    run = []
    for _ in range(FOLLOW_UPS):
        forced = forced_move(probe)
        if forced is None:
            break
        seat, move = forced
        events, after = probe.decided(seat, move)
        run.append(Command(seat, move, forced_command_id(probe.seq, seat), "forced", events, after))
        probe.advance(events, after)
    return run


class GameBusy(RedisUnavailable):
    """A call on a game that waited too long for the game's lock: the call holding it has been
    waiting on Redis as long as Redis may take to answer (events.server.command_timeout)."""

    def __init__(self, game_id: str, waited_s: float) -> None:
        super().__init__(f"game {game_id} is busy: a call on it has waited over {waited_s:g} s for Redis; nothing was done, try again")


def one_game_at_a_time(method):
    """A Games method that runs holding its game's lock (the game id is its first argument)."""

    @functools.wraps(method)
    def locked(self: Games, game_id: str, *args: Any, **kwargs: Any) -> Any:
        lock = self._locks[hash(game_id) % LOCK_STRIPES]
        # A bounded wait: a call holding its game this long waits on a Redis that does not answer
        # (its own wait ends as late), and the calls behind it would each wait that long again,
        # one after the other (seven requests on one game took 21 s to be told). They are told now.
        # (A call run on the event loop waits there: events.cooperative.)
        if not cooperative.acquire(lock, self.lock_timeout_s):
            raise GameBusy(game_id, self.lock_timeout_s)
        try:
            return method(self, game_id, *args, **kwargs)
        finally:
            cooperative.release(lock)

    return locked


class Games:
    """Creates games and submits commands; keeps recently used tables folded in memory.

    Safe to share between threads (a web server's pool): every call on a game holds that game's
    lock (one of a fixed set, chosen by the game id), so no two threads fold or extend one table
    at once, while calls on other games wait on Redis side by side. A call waits for its game's
    lock as long as pbm waits for Redis, no longer (GameBusy).
    """

    def __init__(
        self,
        store: Store,
        dispatch: Dispatch | None = None,
        clock: Callable[[], int] = now_ms,
        cache_size: int = 256,
    ) -> None:
        self.store = store
        self.dispatch = dispatch
        self.clock = clock
        self._tables: OrderedDict[str, tuple[Table, bytes]] = OrderedDict()
        self._cache_size = cache_size
        self._locks = [threading.RLock() for _ in range(LOCK_STRIPES)]
        self._settings: dict[str, str] = {}  # game id -> its forced_moves setting (_forced_setting)
        self.lock_timeout_s = server.command_timeout()

    def create(
        self,
        slug: str,
        players: int,
        *,
        seed: int | None = None,
        deal: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        game_id: str | None = None,
        bots: Mapping[int, str] | None = None,
        salts: Iterable[str] = (),
        clock: core.ClockSet | None = None,
        forced_moves: str = "auto",
        paused: bool = False,
        salt_seats: Iterable[int] = (),
    ) -> str:
        """A new game in the log; returns its id. The seed is secret: only its commitment is logged.

        `forced_moves` (FORCED_MOVES) goes into the game's row, not the log: it is the shell's
        setting, not a rule, and changes no event (a forced move is an ordinary move in the log,
        its envelope's origin aside).

        `bots` (seat -> bot kind) is recorded as a BotsSeated event in the same append; which kinds
        exist is the workers' business (workers.bots checks them before calling this). `clock`
        (events.clock.settings) is recorded after it, in the same append, and with `paused` a
        ClockPaused right after (a game with open seats: its clock starts when they are taken). With
        `salt_seats` the opening deal waits for those seats' salts (give_salt; close_salts at the
        deadline).
        """
        if forced_moves not in FORCED_MOVES:
            raise core.SetupError(f"forced_moves is {' or '.join(FORCED_MOVES)}, not {forced_moves!r}")
        seed = secrets.randbits(256) if seed is None else seed
        table = core.new_table(slug, players=players, seed=seed, deal=deal, options=options, salts=salts, salt_seats=salt_seats)
        if bots:
            table.extend([bots_seated(bots, players)])
        if clock is not None:
            table.extend([clock, core.ClockPaused()] if paused else [clock])
        while True:
            new_id = game_id or f"{slug}-{secrets.token_hex(4)}"
            sealed, raws = self._seal(new_id, 0, envelope.GENESIS, table.events, None, None, None)
            status = status_of(table.game, table.state, table.bots, sealed[-1].time_ms, bool(table.waiting_for_salts))
            try:
                # A deal that waits for salts has a deadline even without a clock (the salts'):
                # among the clocked games, recovery finds its look at it.
                self.store.create(new_id, slug, players, sealed[0].time_ms, seed, raws, status, clocked=clock is not None or bool(table.waiting_for_salts), forced_moves=forced_moves)
            except Conflict:
                if game_id is not None:
                    raise
                continue
            self._remember(new_id, table, sealed[-1].hash)
            self._settings[new_id] = forced_moves
            self._follow_up(new_id, table, sealed[-1].hash, None, forced_moves, forced_pending=True)
            return new_id

    @one_game_at_a_time
    def table(self, game_id: str) -> Table:
        """A copy of the game's table as the log has it now (with its seed, to play on or view)."""
        return self._load(game_id)[0].copy()

    def table_with_clock(self, game_id: str) -> tuple[Table, Clock]:
        """A copy of the game's table and its clock (events.clock) after the table's last event,
        read from the clock's cache and the events since: a long game's clock costs its latest
        events, not its length."""
        table = self.table(game_id)
        clock = self.store.clocks([game_id], upto={game_id: table.seq - 1}).get(game_id)
        if clock is None:  # the log went, or was replaced by one that does not decode, meanwhile
            raise UnknownGame(game_id)
        return table, clock

    @one_game_at_a_time
    def table_at(self, game_id: str, seq: int) -> Table:
        """The game's table at `seq` if this process holds it folded that far (no read: a caller
        that then submits with expected_seq=seq learns of a newer log by a Conflict), else as the
        log has it now."""
        cached = self._tables.get(game_id)
        if cached is not None and cached[0].seq == seq:
            return cached[0].copy()
        return self.table(game_id)

    @one_game_at_a_time
    def submit(
        self,
        game_id: str,
        seat: int,
        move: str,
        command_id: str | None = None,
        expected_seq: int | None = None,
        check: TokenCheck | None = None,
        origin: str | None = None,
    ) -> Submitted:
        """Play `move` for `seat`. IllegalMove if refused; Conflict if `expected_seq` is stale.

        `origin` ("order": one of the seat's standing orders) goes into the envelope for the audit;
        a move the seat sends itself has none. After the append, the moves that follow without a
        choice are played in the same call (see `_follow_up`).

        Without `expected_seq` a lost race is retried on the new state (where the move may have
        become illegal). A repeated `command_id` with the same seat and move (in any spelling the
        game parses alike) returns what it appended the first time; with another seat or move it
        raises CommandIdReused. This holds for every front end: the API's Idempotency-Key and a
        mail's Message-ID are command ids.

        A seat token's `check` (events.seats) rides on the append, which runs it first: NotASeat
        or OverAllowance, with nothing appended, if it refuses. A call that ends without an
        append leaves it not done, for the caller to run before answering.
        """
        check_command_id(command_id)
        conflict = None
        for _attempt in range(RETRIES):
            table, last_hash = self._load(game_id, known_at=expected_seq)
            if expected_seq is not None and expected_seq != table.seq:
                done = self._done_or_raise(game_id, command_id, Conflict(game_id, expected_seq, table.seq))
                return self._same_command(table, seat, move, command_id, done)
            try:
                new_events, state = table.decided(seat, move)
            except core.IllegalMove as refusal:
                # A repeated command is refused by the rules once it has been played (the turn
                # moved on): its answer is what it appended the first time.
                return self._same_command(table, seat, move, command_id, self._done_or_raise(game_id, command_id, refusal))
            try:
                written = self._write(game_id, table, last_hash, new_events, state, seat, move, command_id, check, origin)
            except Conflict as lost:
                if expected_seq is not None:
                    raise
                conflict = lost
                continue
            return self._same_command(table, seat, move, command_id, written) if written.duplicate else written
        raise conflict  # every retry lost a race: a storm of writers; nothing was appended

    @one_game_at_a_time
    def settle(self, game_id: str) -> int:
        """Play the moves the game's state calls for without a choice (a person's only legal move,
        when its row says "auto"), as after any append; returns the log's length after them. For
        a process that died between an append and its follow-ups: the deadline's look runs this
        before it times a seat out."""
        table, last_hash = self._load(game_id)
        self._follow_up(game_id, table, last_hash, None, self.store.forced_moves(game_id), self.store.orders_held(game_id), forced_pending=True)
        return table.seq

    @one_game_at_a_time
    def seat_bots(self, game_id: str, bots: Mapping[int, str], command_id: str | None = None) -> Submitted:
        """Hand seats to bots, or back to people, from here on: appends a BotsSeated holding the
        whole new mapping (seat -> bot kind; a seat left out is a person's), which replaces the
        one before it. Then dispatches, so a bot whose turn it is now gets its job.

        Which kinds exist is the workers' business (workers.bots.check_seats checks them first).
        A repeated `command_id` with the same mapping appends nothing again; with another mapping
        (or used by a move) it raises CommandIdReused, as submit does. SetupError for a bad seat or
        a game over.
        """
        check_command_id(command_id)
        conflict = None
        for _attempt in range(RETRIES):
            table, last_hash = self._load(game_id)
            seated = bots_seated(bots, table.players)
            if table.outcome is not None:
                done = self._done_or_raise(game_id, command_id, core.SetupError(f"game {game_id} is over: its seats stay as they were"))
                return self._same_seating(seated, command_id, done)
            try:
                written = self._write(game_id, table, last_hash, [seated], table.state, None, None, command_id)
            except Conflict as lost:
                conflict = lost
                continue
            return self._same_seating(seated, command_id, written) if written.duplicate else written
        raise conflict

    @one_game_at_a_time
    def record(self, game_id: str, event: Any, command_id: str | None = None, expected_seq: int | None = None) -> Submitted:
        """Append one of the shell's events (core.SHELL_EVENTS: a pause, an extension, a vacation,
        a timeout), nobody's move, then dispatch. A repeated `command_id` appends nothing again;
        with `expected_seq` a log that moved on raises Conflict (a check made on the log as it was
        still holds). SetupError for a game over."""
        if not isinstance(event, core.contract.SHELL_EVENTS) or isinstance(event, core.contract.SALT_EVENTS):
            raise TypeError(f"{type(event).__name__} is not one of the shell's events that record takes (salts: give_salt)")
        check_command_id(command_id)
        conflict = None
        for _attempt in range(RETRIES):
            table, last_hash = self._load(game_id, known_at=expected_seq)
            if expected_seq is not None and expected_seq != table.seq:
                return self._done_or_raise(game_id, command_id, Conflict(game_id, expected_seq, table.seq))
            if table.outcome is not None:
                return self._done_or_raise(game_id, command_id, core.SetupError(f"game {game_id} is over"))
            try:
                return self._write(game_id, table, last_hash, [event], table.state, None, None, command_id)
            except Conflict as lost:
                if expected_seq is not None:
                    raise
                conflict = lost
        raise conflict

    @one_game_at_a_time
    def give_salt(self, game_id: str, seat: int, salt: str, check: TokenCheck | None = None) -> Submitted:
        """Append `seat`'s salt for the opening deal, and the deal with it when it is the last one
        awaited (core.Table.salted). IllegalMove, nothing appended, for a bad salt, a second one
        from the seat, or a game that takes none (or is dealt); `check` as in submit."""
        return self._salt(game_id, lambda table: table.salted(seat, salt), None, check)

    @one_game_at_a_time
    def close_salts(self, game_id: str, expected_seq: int | None = None) -> Submitted:
        """The salt deadline: close the salts as they stand and deal (core.Table.closed_salts).
        A repeated close appends nothing again (command id `salts-closed`)."""
        return self._salt(game_id, lambda table: table.closed_salts(), expected_seq, None, "salts-closed")

    def _salt(self, game_id, decide, expected_seq, check, command_id=None) -> Submitted:
        conflict = None
        for _attempt in range(RETRIES):
            table, last_hash = self._load(game_id, known_at=expected_seq)
            if expected_seq is not None and expected_seq != table.seq:
                return self._done_or_raise(game_id, command_id, Conflict(game_id, expected_seq, table.seq))
            try:
                new_events, state = decide(table)
            except core.IllegalMove as refusal:
                return self._done_or_raise(game_id, command_id, refusal)
            try:  # nobody's move: the seat that salted is named in its SaltGiven
                written = self._write(game_id, table, last_hash, new_events, state, None, None, command_id, check)
            except Conflict as lost:
                if expected_seq is not None:
                    raise
                conflict = lost
                continue
            if table.clock is None and any(isinstance(event, core.SaltsClosed) for event in new_events):
                index.unclocked(self.store.redis, game_id)  # dealt: a game without a clock has no deadline left
            return written
        raise conflict

    def _write(self, game_id, table, last_hash, new_events, state, seat, move, command_id, check=None, origin=None) -> Submitted:
        """Append one command's events with the row they lead to, and the forced moves that follow
        it in the same append; then keep the index, the table and its snapshot up to date, fire the
        orders that follow, and dispatch. Conflict (nothing appended) if the log moved on."""
        written, appended, last_hash = self._append(game_id, table, last_hash, new_events, state, seat, move, command_id, check, origin,
                                                    forced_moves=self._forced_setting(game_id))
        if not written.duplicate:
            self._follow_up(game_id, table, last_hash, appended.reach, appended.forced_moves, appended.orders)
        return written

    def _forced_setting(self, game_id: str) -> str:
        """The game's forced_moves setting, as its row has it (set once, at creation): read once per
        process and game, since an append must know it before it is sent (its forced moves go in it)."""
        setting = self._settings.get(game_id)
        if setting is None:
            if len(self._settings) > 4 * self._cache_size:
                self._settings.clear()
            setting = self._settings[game_id] = self.store.forced_moves(game_id) or "auto"
        return setting

    def _follow_up(self, game_id: str, table: Table, last_hash: bytes, reach: tuple[int, ...] | None, forced_moves: str | None,
                   orders: bool = False, forced_pending: bool = False) -> None:
        """After an append: while a person's seat to act holds a standing order that fires
        (events/orders.py, core/orders.py), play it, command id `order:<id>:<seq>`, origin "order",
        the order taken off and the forced moves it leads to played in the same append; then
        dispatch once, for the state where the game waits on a choice.

        The forced moves that follow an append are in it (`_append`); `forced_pending`: the state
        may call for one already (a new game, or a process that died between an append and its
        forced move, which `settle` finds), played first, command id `forced:<seq>:<seat>`.

        Here, in the command path, rather than in a job the dispatcher queues: the moves follow
        from the state alone, cost no search, and need no worker (a game at the terminal has
        none); a run of them plays through in one go, with no job, notification or deadline per
        stop, and nobody is told of a turn that is over before they could read of it. Each is an
        ordinary append at an expected seq: a writer that got in first makes it a Conflict, and
        that writer's own follow-up looks at the state it made.
        """
        for _ in range(FOLLOW_UPS):
            forced = forced_move(table) if forced_pending and forced_moves != "ask" else None
            consume = None
            if forced is not None:
                seat, move = forced
                command_id, origin = forced_command_id(table.seq, seat), "forced"
            else:
                fired = self._order_to_fire(game_id, table) if orders else None
                if fired is None:
                    break
                seat, move, order_id = fired
                command_id, origin, consume = order_command_id(order_id, table.seq), "order", (seat, order_id)
            try:
                new_events, state = table.decided(seat, move)
                written, appended, last_hash = self._append(game_id, table, last_hash, new_events, state, seat, move, command_id, None, origin, consume, forced_moves)
            except OrderGone:
                continue  # cleared or fired meanwhile: look at the seat's orders again
            except (Conflict, NotPlayable):
                return  # another writer moved on (it dispatches what it made), or the game cannot be played
            if written.duplicate:
                return  # another process played it: it follows up and dispatches
            reach, forced_pending = appended.reach, False  # its forced moves came with it
        self._dispatch(game_id, table, reach)

    def _order_to_fire(self, game_id: str, table: Table) -> tuple[int, str, str] | None:
        """(seat, move, order id) of the first standing order that fires now (core.orders.order_to_fire
        says which, from the orders stored and the log); the orders that can never fire again are
        dropped on the way, each with a note for its seat."""
        from events.orders import Orders

        if table.outcome is not None:
            return None
        seats = [seat for seat in table.to_act if seat not in table.bots]
        store = Orders(self.store)
        held = {seat: orders for seat, orders in store.read_seats(game_id, seats).items() if orders}

        def played_since(seat: int, seq: int) -> list[tuple[int, int, str]]:
            # other seats' moves since then, as everyone sees them (the game's `public` form, in review)
            return [(env.seq, env.actor, env.command) for env in self.store.read(game_id, seq) if env.command is not None and env.actor is not None and env.actor != seat]

        fired, dropped = order_to_fire(table, held, played_since)
        for seat, gone in dropped.items():
            store.drop(game_id, seat, gone, table.seq)
        return None if fired is None else (fired.seat, fired.move, fired.order.id)

    def _append(self, game_id, table, last_hash, new_events, state, seat, move, command_id, check=None, origin=None, consume=None,
                forced_moves: str | None = "ask") -> tuple[Submitted, Appended, bytes]:
        """One command's append, as `_write` describes it, without the orders that follow it; with
        `forced_moves` other than "ask", the forced moves it leads to (forced_run) come in the same
        append, each under its own command id. So no reader ever sees a person's turn that is
        about to be played for them: between a move and its forced follow-up there is no state
        to see. Returns what the first command appended (a repeat of its id answers that alone),
        the store's answer, and the last hash now."""
        commands = [Command(seat, move, command_id, origin, new_events, state)]
        if forced_moves != "ask":
            commands += forced_run(table, new_events, state)
        sealed, raws, follows = [], [], []
        seq, prev = table.seq, last_hash
        time_ms = self.clock()  # one append, one time: the row's `since` is every event's
        for command in commands:
            if command is not commands[0]:
                follows.append((command.command_id, seq, len(command.events)))
            envelopes, wire = self._seal(game_id, seq, prev, command.events, command.seat, command.move, command.command_id, command.origin, time_ms)
            sealed += envelopes
            raws += wire
            seq, prev = seq + len(envelopes), envelopes[-1].hash
        events = [event for command in commands for event in command.events]
        waiting = bool(table.waiting_for_salts) and not any(isinstance(event, core.SaltsClosed) for event in events)
        status = status_of(table.game, commands[-1].state, bots_after(table.bots, events), sealed[0].time_ms, waiting)
        # The index is in other slots than the game: entries are added before the append and
        # removed after it, so a crash in between leaves one too many, which readers drop.
        ends = status.outcome is not None
        seats_bots = bool(status.bots) and any(isinstance(event, core.BotsSeated) for event in events)
        if check is not None and (ends or seats_bots):
            check.run()  # first then: a refused seat token writes nothing, not even an index entry
        if ends:
            index.ending(self.store.redis, game_id, status.since_ms)
        elif seats_bots:
            index.listed(self.store.redis, game_id, status.since_ms, bots=True)
        # The script itself recognises a known command id (HSETNX), also on a conflict.
        try:
            appended = self.store.append(game_id, table.seq, raws, command_id, status, check, consume, follows)
        except Conflict as lost:
            if lost.actual < table.seq or lost.forked:
                # A log shorter than this table: it lost events this table has (a Redis restarted
                # from an append-only file that had not been written yet, docs/durability.md), or
                # an import replaced it; or one as long whose last event is another (a failover's
                # replica lacked this table's last event and got another since). Kept, the table
                # would refuse every move as stale, for good.
                self._tables.pop(game_id, None)
            raise
        if appended.duplicate:
            return self._read_done(game_id, appended.first, appended.count), appended, last_hash
        if appended.forced_moves:
            self._settings[game_id] = appended.forced_moves
        if status.outcome is not None:
            index.ended(self.store.redis, [game_id])
        for command in commands:
            table.advance(command.events, command.state)
        # The advanced table and its new hash are kept together before anything else can fail: a
        # snapshot write that raised in between left the cached table ahead of its hash, and the
        # next move was sealed on the old one (a broken chain, found by bench/chaos.py's Redis kills).
        self._remember(game_id, table, sealed[-1].hash)
        if table.seq // snapshots.EVERY > appended.first // snapshots.EVERY:
            self.store.save_snapshot(game_id, snapshots.encode(table, sealed[-1].hash))
        return Submitted(appended.first, sealed[: len(new_events)], duplicate=False), appended, sealed[-1].hash

    def reindex(self) -> tuple[int, list[tuple[str, str]]]:
        """Rebuild every game's row and the index from the logs (the logs are the truth); returns
        how many logs there are and (game id, what is wrong) for each that does not fold. Safe
        while games go on."""
        started_ms = self.clock()
        logged = self.store.logged_games()
        problems = []
        for game_id in logged:
            try:
                self.reindex_game(game_id)
            except (UnreadableGame, UnknownGame) as error:
                problems.append((game_id, str(error)))
        # Entries naming no log, older than this run (a create in flight lists its game first).
        index.forget_unlogged(self.store.redis, set(logged), before_ms=started_ms - REINDEX_GRACE_MS)
        return len(logged), problems

    def reindex_game(self, game_id: str) -> None:
        """One game's row and index entries, from its log."""
        table = self._load(game_id)[0]
        first, last = self.store.read(game_id, 0, 0)[0], self.store.read(game_id, table.seq - 1)[-1]
        status = status_of(table.game, table.state, table.bots, last.time_ms, bool(table.waiting_for_salts))
        # A row for fewer events than the log now holds is not written: the move that came in
        # meanwhile wrote a newer one itself.
        self.store.set_row(game_id, table.game.slug, table.players, first.time_ms, table.seq, status)
        summarized = self.store.redis.exists(keys.summary(game_id))
        end_ms = None if status.outcome is None else last.time_ms
        index.place(self.store.redis, game_id, first.time_ms, end_ms, bool(status.bots), bool(summarized), clocked=table.clock is not None or bool(table.waiting_for_salts))

    def _done_or_raise(self, game_id: str, command_id: str | None, error: Exception) -> Submitted:
        done = None if command_id is None else self.store.command(game_id, command_id)
        if done is None:
            raise error
        return self._read_done(game_id, done.first, done.count)

    def _read_done(self, game_id: str, first: int, count: int) -> Submitted:
        return Submitted(first, self.store.read(game_id, first, first + count - 1), duplicate=True)

    @staticmethod
    def _same_command(table: Table, seat: int, move: str, command_id: str | None, done: Submitted) -> Submitted:
        """The answer to a repeated command id: what it appended, if it was this seat's move."""
        first = done.events[0]
        if first.actor != seat or not same_move(table.game, first.command, move):
            raise CommandIdReused(str(command_id))
        return done

    @staticmethod
    def _same_seating(seated: core.BotsSeated, command_id: str | None, done: Submitted) -> Submitted:
        """The answer to a repeated seat_bots command id: what it appended, if it was this mapping."""
        first = done.events[0].event
        if not isinstance(first, core.BotsSeated) or tuple(map(tuple, first.bots)) != seated.bots:
            raise CommandIdReused(str(command_id), "handover of seats")
        return done

    def _seal(self, game_id, seq, prev, events, seat, move, command_id, origin=None, time_ms=None) -> tuple[list[Envelope], list[bytes]]:
        """The events' envelopes, chained onto `prev`, and their wire forms (what the store appends),
        stamped `time_ms` (the clock's now if None)."""
        sealed, raws = [], []
        time_ms = self.clock() if time_ms is None else time_ms
        # The reveal and the deal are the system's doing, even inside a seat's command.
        actor = seat if isinstance(seat, int) else None
        for offset, event in enumerate(events):
            first = offset == 0
            env, raw = envelope.sealed(
                game_id,
                seq + offset,
                event,
                prev,
                actor=None if isinstance(event, core.SeedRevealed) else actor,
                command=move if first else None,
                command_id=command_id if first else None,
                time_ms=time_ms,
                origin=origin if first else None,
            )
            sealed.append(env)
            raws.append(raw)
            prev = env.hash
        return sealed, raws

    def _load(self, game_id: str, known_at: int | None = None) -> tuple[Table, bytes]:
        """The table and its last hash, brought up to date from the log. With `known_at`, a table
        held at exactly that seq is used unread: the append that follows carries that seq as its
        expectation, so the store refuses it if the log moved on (one round trip saved a move)."""
        try:
            return self._fold(game_id, known_at)
        except (DecodeError, core.BrokenLog, core.SetupError) as error:
            self._tables.pop(game_id, None)
            raise UnreadableGame(game_id, str(error)) from None

    def _fold(self, game_id: str, known_at: int | None) -> tuple[Table, bytes]:
        cached = self._tables.get(game_id)
        if cached is not None and cached[0].seq == known_at:
            return cached
        if cached is not None:
            table, last_hash = cached
            # Read from the table's own last event, to see that the log still has it: a log that
            # is shorter than the table, or has another event there, is not the one this table was
            # folded from (Redis lost acknowledged writes, an import replaced the log). Reading from
            # the event after it could not tell a shorter log from one with nothing new.
            newer = self.store.read(game_id, table.seq - 1)
            if newer and newer[0].seq == table.seq - 1 and newer[0].hash == last_hash:
                newer = newer[1:]
                if newer:
                    table.extend(env.event for env in newer)
                    last_hash = newer[-1].hash
                return self._folded(game_id, table, last_hash, folded=len(newer))
            self._tables.pop(game_id, None)
        return self._cold(game_id)

    def _cold(self, game_id: str) -> tuple[Table, bytes]:
        """A cold read: from the game's snapshot if the log still has its hash at its seq (then
        only the events after it are read), else the whole log."""
        first_raw, snapshot_raw, seed = self.store.opening(game_id)
        self._settings.pop(game_id, None)  # another log than the one held (or none): its row is read again
        if first_raw is None:
            raise UnknownGame(game_id)
        first = envelope.decode(first_raw)
        started = first.event
        if not isinstance(started, core.GameStarted):
            raise DecodeError(f"its log starts with {first.kind}, not a game's start")
        game = core.get_game(started.game)
        snapshot = snapshots.decode(game, started, snapshot_raw)
        if snapshot is not None:
            newer = self.store.read(game_id, snapshot.seq - 1)
            if newer and newer[0].seq == snapshot.seq - 1 and newer[0].hash == snapshot.hash:
                history = snapshots.History(started, snapshot.seq, [], partial(self._events_before, game_id, snapshot))
                table = Table(game, history, snapshot.state, seed, snapshot.bots, snapshot.clock, snapshot.salting)
                table.extend(env.event for env in newer[1:])
                check_holds_together(table)
                return self._folded(game_id, table, newer[-1].hash, folded=len(newer) - 1)
        envelopes = [first, *self.store.read(game_id, 1)]
        table = core.replay_table(started.game, [e.event for e in envelopes], seed=seed)
        check_holds_together(table)
        return self._folded(game_id, table, envelopes[-1].hash, folded=table.seq)

    def _folded(self, game_id: str, table: Table, last_hash: bytes, folded: int) -> tuple[Table, bytes]:
        self._remember(game_id, table, last_hash)  # first, as in _write: table and hash together
        if folded >= snapshots.EVERY:  # a long fold: the next cold read starts here
            self.store.save_snapshot(game_id, snapshots.encode(table, last_hash))
        return table, last_hash

    def _events_before(self, game_id: str, snapshot: snapshots.Snapshot) -> list[Any]:
        """Events 1 .. seq - 1 of a table built from `snapshot`, for whoever asks for them."""
        envelopes = self.store.read(game_id, 1, snapshot.seq - 1)
        if snapshot.seq > 1 and (not envelopes or envelopes[-1].hash != snapshot.hash):
            raise DecodeError("its log changed under a table read from a snapshot")
        return [env.event for env in envelopes]

    def _remember(self, game_id: str, table: Table, last_hash: bytes) -> None:
        # Taken out and put back (at the end: the most recently used) rather than moved there,
        # so another thread's eviction in between cannot make the move fail.
        self._tables.pop(game_id, None)
        self._tables[game_id] = (table, last_hash)
        while len(self._tables) > self._cache_size:
            try:
                self._tables.popitem(last=False)
            except KeyError:  # another thread emptied it first
                break

    def _dispatch(self, game_id: str, table: Table, reach: tuple[int, ...] | None = None) -> None:
        if self.dispatch is None:
            return
        if reach is None:
            self.dispatch(game_id, table)
        else:  # the seats with a channel, as the append's own script read them from the row
            self.dispatch(game_id, table, reach=reach)


def check_holds_together(table: Table) -> None:
    """BrokenLog if a folded state cannot say whose turn it is, who won or what a spectator sees:
    a forged log can fold without an error into a state the rules then trip over."""
    try:
        table.to_act, table.outcome, table.view(None)
    except Exception as error:  # whatever an inconsistent state makes the rules trip over
        raise core.BrokenLog(table.seq - 1, "the state it folds to", error) from None
