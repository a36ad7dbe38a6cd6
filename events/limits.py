"""Allowances counted in Redis, so they hold across server replicas: how many requests one key (a
seat's token, a client's address) made in a fixed time window, refused past its allowance; and
slots for what stays open (a seat's event streams), refused past a cap. It never decides whose key
it is counting or how a refusal is answered.

A window is `int(now) // window_s`; its counter is a key ending in that number, made to expire two
windows later (so every EXPIRE may be repeated, and a replica's clock a little off counts into a
neighbouring window, never into a counter that lives for ever).
"""

from __future__ import annotations

import time
import uuid

import redis

from events.calls import Calls

# One count against an allowance: its key is the last of KEYS, its TTL and the allowance the last
# two of ARGV, so it can end another script (events.seats.CHECK_LUA puts a token's check before it).
COUNT_LUA = """
local count = redis.call('INCR', KEYS[#KEYS])
redis.call('EXPIRE', KEYS[#KEYS], ARGV[#ARGV - 1])
if count > tonumber(ARGV[#ARGV]) then return {5, count} end
"""
OVER_ALLOWANCE = 5  # the code of COUNT_LUA's refusal

# KEYS: the sorted set of open slots (member: a slot's id, score: when its lease ends, in ms).
# ARGV: now (ms), the lease's end (ms), the cap, the new slot's id. Slots whose lease ended (a
# server that died with a stream open) are dropped first, so a lost slot frees itself.
_TAKE_SLOT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1
"""


class OverAllowance(Exception):
    """A key past its allowance of requests in a window."""

    def __init__(self, allowance: int, window_s: int) -> None:
        super().__init__(f"at most {allowance} every {window_s} s")
        self.allowance = allowance
        self.window_s = window_s


def window(window_s: int, now: float | None = None) -> int:
    """The number of the fixed window of `window_s` seconds that `now` falls in."""
    return int(time.time() if now is None else now) // window_s


def counter_ttl(window_s: int) -> int:
    return window_s * 2


class Counter:
    """Counts requests against allowances (COUNT_LUA run alone), one round trip each."""

    def __init__(self, client: redis.Redis) -> None:
        self._calls = Calls(client)
        self._script = client.register_script(COUNT_LUA + "return {0, count}")

    def count(self, key: str, allowance: int, window_s: int) -> int:
        """Counts one request under `key` (which names the window: `window()`), and answers the
        count so far; OverAllowance past `allowance`."""
        reply = self._calls.script(self._script, [key], [counter_ttl(window_s), allowance])
        if reply[0] == OVER_ALLOWANCE:
            raise OverAllowance(allowance, window_s)
        return int(reply[1])


class Slots:
    """At most `cap` things open at once under one key (a seat's event streams): each takes a slot
    with a lease it renews while it stays open and gives back when it closes; a slot not renewed
    in time (its server died) frees itself."""

    def __init__(self, client: redis.Redis, lease_s: int) -> None:
        self.redis = client
        self.lease_s = lease_s
        self._take = client.register_script(_TAKE_SLOT)

    def take(self, key: str, cap: int) -> str | None:
        """A new slot's id, or None when `cap` are open."""
        slot = uuid.uuid4().hex
        now = int(time.time() * 1000)
        return slot if self._take(keys=[key], args=[now, now + self.lease_s * 1000, cap, slot]) == 1 else None

    def renew(self, key: str, slot: str) -> bool:
        """Extends the slot's lease; False if it was lost (it lapsed and was dropped)."""
        until = int(time.time() * 1000) + self.lease_s * 1000
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(key, {slot: until}, xx=True, ch=True)
        pipe.pexpireat(key, until)
        return pipe.execute()[0] == 1

    def give_back(self, key: str, slot: str) -> None:
        self.redis.zrem(key, slot)
