"""The Redis store: one stream per game, appended atomically with an expected-seq check and
idempotent command ids, in one round trip. It stores and reads bytes; it never decides a move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import json
from typing import TYPE_CHECKING, Any

import attrs
import redis

from events import index, keys, server
from events.calls import Calls
from events.seats import CHECK_LUA, TokenCheck

if TYPE_CHECKING:
    from events.clock import Clock
    from events.envelope import Envelope

# KEYS: log, commands, unverified, meta. ARGV: expected seq, command id ('' for none), n, then n
# row fields and values (the state the events lead to, written beside them: never a row ahead of or
# behind its log), then k, then k pairs (command id, "seq:count") of the commands that follow the
# first in the same append (the forced moves it led to, events.commands), then the envelopes' bytes.
# A move that carries a seat token's check
# (events.seats.TokenCheck) adds its two keys and its four arguments at the ends: it runs first,
# and a refusal ({4} or {5, count}, events.seats.CHECK_LUA) appends nothing.
# A standing order's firing (events/orders.py) adds the seat's orders key as KEYS[5] and the order's
# id as the last argument: the order is taken off in the same script, and an order no longer there
# (fired by another process, or cleared by its seat) appends nothing: {6}.
# Returns {0, next seq, reach, forced_moves, orders} appended | {1, first, count} a known command
# id (the first command's own events) | {2, current seq} conflict | {3} a game imported
# unverified, never played | {6} order gone | {7, current seq} the right seq on another chain
# (the first envelope's prev is not the hash of the log's last event): a conflict too.
# The success path costs five calls: XLEN, XRANGE (the last event, for its hash), HSETNX (which is
# also the duplicate check), XADD, HSET.
# An append whose first envelope is already at the expected seq, byte for byte, is this very
# append sent again (redis-py resends a command whose reply a dropped connection lost): answered
# as a known command, never as a conflict the caller would retry on the state it made itself.
_APPEND = """
local checked = 0
local consumed = 0
if #KEYS == 6 then
  -- the seat token's check
  checked = 4
elseif #KEYS == 5 then
  consumed = 1
end
if redis.call('EXISTS', KEYS[3]) == 1 then return {3} end
local first = redis.call('XLEN', KEYS[1])
local command_id = ARGV[2]
local fields = tonumber(ARGV[3])
local follows = tonumber(ARGV[4 + fields])
local at = 4 + fields + 2 * follows  -- the envelopes are ARGV[at + 1] on
local count = #ARGV - at - checked - consumed
local own = count  -- the first command's events: up to the first that follows it
if follows > 0 then own = tonumber(string.match(ARGV[6 + fields], '^(%d+)')) - tonumber(ARGV[1]) end
if first ~= tonumber(ARGV[1]) then
  local done = command_id ~= '' and redis.call('HGET', KEYS[2], command_id)
  if done then
    local seq, n = string.match(done, '(%d+):(%d+)')
    return {1, tonumber(seq), tonumber(n)}
  end
  local there = redis.call('XRANGE', KEYS[1], ARGV[1] .. '-1', ARGV[1] .. '-1')[1]
  if there and there[2][2] == ARGV[at + 1] then return {1, tonumber(ARGV[1]), own} end
  return {2, first}
