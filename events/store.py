"""The Redis store: one stream per game, appended atomically with an expected-seq check and
idempotent command ids, in one round trip. It stores and reads bytes; it never decides a move.
"""

from __future__ import annotations

from collections.abc import Sequence
import attrs
import redis

from events import keys
from events.envelope import Envelope, decode

# KEYS: log, commands, unverified. ARGV: expected seq, command id ('' for none), then the envelopes.
# Returns {0, next seq} appended | {1, first, count} a known command id | {2, current seq} conflict
# | {3} a game imported unverified, never played.
# The success path costs three calls: XLEN, HSETNX (which is also the duplicate check), XADD.
# An append whose first envelope is already at the expected seq, byte for byte, is this very
# append sent again (redis-py resends a command whose reply a dropped connection lost): answered
# as a known command, never as a conflict the caller would retry on the state it made itself.
_APPEND = """
if redis.call('EXISTS', KEYS[3]) == 1 then return {3} end
local first = redis.call('XLEN', KEYS[1])
local command_id = ARGV[2]
local count = #ARGV - 2
if first ~= tonumber(ARGV[1]) then
  local done = command_id ~= '' and redis.call('HGET', KEYS[2], command_id)
  if done then
    local seq, n = string.match(done, '(%d+):(%d+)')
    return {1, tonumber(seq), tonumber(n)}
  end
  local there = redis.call('XRANGE', KEYS[1], ARGV[1] .. '-1', ARGV[1] .. '-1')[1]
  if there and there[2][2] == ARGV[3] then return {1, tonumber(ARGV[1]), count} end
  return {2, first}
end
if command_id ~= '' then
  if redis.call('HSETNX', KEYS[2], command_id, first .. ':' .. count) == 0 then
    local seq, n = string.match(redis.call('HGET', KEYS[2], command_id), '(%d+):(%d+)')
    return {1, tonumber(seq), tonumber(n)}
  end
end
for i = 1, count do
  redis.call('XADD', KEYS[1], (first + i - 1) .. '-1', 'e', ARGV[i + 2])
end
return {0, first + count}
"""

# KEYS: log, seed, meta. ARGV: seed, slug, players, created, then the opening envelopes' bytes.
# A log that starts with these very bytes and seed is this create sent again after a lost reply: done.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  local there = redis.call('XRANGE', KEYS[1], '0-1', '0-1')[1]
  if there and there[2][2] == ARGV[5] and redis.call('GET', KEYS[2]) == ARGV[1] then return 1 end
  return 0
end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], 'slug', ARGV[2], 'players', ARGV[3], 'created', ARGV[4])
for i = 5, #ARGV do
  redis.call('XADD', KEYS[1], (i - 5) .. '-1', 'e', ARGV[i])
end
return 1
"""


class Conflict(Exception):
    """The log moved on since the writer read it: nothing was appended."""

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id} is at seq {actual}, not {expected}: someone moved first")
        self.expected = expected
        self.actual = actual


class NotPlayable(Exception):
    """A game kept for forensics only (imported unverified): nothing is ever appended to it."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id} was imported unverified, for forensics: it is never played ({reason})")


@attrs.frozen
class Appended:
    first: int
    count: int
    duplicate: bool  # True: the command id was seen before; these are the events it appended then


@attrs.frozen
class GameInfo:
    game_id: str
    slug: str
    players: int
    created_ms: int
    length: int
    unverified: str | None = None  # why verification failed, for a game imported unverified


