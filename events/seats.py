"""The seat store: each human seat's secret link token and its personal data. It never logs, never
stores a token (only its SHA-256) and never writes the event log.

A token reads `<game id>.<seat>.<secret>`, the secret being 32 random bytes in lowercase base32
without padding: lowercase letters, digits, '-' and '.', so the whole token is safe in a URL path
and in the local part of a mail plus address (`pbm+<token>@example.org`), and survives a mail
system that changes its case. It names its game and seat, so a lookup is one read of that game's
hash; the secret's hash is compared in constant time. Issuing again replaces the hash at once: the
old token stops working with the write.

Personal data (a name, an e-mail address, a webhook and its signing secret) lives in a mutable hash
per seat beside the log, so it can be changed or erased without touching history.

A seat that can be told of its turn (it has an e-mail address or a webhook) also keeps its current
token in that hash: every turn mail carries the seat's link and its reply address, and both are the
token. Only those seats' tokens are kept, erased with the contact data, replaced when the token is
issued again and dropped when it is revoked; `contact()` never answers it (`reach()` does, for the
notifier alone).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Iterable

import redis

import core
from events import keys

SECRET_BYTES = 32
SECRET_LENGTH = 52  # 32 bytes in base32, unpadded
_GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")
_TOKEN = re.compile(rf"({_GAME_ID.pattern})\.(0|[1-9][0-9]{{0,3}})\.([a-z2-7]{{{SECRET_LENGTH}}})")
TOKEN_IN_TEXT = re.compile(rf"{_GAME_ID.pattern}\.[0-9]{{1,4}}\.[a-z2-7]{{{SECRET_LENGTH}}}", re.IGNORECASE)  # to redact
CONTACT_FIELDS = ("name", "email", "webhook", "webhook_secret")
CHANNEL_FIELDS = ("email", "webhook")  # a seat with one of these is told of its turns
KEPT_TOKEN = "token"  # the contact hash's field for a reachable seat's token (pbm/notify.py)

# KEYS: the game's seat-token hash, the seat's contact hash. ARGV: seat, digest, token. The token is
# kept beside the contact only if the seat has a channel to be told through.
_ISSUE = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('HEXISTS', KEYS[2], 'email') == 1 or redis.call('HEXISTS', KEYS[2], 'webhook') == 1 then
  redis.call('HSET', KEYS[2], 'token', ARGV[3])
else
  redis.call('HDEL', KEYS[2], 'token')
end
return 1
"""


