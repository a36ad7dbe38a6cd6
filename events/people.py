"""The people store: each person's display name, optional e-mail address and time zone, their
secret person token (only its SHA-256 kept) and the index of the seats they hold. It never logs,
never stores a token, never writes a game's log, and never puts an e-mail address or a token
into an error.

A person's keys share their own hash tag `{person:<id>}` (events/keys.py), so on a Redis Cluster
a person is one slot, as a game is. The seats a person holds are an index across games, kept like
events/index.py's: the person's entry (`pbm:{person:<id>}:seats`) is written before the game's side
(`pbm:{<game>}:people`, seat -> person id) and removed after it, so a crash leaves the index naming
too many seats, never too few; a reader believes an entry only where the game's side agrees.

A person token reads `<person id>.<secret>`, the secret made as a seat token's is (events.seats.LinkSecrets:
an HMAC under the site's link key of the person id and a nonce kept beside the token's hash), so
the notifier can write a person's link into a turn mail while Redis holds nothing that opens it.
It has two parts where a seat token has three, so neither can be taken for the other.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import unicodedata
import zoneinfo
from collections.abc import Iterable

import attrs
import redis

import core
from events import keys
from events.seats import SECRET_LENGTH, LinkSecrets

MAX_NAME = 100
MAX_EMAIL = 254
SEATING_GRACE_MS = 60_000
FORMER_PLAYER = "a former player"  # the name an erased person's seats keep
_PERSON_ID = re.compile(r"p-[0-9a-f]{12}")
_TOKEN = re.compile(rf"({_PERSON_ID.pattern})\.([a-z2-7]{{{SECRET_LENGTH}}})")
# One address, no display name, no list: a local part and a domain of dotted labels.
_EMAIL = re.compile(r"[^\s@,;:<>()\[\]\"\\]{1,64}@(?:[^\s@,;:<>()\[\]\"\\.]{1,63}\.)+[^\s@,;:<>()\[\]\"\\.]{2,63}")
_TZ = re.compile(r"[A-Za-z0-9_+\-]{1,30}(?:/[A-Za-z0-9_+\-]{1,30}){0,2}")
_UNSET = object()


class PersonError(core.SetupError):
    """A person request that cannot be done: a bad name, address or time zone, an unknown person.
    Its message names what is wrong, never the address or a token."""


def check_name(name: object) -> str:
    """A display name as kept: NFC, trimmed; PersonError if empty, too long or nothing visible."""
    if not isinstance(name, str):
        raise PersonError("name: a name is text")
    name = unicodedata.normalize("NFC", name).strip()
    if not name:
        raise PersonError("name: empty")
    if len(name) > MAX_NAME:
        raise PersonError(f"name: {len(name)} characters, at most {MAX_NAME}")
    if not name.isprintable():
        raise PersonError("name: holds a control or invisible formatting character")
    if not any(unicodedata.category(char)[0] in "LNPS" for char in name):
        raise PersonError("name: nothing visible in it (only spaces or marks)")
    return name


def check_email(email: object) -> str:
    """One mail address, trimmed; PersonError (which does not repeat it) if it is not one."""
    if not isinstance(email, str):
        raise PersonError("email: an address is text")
    email = email.strip()
    if len(email) > MAX_EMAIL or not email.isprintable() or not _EMAIL.fullmatch(email):
        raise PersonError("email: not one mail address (one address alone, like ann@example.org)")
    return email


def check_tz(tz: object) -> str:
    """An IANA time zone name zoneinfo knows (Europe/Paris, UTC); PersonError otherwise."""
    if not isinstance(tz, str) or not _TZ.fullmatch(tz.strip()):
        raise PersonError(f"tz: {str(tz)[:40]!r} is not a time zone name (like Europe/Paris or UTC)")
    try:
        zoneinfo.ZoneInfo(tz.strip())
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise PersonError(f"tz: no time zone {tz.strip()!r} (IANA names, like Europe/Paris or UTC)") from None
    return tz.strip()


def email_digest(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse(token: object) -> str | None:
    """The person id a well-formed person token names, None otherwise. Says nothing of its validity."""
    if not isinstance(token, str):
        return None
    match = _TOKEN.fullmatch(token.strip().lower())
    return None if match is None else match.group(1)


def is_person_id(text: object) -> bool:
    return isinstance(text, str) and _PERSON_ID.fullmatch(text) is not None


@attrs.frozen
class Person:
    id: str
    name: str
    email: str | None
    tz: str | None
    created_ms: int

    def public(self) -> dict[str, object]:
        """What the operator's API and the person's own page show (no token, no hash)."""
        return {"id": self.id, "name": self.name, "email": self.email, "tz": self.tz}


class People(LinkSecrets):
    def __init__(self, client: redis.Redis, key: bytes | None = None) -> None:
        super().__init__(key)
        self.redis = client

    def _token(self, person_id: str, nonce: str) -> str:
        return f"{person_id}.{self.secret(f'person:{person_id}.{nonce}')}"

    @staticmethod
    def new_id() -> str:
        return f"p-{secrets.token_hex(6)}"

    def add(self, name: str, email: str | None = None, tz: str | None = None, person_id: str | None = None) -> tuple[Person, str]:
        """A new person and their token (under `person_id` if given: one drawn by new_id, that a
        seat was claimed for first). PersonError for bad data, or an address that is another
        person's already (each address is one person's, so an invitation can find them by it)."""
        name = check_name(name)
        email = None if email is None else check_email(email)
        tz = None if tz is None else check_tz(tz)
        person_id = person_id or self.new_id()
        if email is not None and not self._claim_email(email, person_id):
            raise PersonError(f"email: that address is {self.by_email(email)}'s already")
        created = time.time_ns() // 1_000_000
        nonce = secrets.token_hex(16)
        token = self._token(person_id, nonce)
        fields = {"name": name, "created": created, "token": digest(token), "nonce": nonce}
        fields |= {"email": email} if email else {}
        fields |= {"tz": tz} if tz else {}
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.person(person_id), mapping=fields)
        pipe.zadd(keys.PEOPLE, {person_id: created})
        pipe.execute()
        return Person(person_id, name, email, tz, created), token

    def _claim_email(self, email: str, person_id: str) -> bool:
        """Takes the address for `person_id` unless a person that exists has it (one left by a
        crashed add or an erasure is taken over)."""
        field = email_digest(email)
        if self.redis.hsetnx(keys.PEOPLE_BY_EMAIL, field, person_id):
            return True
        holder = self.redis.hget(keys.PEOPLE_BY_EMAIL, field)
        if holder is not None and self.redis.exists(keys.person(holder.decode())):
            return holder.decode() == person_id
        self.redis.hset(keys.PEOPLE_BY_EMAIL, field, person_id)
        return True

    def by_email(self, email: str) -> str | None:
        """The id of the person with this address, if any."""
        found = self.redis.hget(keys.PEOPLE_BY_EMAIL, email_digest(email))
        if found is None or not self.redis.exists(keys.person(found.decode())):
            return None
        return found.decode()

    def get(self, person_id: str) -> Person | None:
        if not is_person_id(person_id):
            return None
        raw = self.redis.hgetall(keys.person(person_id))
        if not raw:
            return None
        found = {field.decode(): value.decode() for field, value in raw.items()}
        return Person(person_id, found["name"], found.get("email"), found.get("tz"), int(found.get("created", 0)))

    def need(self, person_id: str) -> Person:
        person = self.get(person_id)
        if person is None:
            raise PersonError(f"no person {str(person_id)[:40]!r} (see `pbm people list`)")
        return person

    def all(self) -> list[Person]:
        ids = [raw.decode() for raw in self.redis.zrange(keys.PEOPLE, 0, -1)]
        return [person for person in map(self.get, ids) if person is not None]

    def edit(self, person_id: str, name: str | None = None, email: object = _UNSET, tz: object = _UNSET) -> Person:
        """Change the given fields (email or tz None: remove it). Everything is checked before
        anything is written."""
        person = self.need(person_id)
        new_name = person.name if name is None else check_name(name)
        new_email = person.email if email is _UNSET else None if email is None else check_email(email)
        new_tz = person.tz if tz is _UNSET else None if tz is None else check_tz(tz)
        if new_email is not None and email_digest(new_email) != (person.email and email_digest(person.email)):
            if not self._claim_email(new_email, person_id):
                raise PersonError(f"email: that address is {self.by_email(new_email)}'s already")
        if person.email and (new_email is None or email_digest(new_email) != email_digest(person.email)):
            self._release_email(person.email, person_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.person(person_id), "name", new_name)
        for field, value in (("email", new_email), ("tz", new_tz)):
            pipe.hset(keys.person(person_id), field, value) if value else pipe.hdel(keys.person(person_id), field)
        pipe.execute()
        return Person(person_id, new_name, new_email, new_tz, person.created_ms)

    def _release_email(self, email: str, person_id: str) -> None:
        field = email_digest(email)
        if self.redis.hget(keys.PEOPLE_BY_EMAIL, field) == person_id.encode():
            self.redis.hdel(keys.PEOPLE_BY_EMAIL, field)

    def forget(self, person_id: str) -> None:
        """Erase the person's own keys: their data, token and index (their seats' side in each
        game is the caller's: pbm.people.erase)."""
        person = self.need(person_id)
        if person.email:
            self._release_email(person.email, person_id)
        self.redis.delete(keys.person(person_id), keys.person_seats(person_id))
        self.redis.zrem(keys.PEOPLE, person_id)

    def issue(self, person_id: str) -> str:
        """A fresh token for the person; their previous one stops working at once."""
        self.need(person_id)
        nonce = secrets.token_hex(16)
        token = self._token(person_id, nonce)
        self.redis.hset(keys.person(person_id), mapping={"token": digest(token), "nonce": nonce})
        return token

    def token(self, person_id: str) -> str | None:
        """The person's working token, made again from its nonce (for a mail's link); None if
        they have none, or it was made under another key."""
        stored, nonce = self.redis.hmget(keys.person(person_id), ["token", "nonce"])
        return self.remade_from(stored, nonce, lambda nonce: self._token(person_id, nonce))

    def resolve(self, token: str | None) -> str | None:
        """The person id of a valid token; None for a malformed, unknown or replaced one."""
        person_id = parse(token)
        if person_id is None:
            return None
        stored = self.redis.hget(keys.person(person_id), "token")
        return person_id if self.matches(digest(token.strip().lower()), stored) else None

    # The seats a person holds: their index first, the game's side second (see the docstring).

    def seat(self, person_id: str, game_id: str, seat: int) -> None:
        """Record that the person holds `seat` of `game_id`."""
        self.index_seat(person_id, game_id, seat)
        self.redis.hset(keys.seat_people(game_id), str(seat), person_id)

    def index_seat(self, person_id: str, game_id: str, seat: int) -> None:
        """The person's side only, written before the game's (which a join claim's script writes)."""
        self.redis.zadd(keys.person_seats(person_id), {f"{game_id}/{seat}": time.time_ns() // 1_000_000})

    def unseat(self, person_id: str, game_id: str, seat: int) -> None:
        if self.holder(game_id, seat) == person_id:
            self.redis.hdel(keys.seat_people(game_id), str(seat))
        self.redis.zrem(keys.person_seats(person_id), f"{game_id}/{seat}")

    def holder(self, game_id: str, seat: int) -> str | None:
        found = self.redis.hget(keys.seat_people(game_id), str(seat))
        return None if found is None else found.decode()

    def holders(self, game_id: str) -> dict[int, str]:
        return {int(seat): person.decode() for seat, person in self.redis.hgetall(keys.seat_people(game_id)).items()}

    def seats(self, person_id: str) -> list[tuple[str, int]]:
        """(game id, seat) of every seat the person holds, oldest first: the index's entries that
        the games agree with. The rest (left by a crash, or a game deleted or handed over) are
        dropped once older than a minute: a younger one may be a seating in flight."""
        entries = [(raw.decode(), score) for raw, score in self.redis.zrange(keys.person_seats(person_id), 0, -1, withscores=True)]
        named = [(entry.rpartition("/")[0], int(entry.rpartition("/")[2])) for entry, _score in entries]
        pipe = self.redis.pipeline(transaction=False)
        for game_id, seat in named:
            pipe.hget(keys.seat_people(game_id), str(seat))
        held, stale = [], []
        old = time.time_ns() // 1_000_000 - SEATING_GRACE_MS
        for (entry, score), place, holder in zip(entries, named, pipe.execute()):
            if holder == person_id.encode():
                held.append(place)
            elif score < old:
                stale.append(entry)
        if stale:
            self.redis.zrem(keys.person_seats(person_id), *stale)
        return held
