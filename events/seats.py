"""The seat store: each human seat's secret link token and its personal data. It never logs, never
stores a token (only its SHA-256) and never writes the event log.

A token reads `<game id>.<seat>.<secret>`, the secret being 32 random bytes in lowercase base32
without padding: lowercase letters, digits, '-' and '.', so the whole token is safe in a URL path
and in the local part of a mail plus address (`pbm+<token>@example.org`), and survives a mail
system that changes its case. It names its game and seat, so a lookup is one read of that game's
hash; the secret's hash is compared in constant time. Issuing again replaces the hash at once: the
old token stops working with the write. A token is ASCII: only ASCII letters are read in either
case, so no other script's letter stands for one (str.lower() turns the Kelvin sign K, U+212A, into
'k'). TOKEN_IN_TEXT finds a token's secret in text, in any form it may be written there.

Personal data (a name, an e-mail address, a webhook and its signing secret) lives in a mutable hash
per seat beside the log, so it can be changed or erased without touching history.

A token's secret is not drawn and forgotten but derived: HMAC-SHA256, under a key that never goes
into Redis, of the game, the seat and a random nonce kept beside the token's hash. So the notifier,
which must write a seat's link and reply address into every turn mail, can make the token again
(`reach()`), while Redis, its dumps and its backups hold nothing that opens a seat. The key is
PBM_SECRET_KEY when set (every server and worker of one site must share it), else a file in
PBM_HOME, readable by its owner only, made on first use.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

import attrs
import redis

import core
from events import channels, keys, server
from events.calls import Calls
from events.limits import COUNT_LUA, OVER_ALLOWANCE, OverAllowance, counter_ttl, window

SECRET_LENGTH = 52  # an HMAC-SHA256 (32 bytes) in base32, unpadded
_GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,99}", re.ASCII)
_TOKEN = re.compile(rf"({_GAME_ID.pattern})\.(0|[1-9][0-9]{{0,3}})\.([a-z2-7]{{{SECRET_LENGTH}}})", re.ASCII)
_SPACE = " \t\r\n"  # around a token (a line of mail, a pasted link): ASCII only, as the token
# The game and seat a text shaped like a token names, even a refused one: its log line says them.
_CLAIMED = re.compile(rf"({_GAME_ID.pattern})\.([0-9]{{1,4}})\.", re.ASCII | re.IGNORECASE)
# To redact: a token's secret as it may be written in a log line or an error, so wherever the
# server reads a token from: each character as itself in either case, percent-encoded (%61 for
# 'a': a path is logged as the server decoded and re-quoted it, a query as it came), or a look-alike
# outside ASCII (raw, or as percent-encoded UTF-8), which is refused but has the rest of the secret
# beside it. A run of half a secret's length is taken for one: what is left of a secret cut that
# short is still too much to guess, and it leaves game ids and seats readable ("holly-oak-3f2a.1.").
# A run is matched from its first character only (the look-behind): tried from every character of
# every short run, a 16 KB request line of them cost 28 ms in the access log's filter, now 1-10 ms.
REDACTED_RUN = SECRET_LENGTH // 2
TOKEN_IN_TEXT = re.compile(
    rf"(?<![a-z0-9\x80-\U0010ffff])(?:[a-z0-9]|%[0-9a-f]{{2}}|[^\x00-\x7f]){{{REDACTED_RUN},}}", re.ASCII | re.IGNORECASE
)
CONTACT_FIELDS = ("name", "email", "webhook", "webhook_secret", "confirm_moves")
CHANNEL_FIELDS = ("email", "webhook")  # a seat with one of these is told of its turns
SECRET_KEY_ENV = "PBM_SECRET_KEY"
KEY_FILE = "seat-links.key"


def link_key() -> bytes:
    """The key seat tokens are derived under (see the module's docstring)."""
    given = os.environ.get(SECRET_KEY_ENV)
    if given:
        return given.encode()
    path = server.data_dir() / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            with open(path, "xb", opener=server.owner_only) as out:
                out.write(secrets.token_hex(32).encode())
        except FileExistsError:
            pass  # another process made it first: theirs is the key
    return path.read_bytes()


class LinkSecrets:
    """What the seat, person and join stores each make their tokens with: the site's link key, read
    on first use (link_key), a token's secret made under it from what the token names and a nonce,
    and a stored token made again from its nonce and checked against its stored hash."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = link_key()
        return self._key

    def secret(self, message: str) -> str:
        """HMAC-SHA256 of `message` under the link key, in lowercase base32 without padding."""
        mac = hmac.new(self.key, message.encode(), hashlib.sha256).digest()
        return base64.b32encode(mac).decode().rstrip("=").lower()

    @staticmethod
    def matches(given_hex: str, stored: bytes | None) -> bool:
        """Whether a token's SHA-256 (hex) is the stored hash, in constant time."""
        given = given_hex.encode()
        # Compared even when nothing is stored, so an unknown token costs the same as a wrong secret.
        return hmac.compare_digest(given, stored or b"-" * len(given)) and stored is not None

    @staticmethod
    def remade_from(stored: bytes | None, nonce: bytes | None, make: Callable[[str], str]) -> str | None:
        """The token `make` builds from the stored nonce, if its SHA-256 is the stored hash; None
        when nothing is stored, or the token was made under another key."""
        if stored is None or nonce is None:
            return None
        token = make(nonce.decode())
        return token if LinkSecrets.matches(digest(token), stored) else None


def nonce_field(seat: int) -> str:
    return f"{seat}:nonce"


# KEYS: the seat's contact hash, the game's row. ARGV: seat. The seat joins or leaves the row's
# `reach` (comma-separated seats) as it has a channel or not; a game with no row is left alone.
_REACH = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local seat = ARGV[1]
local reachable = redis.call('HEXISTS', KEYS[1], 'email') == 1 or redis.call('HEXISTS', KEYS[1], 'webhook') == 1
local seats = {}
for each in string.gmatch(redis.call('HGET', KEYS[2], 'reach') or '', '[^,]+') do
  if each ~= seat then seats[#seats + 1] = each end
end
if reachable then seats[#seats + 1] = seat end
table.sort(seats, function(a, b) return tonumber(a) < tonumber(b) end)
redis.call('HSET', KEYS[2], 'reach', table.concat(seats, ','))
return 1
"""


class SeatError(core.SetupError):
    """A seat store request that cannot be done (a game id a token cannot carry, a bad field)."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def normal(token: str) -> str | None:
    """The one form a token is read in (ASCII, lowercase, without the ASCII spaces around it), or
    None for text that cannot be a token: anything outside ASCII, so a look-alike letter never
    lowers into the token's own."""
    if not isinstance(token, str) or not token.isascii():
        return None
    return token.strip(_SPACE).lower()


def parse(token: str) -> tuple[str, int] | None:
    """(game id, seat) named by a well-formed token, None otherwise. Says nothing of its validity."""
    text = normal(token)
    match = None if text is None else _TOKEN.fullmatch(text)
    return None if match is None else (match.group(1), int(match.group(2)))


def claimed(text: str) -> tuple[str, int] | None:
    """(game id, seat) that a text shaped like a token starts with, well-formed or not (a refusal's
    log line names them; never the rest)."""
    match = _CLAIMED.match(text) if isinstance(text, str) else None
    return None if match is None else (match.group(1).lower(), int(match.group(2)))


def redacted(text: str) -> str:
    """`text` with every token's secret in it (TOKEN_IN_TEXT) replaced by <token>."""
    return TOKEN_IN_TEXT.sub("<token>", text)


# A seat token's check and its count against the seat's allowance: the seat's stored hash compared
# with the token's, then the count of this window's requests (a counter made to expire with its
# window), refused past the allowance. One Lua text, run alone (Seats.run) or at the head of the
# move's own append (events/store.py), whichever comes first, so a move with a valid token costs
# one round trip to Redis, not two. Its keys are the last two of KEYS and its arguments the last four
# of ARGV: seat, the token's SHA-256 (hex), the counter's TTL, the allowance. Both keys carry the
# game's hash tag, so it runs on a Cluster too. (Lua's comparison is not constant-time, but what it
# compares are SHA-256 digests: how long it took could tell a guess at most how much of a digest
# it matched, which says nothing of any secret, as no one can choose a digest's first bytes.)
CHECK_LUA = """
local at = #ARGV - 3
if redis.call('HGET', KEYS[#KEYS - 1], ARGV[at]) ~= ARGV[at + 1] then return {4} end
""" + COUNT_LUA  # the count of every allowance (events/limits.py): its key last, its TTL and allowance last
NOT_A_SEAT = 4  # the code of its refusal of the token; OVER_ALLOWANCE (events/limits.py) past the allowance


class NotASeat(Exception):
    """A token that is malformed, unknown, replaced or of another game: all alike to its sender."""


@attrs.define
class TokenCheck:
    """One request's check of a seat token (CHECK_LUA), to be run once before the request is
    answered or anything is written: by the append of the move it carries, or alone (`run`) when
    the request ends without an append (a refusal, a conflict, a repeated command)."""

    game_id: str
    seat: int
    digest: str  # the token's SHA-256 (hex)
    counter: str  # the key of this window's count
    window_s: int
    allowance: int
    script: Callable[[Sequence[str], Sequence[Any]], Any] = attrs.field(repr=False)  # runs CHECK_LUA alone
    done: bool = False
    # Reads the request answers with, sent on the round trip of the append that runs the check
    # (a move's report names the seats), and their raw replies once they came (None: not read).
    reads: tuple[tuple[Any, ...], ...] = ()
    read: list[Any] | None = None

    @property
    def keys(self) -> tuple[str, str]:
        """CHECK_LUA's keys: the game's seat-token hash and the counter."""
        return keys.seat_tokens(self.game_id), self.counter

    @property
    def args(self) -> tuple[str, str, int, int]:
        """CHECK_LUA's arguments: seat, digest, the counter's TTL (two windows), the allowance."""
        return str(self.seat), self.digest, counter_ttl(self.window_s), self.allowance

    def run(self) -> None:
        """Run the check alone, unless it already ran: NotASeat or OverAllowance if it refuses."""
        if not self.done:
            self.settle(self.script(self.keys, self.args))

    def settle(self, reply: Sequence[Any]) -> None:
        """Take the reply of a script that ran the check: NotASeat or OverAllowance if it refused."""
        self.done = True
        if reply[0] == NOT_A_SEAT:
            raise NotASeat()
        if reply[0] == OVER_ALLOWANCE:
            raise OverAllowance(self.allowance, self.window_s)


class Seats(LinkSecrets):
    def __init__(self, client: redis.Redis, key: bytes | None = None) -> None:
        super().__init__(key)
        self.redis = client
        self._calls = Calls(client)  # a move's token check is on its hot path, as its append is
        self._check = client.register_script(CHECK_LUA + "return {0, count}")
        self._reach = client.register_script(_REACH)

    def _token(self, game_id: str, seat: int, nonce: str) -> str:
        return f"{game_id}.{seat}.{self.secret(f'{game_id}.{seat}.{nonce}')}"

    def issue(self, game_id: str, seat: int) -> str:
        """A fresh token for the seat; the seat's previous token stops working at once."""
        if not _GAME_ID.fullmatch(game_id):
            raise SeatError(f"game id {game_id!r} cannot go into a seat link (lowercase letters, digits and '-')")
        if type(seat) is not int or not 0 <= seat < 10_000:
            raise SeatError(f"no seat {seat!r}")
        token, nonce = self.fresh(game_id, seat)
        self.redis.hset(keys.seat_tokens(game_id), mapping={str(seat): digest(token), nonce_field(seat): nonce})
        return token

    def fresh(self, game_id: str, seat: int) -> tuple[str, str]:
        """A new token for the seat and its nonce, not yet stored (a join claim stores them in its
        own script: events/joining.py)."""
        nonce = secrets.token_hex(16)
        return self._token(game_id, seat, nonce), nonce

    def resolve(self, token: str) -> tuple[str, int] | None:
        """(game id, seat) of a valid token; None for a malformed, unknown or replaced one."""
        named = parse(token)
        if named is None:
            return None
        stored = self.redis.hget(keys.seat_tokens(named[0]), str(named[1]))
        return named if self._matches(token, stored) else None

    def check(self, token: str | None, window_s: int, allowance: int, kind: str = "") -> TokenCheck | None:
        """The check of a request carrying `token` that counts against its seat's allowance of
        `allowance` requests every `window_s` seconds; None for a malformed token (nothing to ask
        Redis). The counter is keyed by the token's hash, so a seat's re-issued token starts
        afresh, and the check refuses a token that does not match before counting anything.
        `kind` names the allowance ("" for moves; the web front end counts "reads" apart)."""
        named = parse(token) if token else None
        if named is None:
            return None
        game_id, seat = named
        given = digest(normal(token))
        counter = keys.seat_rate(game_id, seat, given, window(window_s), kind)
        return TokenCheck(game_id, seat, given, counter, window_s, allowance, partial(self._calls.script, self._check))

    def remade(self, game_id: str, seat: int) -> str | None:
        """The seat's working token, made again from its nonce (a person's page opens the seats
        they hold with it: pbm/people.py); None if it has none, or one made under another key."""
        stored, nonce = self.redis.hmget(keys.seat_tokens(game_id), [str(seat), nonce_field(seat)])
        return self.remade_from(stored, nonce, lambda nonce: self._token(game_id, seat, nonce))

    def revoke(self, game_id: str, seat: int) -> None:
        """The seat's token stops working and none replaces it (a seat handed to a bot)."""
        self.redis.hdel(keys.seat_tokens(game_id), str(seat), nonce_field(seat))

    def issued(self, game_id: str) -> set[int]:
        """The seats that have a working token."""
        return {int(seat) for seat in self.redis.hkeys(keys.seat_tokens(game_id)) if seat.isdigit()}

    @staticmethod
    def _matches(token: str, stored: bytes | None) -> bool:
        return LinkSecrets.matches(digest(normal(token)), stored)

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
        """Set the given fields of the seat's personal data (None leaves a field as it is). A seat's
        channels are checked here, where every front end sets them (events.channels): one mail
        address, a webhook the notifier may POST to."""
        given = {"name": name, "email": email, "webhook": webhook, "webhook_secret": webhook_secret}
        fields = {field: value for field, value in given.items() if value is not None}
        for field, value in fields.items():
            if not isinstance(value, str) or not value.isprintable() or len(value) > 1000:
                raise SeatError(f"{field}: up to 1000 printable characters")
        if email is not None:
            channels.checked_email(email)
        if webhook is not None:
            channels.checked_webhook(webhook)
        if fields:
            self.redis.hset(keys.contact(game_id, seat), mapping=fields)
            if {"email", "webhook"} & fields.keys():
                self._note_reach(game_id, seat)

    def set_confirm_moves(self, game_id: str, seat: int, on: bool) -> None:
        """The seat's own setting: whether its page asks "Send 7Su?" before it sends a move
        (kept with its personal data, as "confirm_moves": "1" while on)."""
        if on:
            self.redis.hset(keys.contact(game_id, seat), "confirm_moves", "1")
        else:
            self.redis.hdel(keys.contact(game_id, seat), "confirm_moves")

    def contact(self, game_id: str, seat: int) -> dict[str, str]:
        """The seat's personal data: only the fields that are set."""
        raw = self.redis.hgetall(keys.contact(game_id, seat))
        return {field.decode(): value.decode() for field, value in raw.items()}

    def reach(self, game_id: str, seat: int) -> dict[str, str]:
        """What the notifier needs to tell a seat: its channel fields and, if it has a channel and
        a working token, that token, made again. SeatError if this process's key is not the one
        the token was made under."""
        names = (*CHANNEL_FIELDS, "webhook_secret", "name")
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(keys.contact(game_id, seat), list(names))
        pipe.hmget(keys.seat_tokens(game_id), [str(seat), nonce_field(seat)])
        raw, (stored, nonce) = pipe.execute()
        found = {field: value.decode() for field, value in zip(names, raw) if value is not None}
        if stored is None or nonce is None or not any(field in found for field in CHANNEL_FIELDS):
            return found
        token = self._token(game_id, seat, nonce.decode())
        if not self._matches(token, stored):
            raise SeatError(f"game {game_id}'s seat links were made under another {SECRET_KEY_ENV}: this process cannot write them")
        return found | {"token": token}

    def reachable(self, game_id: str, seats: Iterable[int]) -> set[int]:
        """The seats among `seats` with an e-mail address or a webhook, in one round trip."""
        seats = list(seats)
        if not seats:
            return set()
        pipe = self.redis.pipeline(transaction=False)
        for seat in seats:
            pipe.hmget(keys.contact(game_id, seat), list(CHANNEL_FIELDS))
        return {seat for seat, found in zip(seats, pipe.execute()) if any(found)}

    def names(self, games: list[tuple[str, int]], read: TokenCheck | None = None) -> dict[str, list[str | None]]:
        """Each (game id, players)'s seat names, in one round trip: game id -> [name or None].
        On a move's answer (its report names the seats): sent as raw reads where the client allows
        (events.calls), a pipeline cost more CPU than the rest of the move's report; or read
        already, by the append that ran the token check `read` (`name_reads`)."""
        commands = self.name_reads(games)
        if read is not None and read.read is not None and read.reads == commands:
            found = iter(read.read)
        elif self._calls.direct:
            found = iter(self._calls.reads(commands))
        else:
            pipe = self.redis.pipeline(transaction=False)
            for _command, key, field in commands:
                pipe.hget(key, field)
            found = iter(pipe.execute())
        return {game_id: [None if (name := next(found)) is None else name.decode() for _ in range(players)] for game_id, players in games}

    @staticmethod
    def name_reads(games: list[tuple[str, int]]) -> tuple[tuple[str, str, str], ...]:
        """The commands `names` reads these games' seat names with (a TokenCheck's `reads`)."""
        return tuple(("HGET", keys.contact(game_id, seat), "name") for game_id, players in games for seat in range(players))

    def erase_contact(self, game_id: str, seat: int, *fields: str) -> None:
        """Erase the named fields of the seat's personal data, or all of it."""
        unknown = set(fields) - set(CONTACT_FIELDS)
        if unknown:
            raise SeatError(f"no contact field {sorted(unknown)[0]!r} (fields: {', '.join(CONTACT_FIELDS)})")
        if fields:
            self.redis.hdel(keys.contact(game_id, seat), *fields)
        else:
            self.redis.delete(keys.contact(game_id, seat))
        self._note_reach(game_id, seat)

    def _note_reach(self, game_id: str, seat: int) -> None:
        """Keep the game's row's `reach` (the seats with a channel) in step with this seat's
        contact: the append script hands it to the dispatcher, which then reads no channel."""
        self._reach(keys=[keys.contact(game_id, seat), keys.meta(game_id)], args=[seat])