class SeatError(core.SetupError):
    """A seat store request that cannot be done (a game id a token cannot carry, a bad field)."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse(token: str) -> tuple[str, int] | None:
    """(game id, seat) named by a well-formed token, None otherwise. Says nothing of its validity."""
    if not isinstance(token, str):
        return None
    match = _TOKEN.fullmatch(token.strip().lower())
    return None if match is None else (match.group(1), int(match.group(2)))


# A move's token check and its count in one command: the seat's stored hash, and the count of this
# window's requests (the counter made to expire with its window). Both keys carry the game's hash
# tag, so the script runs on a Cluster too. The hash is compared by the caller, in constant time.
_COUNTED_LOOKUP = """
local stored = redis.call('HGET', KEYS[1], ARGV[1])
local count = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return {stored, count}
"""


class Seats:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._issue = client.register_script(_ISSUE)
        self._counted_lookup = client.register_script(_COUNTED_LOOKUP)

    def issue(self, game_id: str, seat: int) -> str:
        """A fresh token for the seat; the seat's previous token stops working at once."""
        if not _GAME_ID.fullmatch(game_id):
            raise SeatError(f"game id {game_id!r} cannot go into a seat link (lowercase letters, digits and '-')")
        if type(seat) is not int or not 0 <= seat < 10_000:
            raise SeatError(f"no seat {seat!r}")
        secret = base64.b32encode(secrets.token_bytes(SECRET_BYTES)).decode().rstrip("=").lower()
        token = f"{game_id}.{seat}.{secret}"
        self._issue(keys=[keys.seat_tokens(game_id), keys.contact(game_id, seat)], args=[str(seat), digest(token), token])
        return token

    def resolve(self, token: str) -> tuple[str, int] | None:
        """(game id, seat) of a valid token; None for a malformed, unknown or replaced one."""
        named = parse(token)
        if named is None:
            return None
        stored = self.redis.hget(keys.seat_tokens(named[0]), str(named[1]))
        return named if self._matches(token, stored) else None

    def resolve_counting(self, token: str, window_s: int) -> tuple[str, int, int] | None:
        """As resolve, and counts this request against the token in a window of `window_s`
        seconds, in the same round trip: (game id, seat, requests in this window) or None.

        The counter is keyed by the token's hash, so requests with a forged token for a seat
        never spend that seat's allowance.
        """
        named = parse(token)
        if named is None:
            return None
        game_id, seat = named
        given = digest(token.strip().lower())
        # One counter per fixed window (its number is in the key), so every EXPIRE may repeat.
        window = int(time.time()) // window_s
        counter = keys.seat_rate(game_id, seat, given, window)
        # One script rather than a pipeline of three commands: the same single round trip, at
        # two thirds of the client's CPU (33 us down to 22 here).
        stored, count = self._counted_lookup(keys=[keys.seat_tokens(game_id), counter], args=[str(seat), window_s * 2])
        return (game_id, seat, count) if self._matches_digest(given, stored) else None

    def revoke(self, game_id: str, seat: int) -> None:
        """The seat's token stops working and none replaces it (a seat handed to a bot)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hdel(keys.seat_tokens(game_id), str(seat))
        pipe.hdel(keys.contact(game_id, seat), KEPT_TOKEN)
        pipe.execute()

    def issued(self, game_id: str) -> set[int]:
        """The seats that have a working token."""
        return {int(seat) for seat in self.redis.hkeys(keys.seat_tokens(game_id))}

    @staticmethod
    def _matches(token: str, stored: bytes | None) -> bool:
        return Seats._matches_digest(digest(token.strip().lower()), stored)

    @staticmethod
    def _matches_digest(given_hex: str, stored: bytes | None) -> bool:
        given = given_hex.encode()
        # Compared even when nothing is stored, so an unknown seat costs the same as a wrong secret.
        return hmac.compare_digest(given, stored or b"-" * len(given)) and stored is not None

    def open_to_spectators(self, game_id: str, allowed: bool = True) -> None:
        """Let anyone see the game's public view and story (the creator's choice), or stop it."""
        if allowed:
            self.redis.hset(keys.access(game_id), "spectators", 1)
        else:
            self.redis.hdel(keys.access(game_id), "spectators")

    def spectators_allowed(self, game_id: str) -> bool:
        return bool(self.redis.hexists(keys.access(game_id), "spectators"))

    def set_contact(
        self,
        game_id: str,
        seat: int,
        name: str | None = None,
        email: str | None = None,
        webhook: str | None = None,
        webhook_secret: str | None = None,
    ) -> None:
        """Set the given fields of the seat's personal data (None leaves a field as it is)."""
        given = {"name": name, "email": email, "webhook": webhook, "webhook_secret": webhook_secret}
        fields = {field: value for field, value in given.items() if value is not None}
        for field, value in fields.items():
            if not isinstance(value, str) or not value.isprintable() or len(value) > 1000:
                raise SeatError(f"{field}: up to 1000 printable characters")
        if fields:
            self.redis.hset(keys.contact(game_id, seat), mapping=fields)

    def contact(self, game_id: str, seat: int) -> dict[str, str]:
        """The seat's personal data: only the fields that are set (never its kept token)."""
        raw = self.redis.hgetall(keys.contact(game_id, seat))
        return {field.decode(): value.decode() for field, value in raw.items() if field.decode() != KEPT_TOKEN}

    def reach(self, game_id: str, seat: int) -> dict[str, str]:
        """What the notifier needs to tell a seat: its channel fields and its kept token, if any."""
        raw = self.redis.hmget(keys.contact(game_id, seat), [*CHANNEL_FIELDS, "webhook_secret", "name", KEPT_TOKEN])
        names = (*CHANNEL_FIELDS, "webhook_secret", "name", KEPT_TOKEN)
        return {field: value.decode() for field, value in zip(names, raw) if value is not None}

    def reachable(self, game_id: str, seats: Iterable[int]) -> set[int]:
        """The seats among `seats` with an e-mail address or a webhook, in one round trip."""
        seats = list(seats)
        if not seats:
            return set()
        pipe = self.redis.pipeline(transaction=False)
        for seat in seats:
            pipe.hmget(keys.contact(game_id, seat), list(CHANNEL_FIELDS))
        return {seat for seat, found in zip(seats, pipe.execute()) if any(found)}

    def names(self, games: list[tuple[str, int]]) -> dict[str, list[str | None]]:
        """Each (game id, players)'s seat names, in one round trip: game id -> [name or None]."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id, players in games:
            for seat in range(players):
                pipe.hget(keys.contact(game_id, seat), "name")
        found = iter(pipe.execute())
        return {game_id: [None if (name := next(found)) is None else name.decode() for _ in range(players)] for game_id, players in games}

    def erase_contact(self, game_id: str, seat: int, *fields: str) -> None:
        """Erase the named fields of the seat's personal data, or all of it."""
        unknown = set(fields) - set(CONTACT_FIELDS)
        if unknown:
            raise SeatError(f"no contact field {sorted(unknown)[0]!r} (fields: {', '.join(CONTACT_FIELDS)})")
        if fields:
            self.redis.hdel(keys.contact(game_id, seat), *fields)
            if not self.reachable(game_id, [seat]):  # nothing left to tell it through: no token kept
                self.redis.hdel(keys.contact(game_id, seat), KEPT_TOKEN)
        else:
            self.redis.delete(keys.contact(game_id, seat))