end
if consumed == 1 and redis.call('HEXISTS', KEYS[5], ARGV[#ARGV]) == 0 then return {6} end
if first > 0 then
  -- the first envelope's prev (its wire form's second-last 32 bytes) must be the hash of the log's
  -- last event (the last 32 bytes of its wire form, events/envelope.py): a writer whose table holds
  -- an event this log lacks (one a failed-over master had and its promoted replica never got) has
  -- the right seq on the wrong chain, and is a conflict, never a fork sealed onto a lost event
  local last = redis.call('XRANGE', KEYS[1], (first - 1) .. '-1', (first - 1) .. '-1')[1]
  if last and string.sub(last[2][2], -32) ~= string.sub(ARGV[at + 1], -66, -35) then return {7, first} end
end
if command_id ~= '' then
  if redis.call('HSETNX', KEYS[2], command_id, first .. ':' .. own) == 0 then
    local seq, n = string.match(redis.call('HGET', KEYS[2], command_id), '(%d+):(%d+)')
    return {1, tonumber(seq), tonumber(n)}
  end
end
for j = 1, follows do
  redis.call('HSET', KEYS[2], ARGV[3 + fields + 2 * j], ARGV[4 + fields + 2 * j])
end
if consumed == 1 then redis.call('HDEL', KEYS[5], ARGV[#ARGV]) end
for i = 1, count do
  redis.call('XADD', KEYS[1], (first + i - 1) .. '-1', 'e', ARGV[i + at])
end
if fields > 0 then
  redis.call('HSET', KEYS[4], 'seq', first + count, unpack(ARGV, 4, 3 + fields))
end
return {0, first + count, redis.call('HGET', KEYS[4], 'reach'), redis.call('HGET', KEYS[4], 'forced_moves'), redis.call('HGET', KEYS[4], 'orders')}
""".replace("  -- the seat token's check\n", CHECK_LUA)

# KEYS: log, seed, meta. ARGV: seed, n, then n row fields and values, then the opening envelopes.
# A log that starts with these very bytes and seed is this create sent again after a lost reply: done.
_CREATE = """
local fields = tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  local there = redis.call('XRANGE', KEYS[1], '0-1', '0-1')[1]
  if there and there[2][2] == ARGV[3 + fields] and redis.call('GET', KEYS[2]) == ARGV[1] then return 1 end
  return 0
end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], 'seq', #ARGV - 2 - fields, unpack(ARGV, 3, 2 + fields))
for i = 3 + fields, #ARGV do
  redis.call('XADD', KEYS[1], (i - 3 - fields) .. '-1', 'e', ARGV[i])
end
return 1
"""

# KEYS: log, meta. ARGV: seq, then row fields and values: written only if the log is still `seq`
# long (pbm reindex folds while games go on; a row it computed must not overwrite a newer one).
_SET_ROW = """
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], 'seq', ARGV[1], unpack(ARGV, 2))
return 1
"""


class Conflict(Exception):
    """The log moved on since the writer read it: nothing was appended."""

    def __init__(self, game_id: str, expected: int, actual: int, forked: bool = False) -> None:
        if forked:  # the writer's last event is not the log's: it read a log that was lost since
            super().__init__(f"game {game_id}'s event at seq {actual - 1} is not the one this writer read: the log changed")
        else:
            super().__init__(f"game {game_id} is at seq {actual}, not {expected}: someone moved first")
        self.expected = expected
        self.actual = actual
        self.forked = forked


class NotPlayable(Exception):
    """A game kept for forensics only (imported unverified): nothing is ever appended to it."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id} was imported unverified, for forensics: it is never played ({reason})")


@attrs.frozen
class Appended:
    first: int
    count: int
    duplicate: bool  # True: the command id was seen before; these are the events it appended then
    # The seats with a channel, as the row says (events.seats keeps it); None: the row does not say
    # (a game from before rows kept it), and whoever needs it reads the seats' contacts.
    reach: tuple[int, ...] | None = None
    # The row's forced_moves setting ("auto" or "ask"), answered by the append for the command
    # path's follow-ups; None: the row does not say (a game from before the setting: "auto").
    forced_moves: str | None = None
    # Whether a seat of the game has ever left standing orders (the row's `orders`, set by
    # events/orders.py): only then does the command path read a seat's orders after an append.
    orders: bool = False


class OrderGone(Exception):
    """A standing order's firing found the order no longer there (fired by another process, or
    cleared by its seat): nothing was appended."""


@attrs.frozen
class Status:
    """Where a game stands after an append: the part of its row that changes with every move."""

    to_act: tuple[int, ...]
    outcome: dict[str, list[int]] | None  # {"scores": [...], "winners": [...]} once over
    since_ms: int  # when the last append happened: since then the game waits for `to_act`
    bots: tuple[int, ...] = ()  # the seats a bot plays
    waiting: str = ""  # "salts" while the opening deal waits for the players' salts (to_act is empty)

    @property
    def waiting_on_bot(self) -> bool:
        return not set(self.to_act).isdisjoint(self.bots)

    def fields(self) -> list[str | int]:
        outcome = "" if self.outcome is None else json.dumps(self.outcome, separators=(",", ":"))
        return ["to_act", seats_text(self.to_act), "outcome", outcome, "since", self.since_ms, "bots", seats_text(self.bots), "waiting", self.waiting]


