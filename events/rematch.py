"""A finished game's rematch: the new game's id, drawn once, and which seats have accepted. It
never writes a game's log and never makes the game (pbm/rematch.py does, once every seat a person
plays has accepted); it keeps no token and no address.

One Lua script over the finished game's rematch hash (its hash tag is the game's, so it runs on a
Cluster) does a request's whole part: it keeps the first request's new game id (HSETNX, so every
later request, from any seat, repeated or racing, reads the same one), marks the seat as having
accepted, and answers the new id and the seats that have accepted. A second rematch of one finished
game cannot be made: the hash holds one id for good, and deleting the finished game deletes it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

import attrs
import redis

from events import keys

ACCEPTED = "accepted:"

# KEYS: the finished game's rematch hash. ARGV: a new game id (kept if none is), the seat that
# accepts ('' for none: a read). Replies {the new game id or false, seat, seat, ...} (the accepted).
_ACCEPT = """
if ARGV[1] ~= '' then redis.call('HSETNX', KEYS[1], 'game', ARGV[1]) end
if ARGV[2] ~= '' and redis.call('HEXISTS', KEYS[1], 'game') == 1 then
  redis.call('HSETNX', KEYS[1], 'accepted:' .. ARGV[2], '1')
end
local reply = {redis.call('HGET', KEYS[1], 'game')}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 9) == 'accepted:' then reply[#reply + 1] = string.sub(field, 10) end
end
return reply
"""


@attrs.frozen
class Proposal:
    """A finished game's rematch as it stands: the new game's id and the seats that accepted."""

    game_id: str
    accepted: frozenset[int]

    def waiting_for(self, seats: Iterable[int]) -> list[int]:
        """Of the seats that must accept, those that have not yet."""
        return [seat for seat in seats if seat not in self.accepted]


class Rematches:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._accept = client.register_script(_ACCEPT)

    @staticmethod
    def new_id(slug: str) -> str:
        return f"{slug}-{secrets.token_hex(6)}"

    def accept(self, game_id: str, seat: int, new_id: str) -> Proposal:
        """`seat` asks for the rematch of `game_id` (or accepts it); `new_id` becomes the rematch's
        game id unless another request gave it one first. The rematch as it now stands."""
        return self._proposal(self._accept(keys=[keys.rematch(game_id)], args=[new_id, str(seat)]))

    def of(self, game_id: str) -> Proposal | None:
        """The rematch of `game_id`, None if nobody has asked for one."""
        return self._proposal(self._accept(keys=[keys.rematch(game_id)], args=["", ""]))

    @staticmethod
    def _proposal(reply: list) -> Proposal | None:
        if not reply or not reply[0]:
            return None
        return Proposal(reply[0].decode(), frozenset(int(seat) for seat in reply[1:]))