class Store:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._append = client.register_script(_APPEND)
        self._create = client.register_script(_CREATE)

    def append(
        self,
        game_id: str,
        expected_seq: int,
        envelopes: Sequence[bytes],
        command_id: str | None = None,
    ) -> Appended:
        """Append all or nothing at `expected_seq`; a known command id appends nothing again."""
        if not envelopes:
            raise ValueError("nothing to append")
        reply = self._append(
            keys=[keys.log(game_id), keys.commands(game_id), keys.unverified(game_id)],
            args=[expected_seq, command_id or "", *envelopes],
        )
        if reply[0] == 3:
            raise NotPlayable(game_id, self.unverified(game_id) or "no reason kept")
        if reply[0] == 2:
            raise Conflict(game_id, expected_seq, reply[1])
        if reply[0] == 1:
            return Appended(reply[1], reply[2], duplicate=True)
        return Appended(expected_seq, len(envelopes), duplicate=False)

    def create(self, game_id: str, slug: str, players: int, created_ms: int, seed: int, envelopes: Sequence[bytes]) -> None:
        """Start a game's log with its opening events, its secret seed and its listing; Conflict
        if the id is taken."""
        # Indexed first (another hash slot, so not in the script): a crash in between leaves an id
        # the list skips, never an unlisted game.
        self.redis.zadd(keys.GAMES, {game_id: created_ms}, nx=True)
        try:
            created = self._create(
                keys=[keys.log(game_id), keys.seed(game_id), keys.meta(game_id)],
                args=[seed, slug, players, created_ms, *envelopes],
            )
        except redis.RedisError:
            self._unlist_if_absent(game_id)
            raise
        if not created:
            raise Conflict(game_id, 0, self.length(game_id))

    def _unlist_if_absent(self, game_id: str) -> None:
        """After a failed create: take its id off the list (readers skip it anyway) if no log
        came of it. Best effort: Redis may be the thing that failed."""
        try:
            if not self.redis.exists(keys.log(game_id)):
                self.redis.zrem(keys.GAMES, game_id)
        except redis.RedisError:
            pass

    def mark_bots(self, game_id: str) -> None:
        """Note in the listing that bots play in this game (recovery looks there for bot seats
        handed over after the opening)."""
        self.redis.hset(keys.meta(game_id), "bots", 1)

    def command(self, game_id: str, command_id: str) -> Appended | None:
        """What a command id appended, if it was seen."""
        raw = self.redis.hget(keys.commands(game_id), command_id)
        if raw is None:
            return None
        first, count = (int(part) for part in raw.decode().split(":"))
        return Appended(first, count, duplicate=True)

    def read_raw(self, game_id: str, start: int = 0, stop: int | None = None) -> list[tuple[int, bytes]]:
        """(seq, envelope bytes) from `start` to `stop` inclusive (None: to the end)."""
        last = "+" if stop is None else keys.entry_id(stop)
        entries = self.redis.xrange(keys.log(game_id), keys.entry_id(start), last)
        return [(keys.seq_of(entry_id), fields[b"e"]) for entry_id, fields in entries]

    def read(self, game_id: str, start: int = 0, stop: int | None = None) -> list[Envelope]:
        return [decode(raw) for _seq, raw in self.read_raw(game_id, start, stop)]

    def unverified(self, game_id: str) -> str | None:
        """Why the game's imported log failed verification, if it was imported unverified."""
        raw = self.redis.get(keys.unverified(game_id))
        return None if raw is None else raw.decode()

    def length(self, game_id: str) -> int:
        return self.redis.xlen(keys.log(game_id))

    def seed(self, game_id: str) -> int | None:
        raw = self.redis.get(keys.seed(game_id))
        return None if raw is None else int(raw)

    def info(self, game_id: str) -> GameInfo | None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys.meta(game_id))
        pipe.xlen(keys.log(game_id))
        pipe.get(keys.unverified(game_id))
        meta, length, unverified = pipe.execute()
        if not meta or not length:
            return None
        return GameInfo(
            game_id,
            meta[b"slug"].decode(),
            int(meta[b"players"]),
            int(meta[b"created"]),
            length,
            None if unverified is None else unverified.decode(),
        )

    def games(self) -> list[GameInfo]:
        """Every game, oldest first."""
        found = (self.info(game_id.decode()) for game_id in self.redis.zrange(keys.GAMES, 0, -1))
        return [info for info in found if info is not None]