@attrs.frozen
class GameInfo:
    """A game's row. `status` is None when the row does not know it (a game logged before rows
    were kept, until `pbm reindex`): then only folding the log tells, and `length` too."""

    game_id: str
    slug: str
    players: int
    created_ms: int
    length: int | None  # None: a row from before rows kept it
    status: Status | None = None
    unverified: str | None = None  # why verification failed, for a game imported unverified

    @property
    def finished(self) -> bool:
        return self.status is not None and self.status.outcome is not None

    @classmethod
    def from_row(cls, game_id: str, row: list[bytes | None]) -> GameInfo | None:
        """From the values of ROW_FIELDS; None if the game has no row."""
        slug, players, created, seq, to_act, outcome, since, bots, unverified, waiting = row
        if slug is None:
            return None
        status = None
        if to_act is not None:
            status = Status(seats(to_act), json.loads(outcome) if outcome else None, int(since), seats(bots), (waiting or b"").decode())
        length = None if seq is None else int(seq)
        reason = None if unverified is None else unverified.decode()
        return cls(game_id, slug.decode(), int(players), int(created), length, status, reason)


# `unverified` is a copy, for the list, of the mark keys.unverified holds for the append script.
ROW_FIELDS = ("slug", "players", "created", "seq", "to_act", "outcome", "since", "bots", "unverified", "waiting")


def seats_text(seats: tuple[int, ...]) -> str:
    return ",".join(str(seat) for seat in seats)


def seats(text: bytes) -> tuple[int, ...]:
    return tuple(map(int, text.split(b","))) if text else ()


def _envelope_field(fields: list[bytes]) -> bytes:
    """The `e` field of a stream entry's raw [field, value, ...] (the only one pbm writes)."""
    if len(fields) == 2 and fields[0] == b"e":
        return fields[1]
    return dict(zip(fields[::2], fields[1::2]))[b"e"]  # KeyError, as redis-py's dict gives, if none


