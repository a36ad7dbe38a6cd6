"""The open seats of a game and its join link: which seats nobody holds yet, and the atomic claim of
one by a visitor with the link. It never logs, never stores the join token (only its SHA-256), never
writes a game's log and never makes a person (pbm/joining.py does, after a claim).

A join token reads `<game id>.join.<secret>`, the secret made as a seat token's is (events.seats.LinkSecrets:
an HMAC under the site's link key of the game and a nonce kept beside the token's hash), so the
operator can be shown the same link again (`pbm invite GAME --open`). Revoking it removes its hash
and nonce: the link stops working, and a new one (another nonce) can be made later.

The claim is one Lua script over the game's keys (they share its hash tag, so it runs on a
Cluster): the link must still be the game's, the seat must still be open; then the seat is taken,
its token's hash and its person are written, and with the last open seat the link goes. Two
visitors racing for one seat: the script runs for one at a time, the second finds it taken.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable

import attrs
import redis

from events import keys
from events.seats import SECRET_LENGTH, LinkSecrets, Seats

_TOKEN = re.compile(rf"([a-z0-9][a-z0-9-]{{0,99}})\.join\.([a-z2-7]{{{SECRET_LENGTH}}})")
OPEN = "open:"

# KEYS: the game's open hash, seat tokens hash, seat -> person hash. ARGV: the join token's
# digest, seat, the seat token's digest, its nonce, the person id. Replies {0, seats left},
# {NO_LINK} for a link that is not (or no longer) the game's, {TAKEN} for a seat not open.
_CLAIM = """
-- (ARGV[2] .. ':nonce' is events.seats.nonce_field.) Digests are compared, as CHECK_LUA does.
local stored = redis.call('HGET', KEYS[1], 'link')
if not stored or stored ~= ARGV[1] then return {-1} end
if redis.call('HDEL', KEYS[1], 'open:' .. ARGV[2]) == 0 then return {-2} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3], ARGV[2] .. ':nonce', ARGV[4])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[5])
local left = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 5) == 'open:' then left = left + 1 end
end
if left == 0 then redis.call('HDEL', KEYS[1], 'link', 'nonce') end
return {0, left}
"""
NO_LINK, TAKEN = -1, -2


class JoinRefused(Exception):
    """A claim that did not happen: the link does not work (any more), or the seat was taken."""

    def __init__(self, message: str, taken: bool = False) -> None:
        super().__init__(message)
        self.taken = taken


@attrs.frozen
class Claimed:
    game_id: str
    seat: int
    token: str  # the seat's token, answered once to the visitor who claimed it
    left: int  # how many seats are still open


def parse(token: object) -> str | None:
    """The game id a well-formed join token names, None otherwise."""
    if not isinstance(token, str):
        return None
    match = _TOKEN.fullmatch(token.strip().lower())
    return None if match is None else match.group(1)


def digest(token: str) -> str:
    return hashlib.sha256(token.strip().lower().encode()).hexdigest()


class Joins(LinkSecrets):
    def __init__(self, client: redis.Redis, key: bytes | None = None) -> None:
        super().__init__(key)
        self.redis = client
        self._claim = client.register_script(_CLAIM)

    def _token(self, game_id: str, nonce: str) -> str:
        return f"{game_id}.join.{self.secret(f'join:{game_id}.{nonce}')}"

    def open(self, game_id: str, seats: Iterable[int], created_ms: int) -> str:
        """Open these seats of a new game and make its join link; returns the join token. The
        index of games with open seats is written first (a superset, as events/index.py's are)."""
        seats = sorted(set(seats))
        self.redis.zadd(keys.OPEN_GAMES, {game_id: created_ms}, nx=True)
        nonce = secrets.token_hex(16)
        token = self._token(game_id, nonce)
        self.redis.hset(keys.open_seats(game_id), mapping={"link": digest(token), "nonce": nonce} | {f"{OPEN}{seat}": 1 for seat in seats})
        return token

    def open_seats(self, game_id: str) -> list[int]:
        return sorted(int(field[len(OPEN):]) for field in map(bytes.decode, self.redis.hkeys(keys.open_seats(game_id))) if field.startswith(OPEN))

    def link(self, game_id: str) -> str | None:
        """The game's working join token, made again from its nonce; None once revoked, or full."""
        stored, nonce = self.redis.hmget(keys.open_seats(game_id), ["link", "nonce"])
        return self.remade_from(stored, nonce, lambda nonce: self._token(game_id, nonce))

    def renew(self, game_id: str) -> str | None:
        """A join link for a game that still has open seats (a fresh one if it was revoked); None
        when none are open."""
        if not self.open_seats(game_id):
            return None
        found = self.link(game_id)
        if found is not None:
            return found
        nonce = secrets.token_hex(16)
        token = self._token(game_id, nonce)
        self.redis.hset(keys.open_seats(game_id), mapping={"link": digest(token), "nonce": nonce})
        return token

    def revoke(self, game_id: str) -> None:
        """The join link stops working (the seats stay open until the operator seats someone)."""
        self.redis.hdel(keys.open_seats(game_id), "link", "nonce")

    def game_of(self, token: str | None) -> str | None:
        """The game of a working join token; None for a malformed, revoked or spent one."""
        game_id = parse(token)
        if game_id is None:
            return None
        stored = self.redis.hget(keys.open_seats(game_id), "link")
        return game_id if self.matches(digest(token), stored) else None

    def claim(self, token: str, seat: int, person_id: str, seats: Seats) -> Claimed:
        """Take `seat` for `person_id` with the join token: JoinRefused if the link does not work
        or the seat is not open (taken: True)."""
        game_id = parse(token)
        if game_id is None:
            raise JoinRefused("this join link does not work (it may have been revoked, or every seat is taken)")
        seat_token, nonce = seats.fresh(game_id, seat)
        reply = self._claim(
            keys=[keys.open_seats(game_id), keys.seat_tokens(game_id), keys.seat_people(game_id)],
            args=[digest(token), seat, hashlib.sha256(seat_token.encode()).hexdigest(), nonce, person_id],
        )
        if reply[0] == NO_LINK:
            raise JoinRefused("this join link does not work (it may have been revoked, or every seat is taken)")
        if reply[0] == TAKEN:
            raise JoinRefused(f"seat {seat} was taken by someone else just now", taken=True)
        left = int(reply[1])
        if left == 0:
            self.redis.zrem(keys.OPEN_GAMES, game_id)
        return Claimed(game_id, seat, seat_token, left)

    def done(self, game_id: str) -> None:
        """A game with no open seat leaves the index (a crash after the last claim leaves it there)."""
        self.redis.zrem(keys.OPEN_GAMES, game_id)


def open_seats_of(client: redis.Redis, game_ids: Iterable[str]) -> dict[str, list[int]]:
    """game id -> its open seats, for the games among `game_ids` that the index says have some,
    in two round trips (the listing's and a person's page's "waiting for players")."""
    game_ids = list(game_ids)
    if not game_ids:
        return {}
    pipe = client.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.zscore(keys.OPEN_GAMES, game_id)
    listed = [game_id for game_id, score in zip(game_ids, pipe.execute()) if score is not None]
    if not listed:
        return {}
    pipe = client.pipeline(transaction=False)
    for game_id in listed:
        pipe.hkeys(keys.open_seats(game_id))
    found = {}
    for game_id, fields in zip(listed, pipe.execute()):
        seats = sorted(int(f.decode()[len(OPEN):]) for f in fields if f.decode().startswith(OPEN))
        if seats:
            found[game_id] = seats
    return found