class Store:
    def __init__(self, client: redis.Redis, replication: tuple[int, int] | None | bool = True) -> None:
        """`replication`: (replicas, timeout ms) each append waits for (see `_replicated`); None
        for no wait; True (the default) for what PBM_MIN_REPLICAS asks (events.server.replication)."""
        self.redis = client
        self._calls = Calls(client)
        self.replication = server.replication() if replication is True else replication
        if self.replication and not (self._calls.direct or self._calls.cluster):
            # WAIT must follow the append on its connection: a client that lends none cannot.
            raise server.RedisUnavailable(f"{server.MIN_REPLICAS_ENV} needs a client with a pool of connections, not a single connection's or one with client-side caching")
        self._append = client.register_script(_APPEND)
        self._create = client.register_script(_CREATE)
        self._set_row = client.register_script(_SET_ROW)

    def append(
        self,
        game_id: str,
        expected_seq: int,
        envelopes: Sequence[bytes],
        command_id: str | None = None,
        status: Status | None = None,
        check: TokenCheck | None = None,
        consume: tuple[int, str] | None = None,
        follows: Sequence[tuple[str, int, int]] = (),
    ) -> Appended:
        """Append all or nothing at `expected_seq`, with the game's new `status` in its row; a known
        command id appends nothing again. `follows`: (command id, seq, count) of the commands whose
        events come after the first command's in `envelopes` (the forced moves it led to), each
        recorded under its own id; `command_id` and a repeat of it name the first command's alone. With a seat token's `check`, the check runs first, in the
        same script (NotASeat or OverAllowance, and nothing appended, if it refuses). With
        `consume` (seat, order id), a standing order that fires: taken off the seat's orders in the
        same script, and OrderGone (nothing appended) if it is no longer there."""
        if not envelopes:
            raise ValueError("nothing to append")
        if check is not None and consume is not None:
            raise ValueError("an order's firing carries no seat token")
        fields = [] if status is None else status.fields()
        check = None if check is None or check.done else check  # a check runs once
        extra_keys = [keys.orders(game_id, consume[0])] if consume else list(check.keys if check else ())
        extra_args = [consume[1]] if consume else list(check.args if check else ())
        followed = [part for follow_id, seq, count in follows for part in (follow_id, f"{seq}:{count}")]
        reply = self._replicated(
            game_id,
            self._append,
            [keys.log(game_id), keys.commands(game_id), keys.unverified(game_id), keys.meta(game_id), *extra_keys],
            [expected_seq, command_id or "", len(fields), *fields, len(follows), *followed, *envelopes, *extra_args],
            lambda reply: {0: "wrote", 1: "known"}.get(reply[0]),
            check,
        )
        if check is not None:
            check.settle(reply)
        if reply[0] == 3:
            raise NotPlayable(game_id, self.unverified(game_id) or "no reason kept")
        if reply[0] == 2:
            raise Conflict(game_id, expected_seq, reply[1])
        if reply[0] == 7:
            raise Conflict(game_id, expected_seq, reply[1], forked=True)
        if reply[0] == 1:
            return Appended(reply[1], reply[2], duplicate=True)
        if reply[0] == 6:
            raise OrderGone(f"order {consume[1] if consume else ''} of game {game_id} is gone")
        # A row without `reach` answers nil (false in Lua, which keeps the rest of the list).
        reach = seats(reply[2]) if len(reply) > 2 and isinstance(reply[2], bytes) else None
        forced = reply[3].decode() if len(reply) > 3 and isinstance(reply[3], bytes) else None
        orders = len(reply) > 4 and isinstance(reply[4], bytes)
        return Appended(expected_seq, len(envelopes), duplicate=False, reach=reach, forced_moves=forced, orders=orders)

    def create(
        self,
        game_id: str,
        slug: str,
        players: int,
        created_ms: int,
        seed: int,
        envelopes: Sequence[bytes],
        status: Status | None = None,
        clocked: bool = False,
        forced_moves: str = "auto",
    ) -> None:
        """Start a game's log with its opening events, its secret seed and its row; Conflict if the
        id is taken. `clocked`: the game has a deadline (the index lists it for recovery);
        `forced_moves`: the shell's setting for a person's only legal move (events.commands)."""
        # A new game's seats have no channel yet: `reach` starts empty (the seat store adds to it).
        fields = ["slug", slug, "players", players, "created", created_ms, "reach", "", "forced_moves", forced_moves]
        fields += [] if status is None else status.fields()
        try:
            index.listed(self.redis, game_id, created_ms, bots=status is not None and bool(status.bots), clocked=clocked)
            created = self._replicated(
                game_id, self._create, [keys.log(game_id), keys.seed(game_id), keys.meta(game_id)], [seed, len(fields), *fields, *envelopes],
                # A create sent again is answered 1 too, having written nothing: taken as known.
                lambda reply: "known" if reply else None,
            )
        except server.REDIS_ERRORS:
            self._unlist_if_absent(game_id)
            raise
        if not created:
            raise Conflict(game_id, 0, self.length(game_id))

    def forced_moves(self, game_id: str) -> str | None:
        """The game's forced_moves setting as its row has it (None: not set, which is "auto")."""
        raw = self.redis.hget(keys.meta(game_id), "forced_moves")
        return None if raw is None else raw.decode()

    def orders_held(self, game_id: str) -> bool:
        """Whether a seat of the game has ever left standing orders (the row's `orders`)."""
        return bool(self.redis.hexists(keys.meta(game_id), "orders"))

    def set_row(self, game_id: str, slug: str, players: int, created_ms: int, length: int, status: Status) -> bool:
        """Write a row folded from `length` events; False (nothing written) if the log moved on."""
        fields = ["slug", slug, "players", players, "created", created_ms, *status.fields()]
        return bool(self._calls.script(self._set_row, [keys.log(game_id), keys.meta(game_id)], [length, *fields]))

    def _unlist_if_absent(self, game_id: str) -> None:
        """After a failed create: take its id off the index (readers skip it anyway) if no log
        came of it. Best effort: Redis may be the thing that failed."""
        try:
            if not self.redis.exists(keys.log(game_id)):
                index.forget(self.redis, [game_id])
        except server.REDIS_ERRORS:
            pass

    def _replicated(self, game_id: str, script: Any, script_keys: list[Any], args: list[Any], kind: Any, check: TokenCheck | None = None) -> Any:
        """The script's reply, once enough replicas have what it wrote, when `replication` asks:
        NotReplicated if they did not confirm it in time. `kind(reply)` says what the script did:
        "wrote", "known" (it found its own write done before: a command id answered as done,
        perhaps by the very append that timed out waiting) or None (refused: nothing to wait for).

        WAIT waits for the writes its own connection sent, so it follows the script on one
        connection in one round trip. Redis 7 counts only a connection's own writes, so a "known"
        answer is followed by a write that changes nothing, the game's row's `acked` mark, and a
        WAIT for it: replicas take writes in order, so a replica that has the mark has the
        command's events too.

        A token `check` with `reads` gets their replies (`read`) from the same write, after the
        script's (and WAIT's), where the client sends commands after a script."""
        reads = check.reads if check is not None and (self._calls.direct or self._calls.cluster) else ()
        if self.replication is None:
            if not reads:
                return self._calls.script(script, script_keys, args)
            reply, *check.read = self._calls.script_then(script, script_keys, args, *reads)
            return reply
        replicas, timeout_ms = self.replication
        reply, confirmed, *read = self._calls.script_then(script, script_keys, args, ("WAIT", replicas, timeout_ms), *reads)
        if reads:
            check.read = read
        done = kind(reply)
        if done == "known":
            self._wait_for_replicas(game_id)
        elif done == "wrote" and confirmed < replicas:
            raise server.NotReplicated(confirmed, replicas, timeout_ms)
        return reply

    def _wait_for_replicas(self, game_id: str) -> None:
        """Returns once enough replicas have everything written before (see `_replicated`)."""
        replicas, timeout_ms = self.replication
        confirmed = self._calls.sequence([("HSET", keys.meta(game_id), "acked", 1), ("WAIT", replicas, timeout_ms)])[1]
        if confirmed < replicas:
            raise server.NotReplicated(confirmed, replicas, timeout_ms)

    def command(self, game_id: str, command_id: str) -> Appended | None:
        """What a command id appended, if it was seen (and, when `replication` asks, once enough
        replicas have it: NotReplicated if not in time)."""
        raw = self.redis.hget(keys.commands(game_id), command_id)
        if raw is None:
            return None
        if self.replication is not None:
            self._wait_for_replicas(game_id)
        first, count = (int(part) for part in raw.decode().split(":"))
        return Appended(first, count, duplicate=True)

    def read_raw(self, game_id: str, start: int = 0, stop: int | None = None) -> list[tuple[int, bytes]]:
        """(seq, envelope bytes) from `start` to `stop` inclusive (None: to the end)."""
        return [(keys.seq_of(entry_id), _envelope_field(fields)) for entry_id, fields in self._entries(game_id, start, stop)]

    def read(self, game_id: str, start: int = 0, stop: int | None = None, count: int | None = None, backward: bool = False) -> list[Envelope]:
        """The envelopes from `start` to `stop` inclusive (None: to the end); `backward`, the first
        `count` going back from `start` (stop None: to the first), newest first."""
        # Imported here: the codec brings cattrs and the rules, which `pbm list` (rows only) never needs.
        from events.codec import unpack
        from events.envelope import from_value

        # The envelope holds its seq: the entry ids are not parsed (a replay reads every event so),
        # and an entry's one field is taken where it is (no call, no pair, an event).
        return [
            from_value(unpack(fields[1] if len(fields) == 2 and fields[0] == b"e" else _envelope_field(fields)))
            for _entry_id, fields in self._entries(game_id, start, stop, count, backward)
        ]

    def since_move(self, game_id: str, seat: int, stop: int) -> list[Envelope]:
        """The envelopes from the first event of `seat`'s latest move up to `stop` inclusive (from
        the start if the seat has not moved): what a seat's report needs, read back from `stop` a
        page at a time, so its cost is the events since that move, not the game's length. A move
        the shell played for the seat (forced, or an order) does not count: the seat has not read
        the story since its own latest one."""
        from events.envelope import is_sent_by

        found: list[Envelope] = []
        count = 16
        while stop >= 0:
            page = self.read(game_id, stop, count=count, backward=True)
            for env in page:
                found.append(env)
                if is_sent_by(env, seat):
                    return found[::-1]
            if len(page) < count:
                break
            stop, count = page[-1].seq - 1, min(4 * count, 4096)
        return found[::-1]

    def _entries(self, game_id: str, start: int, stop: int | None, count: int | None = None, backward: bool = False) -> list[Any]:
        """The log's entries from `start` to `stop` inclusive, as XRANGE answers them raw: [entry id,
        [field, value, ...]] each. `backward`: the first `count` of them going back from `start`
        (XREVRANGE; `stop` None: to the log's first), newest first."""
        first = keys.entry_id(start)
        last = ("-" if backward else "+") if stop is None else keys.entry_id(stop)
        limit = () if count is None else ("COUNT", count)
        if not self._calls.direct:
            read = self.redis.xrevrange if backward else self.redis.xrange
            entries = read(keys.log(game_id), first, last, count=count)
            return [(entry_id, [b"e", fields[b"e"]]) for entry_id, fields in entries]
        # The raw reply, without redis-py's dict per entry.
        return self._calls.command(("XREVRANGE" if backward else "XRANGE", keys.log(game_id), first, last, *limit))

    def unverified(self, game_id: str) -> str | None:
        """Why the game's imported log failed verification, if it was imported unverified."""
        raw = self.redis.get(keys.unverified(game_id))
        return None if raw is None else raw.decode()

    def opening(self, game_id: str) -> tuple[bytes | None, bytes | None, int | None]:
        """What a cold read needs first, in one round trip: the first envelope's bytes, the
        snapshot's bytes (None for none) and the seed."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(keys.log(game_id), keys.entry_id(0), keys.entry_id(0))
        pipe.get(keys.snapshot(game_id))
        pipe.get(keys.seed(game_id))
        first, snapshot, seed = pipe.execute()
        return (first[0][1][b"e"] if first else None), snapshot, (None if seed is None else int(seed))

    def clocks(self, game_ids: Sequence[str], upto: Mapping[str, int] | None = None) -> dict[str, Clock]:
        """The clock at the head of each of these games' logs (with `upto`, game id -> seq: after
        that event, where a reader's table stands), in three round trips whatever their number:
        each game's cached clock (keys.clock), the envelopes after it (from the one whose hash it
        was read to, to check that the log is still the one it was read from), then the caches
        brought up to the head (each kept for events.clock.CACHE_TTL_S). A game whose cache is
        missing, ahead of its `upto` or not of this log is read whole (a fourth round trip, for
        those). A game without a log, or whose log does not decode, is left out (its row's reader
        tells it as unreadable)."""
        from events.clock import CACHE_TTL_S, NO_EVENTS, cache_entry, from_cache_entry
        from events.codec import DecodeError
        from events.envelope import decode

        end = {game_id: "+" if upto is None else keys.entry_id(upto[game_id]) for game_id in game_ids}
        cached = dict(zip(game_ids, map(from_cache_entry, self._each(game_ids, lambda pipe, game_id: pipe.get(keys.clock(game_id))))))
        # A cache of more events than a reader's table has says nothing of that table's clock (and
        # is kept as it is).
        ahead = {game_id for game_id, found in cached.items() if found is not None and upto is not None and found[0] > upto[game_id] + 1}
        cached.update(dict.fromkeys(ahead))
        start = {game_id: 0 if found is None else found[0] - 1 for game_id, found in cached.items()}

        def envelopes_of(entries: list[Any]) -> list[Envelope] | None:
            try:
                return [decode(fields[b"e"]) for _entry_id, fields in entries]
            except DecodeError:
                return None

        logs = {
            game_id: envelopes_of(entries)
            for game_id, entries in zip(game_ids, self._each(game_ids, lambda pipe, game_id: pipe.xrange(keys.log(game_id), keys.entry_id(start[game_id]), end[game_id])))
        }
        # A cache not of this log (replaced by an import, or gone) is left aside: the log is read whole.
        stale = [game_id for game_id, found in cached.items() if found is not None and not (logs[game_id] and logs[game_id][0].hash == found[1])]
        for game_id, entries in zip(stale, self._each(stale, lambda pipe, game_id: pipe.xrange(keys.log(game_id), keys.entry_id(0), end[game_id]))):
            cached[game_id], logs[game_id] = None, envelopes_of(entries)
        clocks, caches = {}, {}
        for game_id, envelopes in logs.items():
            if not envelopes:  # no log, or one that does not decode
                continue
            found = cached[game_id]
            # A cache's first envelope is its own last event, folded into it already.
            clocks[game_id] = NO_EVENTS.advanced(envelopes) if found is None else found[2].advanced(envelopes[1:])
            head = envelopes[-1].seq + 1
            if (found is None or head > found[0]) and game_id not in ahead:
                caches[game_id] = cache_entry(clocks[game_id], head, envelopes[-1].hash)
        self._each(list(caches), lambda pipe, game_id: pipe.set(keys.clock(game_id), caches[game_id], ex=CACHE_TTL_S))
        return clocks

    def _each(self, game_ids: Sequence[str], command: Any) -> list[Any]:
        """One pipelined command per game (`command(pipe, game_id)`), in one round trip."""
        if not game_ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            command(pipe, game_id)
        return pipe.execute()

    def save_snapshot(self, game_id: str, raw: bytes) -> None:
        # The command path writes one every 64 events: straight on a connection, as the append.
        if self._calls.direct:
            self._calls.command(("SET", keys.snapshot(game_id), raw))
        else:
            self.redis.set(keys.snapshot(game_id), raw)

    def length(self, game_id: str) -> int:
        return self.redis.xlen(keys.log(game_id))

    def seed(self, game_id: str) -> int | None:
        raw = self.redis.get(keys.seed(game_id))
        return None if raw is None else int(raw)

    def info(self, game_id: str) -> GameInfo | None:
        found = self.rows([game_id])
        return found[0] if found else None

    def rows(self, game_ids: Sequence[str]) -> list[GameInfo]:
        """The rows of these games (one pipeline), skipping ids with no row. The row's seq is the
        log's length: the script that appends events sets it."""
        if self._calls.direct:
            replies = self._calls.reads([("HMGET", keys.meta(game_id), *ROW_FIELDS) for game_id in game_ids])
        else:
            replies = self._each(game_ids, lambda pipe, game_id: pipe.hmget(keys.meta(game_id), ROW_FIELDS))
        found = (GameInfo.from_row(game_id, row) for game_id, row in zip(game_ids, replies))
        return [info for info in found if info is not None]

    def delete(self, game_id: str) -> GameInfo | None:
        """Remove a game on purpose: every key it owns and its entries in the lists across games.
        Returns what it was (None: no such game). Its queued bot turns find no game and do nothing."""
        info = self.info(game_id)
        if info is None:
            return None
        # Its keys first, then the index: a crash in between leaves entries naming a game with no
        # log, which readers skip and `pbm reindex` forgets (as after a crashed create).
        self.redis.delete(*keys.of_game(game_id, info.players))
        self.redis.zrem(keys.summaries(info.slug), game_id)
        index.forget(self.redis, [game_id])
        return info

    def games(self, state: str | None = None, waiting_for: int | None = None) -> list[GameInfo]:
        """The games from the index, oldest first: all, "running" or "finished" ones, or those
        waiting for seat `waiting_for`. Rows that do not know their status are kept (see GameInfo)."""
        if waiting_for is not None:
            state = "running"
        if state not in index.WHICH:
            raise ValueError(f"a game is running or finished, not {state!r}")
        found = self.rows(index.members(self.redis, index.WHICH[state]))
        if state == "running":
            index.ended(self.redis, [info.game_id for info in found if info.finished])  # a crash's leftovers
            found = [info for info in found if not info.finished]
        elif state == "finished":
            found = [info for info in found if info.finished or info.status is None]
        if waiting_for is not None:
            found = [info for info in found if info.status is None or waiting_for in info.status.to_act]
        return found

    def bot_games(self) -> list[GameInfo]:
        """The running games with a bot seat (recovery looks for a bot to act in each)."""
        found = self.rows(index.members(self.redis, keys.BOT_GAMES))
        index.ended(self.redis, [info.game_id for info in found if info.finished])
        return [info for info in found if not info.finished]

    def clocked_games(self) -> list[GameInfo]:
        """The running games with a clock (recovery makes sure each has its deadline job)."""
        found = self.rows(index.members(self.redis, keys.CLOCKED_GAMES))
        index.ended(self.redis, [info.game_id for info in found if info.finished])
        return [info for info in found if not info.finished]

    def owed_summaries(self) -> list[GameInfo]:
        """The finished games whose summary is not written."""
        found = [info for info in self.rows(index.members(self.redis, keys.UNSUMMARIZED)) if info.finished]
        done = self._each([info.game_id for info in found], lambda pipe, game_id: pipe.exists(keys.summary(game_id)))
        index.summarized(self.redis, [info.game_id for info, there in zip(found, done) if there])
        return [info for info, there in zip(found, done) if not there]

    def logged_games(self) -> list[str]:
        """Every game with a log, found by scanning the keys (pbm reindex: the logs are the truth)."""
        return sorted({keys.game_of_log(key) for key in self.redis.scan_iter(match=keys.LOG_PATTERN, count=1000, _type="STREAM")})
