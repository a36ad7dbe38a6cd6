"""The envelope: one stored event with its place in the log, its cause and its hash link. No I/O.

Wire form (msgpack array), schema 1:
    [schema, game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash]
and schema 2, the same with the command's origin after the time:
    [schema, game_id, seq, kind, data, actor, command, command_id, time_ms, origin, prev, hash]
`actor` is a seat, or None for the system (the deal, the seed's reveal); `command` is the move text
on the first event of a command (None on the others); `time_ms` is wall-clock metadata only, never
read by a rule. `origin` says, for the audit, that the shell played the command for its seat:
"forced" (its only legal move) or "order" (one of the seat's standing orders, docs/orders.md).
`hash` = SHA-256(prev + the packed body [schema .. time_ms] or [schema .. origin]); `prev` is the
previous event's hash (32 zero bytes before seq 0), so changing any stored event breaks every later
link.

Schema 2 is written only for an envelope with an origin: every other envelope is written as
schema 1, byte for byte as before, so old logs, golden logs and hashes are unchanged, and a
schema-1 envelope reads with origin None (tests/test_codec.py keeps both forms' bytes frozen).
"""

from __future__ import annotations

import hashlib
from functools import partial
from operator import itemgetter
from typing import Any

from events import codec
from events.codec import DecodeError

SCHEMA = 1  # an envelope without an origin (nearly all)
SCHEMA_ORIGIN = 2  # an envelope with an origin
SCHEMAS = (SCHEMA, SCHEMA_ORIGIN)
ORIGINS = ("forced", "order")
GENESIS = bytes(32)


class Envelope(tuple):
    """One stored event: immutable, equal to another envelope field by field.

    A tuple of the wire form's 11 values in their schema-1 wire order (`schema` first), then the
    origin (None for schema 1), with a name for each: a decoded entry becomes an envelope by one C call on the unpacked array instead of a
    frozen attrs class's setattr per field (11 of them: a fifth of a replay's decoding, and of
    sealing a move's events, in bench/spine.py's profile). The constructor takes the fields in
    the order the attrs class it replaces did, `schema` last.
    """

    __slots__ = ()

    def __new__(
        cls,
        game_id: str,
        seq: int,
        kind: str,
        data: Any,
        actor: int | None,
        command: str | None,
        command_id: str | None,
        time_ms: int,
        prev: bytes,
        hash: bytes,  # noqa: A002 (the field's name in the wire form's documentation)
        schema: int = SCHEMA,
        origin: str | None = None,
    ) -> Envelope:
        return tuple.__new__(cls, (schema, game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash, origin))

    schema = property(itemgetter(0))
    game_id = property(itemgetter(1))
    seq = property(itemgetter(2))
    kind = property(itemgetter(3))
    data = property(itemgetter(4))
    actor = property(itemgetter(5))
    command = property(itemgetter(6))
    command_id = property(itemgetter(7))
    time_ms = property(itemgetter(8))
    prev = property(itemgetter(9))
    hash = property(itemgetter(10))
    origin = property(itemgetter(11))

    # Equal only to another envelope, as the attrs class was: a tuple of the same values is not one
    # (NotImplemented would hand the comparison to the tuple, which says equal).
    def __eq__(self, other: object) -> bool:
        return other.__class__ is Envelope and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def _unordered(self, other: object) -> bool:  # envelopes have no order (the attrs class had none)
        return NotImplemented

    __lt__ = __le__ = __gt__ = __ge__ = _unordered

    def __getnewargs__(self) -> tuple[Any, ...]:  # pickle and copy call __new__ with these
        return (*self[1:11], self[0], self[11])

    def __repr__(self) -> str:
        return "Envelope(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS) + ")"

    def replace(self, **changes: Any) -> Envelope:
        """This envelope with some fields changed (not resealed: a test forges logs so)."""
        unknown = changes.keys() - set(FIELDS)
        if unknown:
            raise TypeError(f"an envelope has no field {sorted(unknown)[0]!r}")
        return Envelope(**{name: changes.get(name, getattr(self, name)) for name in FIELDS})

    @property
    def event(self) -> Any:
        return codec.structure(self[3], self[4])

    def body(self) -> list[Any]:
        return list(self[:9]) if self[0] == SCHEMA else [*self[:9], self[11]]

    def expected_hash(self) -> bytes:
        return link(self[9], codec.pack(self.body()))

    def encode(self) -> bytes:
        return codec.pack([*self.body(), self[9], self[10]])


FIELDS = ("game_id", "seq", "kind", "data", "actor", "command", "command_id", "time_ms", "prev", "hash", "schema", "origin")
_new_envelope = partial(tuple.__new__, Envelope)


def is_move_of(env: Envelope, seat: int) -> bool:
    """Whether `env` is the first event of a move `seat` made (the command path puts the move's
    text on that event only; a shell event, a deal or a reveal carries none)."""
    return env.command is not None and env.actor == seat


def is_sent_by(env: Envelope, seat: int) -> bool:
    """Whether `env` is the first event of a move `seat` sent itself, not one the shell played for
    it (an origin): a seat's report runs from the latest of these, since it has read nothing since."""
    return env.command is not None and env.actor == seat and env[11] is None


def link(prev: bytes, body: bytes) -> bytes:
    return hashlib.sha256(prev + body).digest()


def seal(
    game_id: str,
    seq: int,
    event: Any,
    prev: bytes,
    *,
    actor: int | None,
    command: str | None,
    command_id: str | None,
    time_ms: int,
    origin: str | None = None,
) -> Envelope:
    """The envelope for `event` at `seq`, hashed onto `prev`."""
    return sealed(game_id, seq, event, prev, actor=actor, command=command, command_id=command_id, time_ms=time_ms, origin=origin)[0]


# msgpack's headers of a fixarray of 11 and 12 (the wire forms) and of bin 8 of 32 bytes (a hash).
_ARRAY_11, _ARRAY_12, _BIN_32 = b"\x9b", b"\x9c", b"\xc4\x20"


def sealed(
    game_id: str,
    seq: int,
    event: Any,
    prev: bytes,
    *,
    actor: int | None,
    command: str | None,
    command_id: str | None,
    time_ms: int,
    origin: str | None = None,
) -> tuple[Envelope, bytes]:
    """The envelope for `event` at `seq`, hashed onto `prev`, and its wire form (what `encode`
    gives), made from the hashed body's bytes: the writer packs once instead of three times."""
    if len(prev) != 32:
        raise ValueError(f"a previous hash is 32 bytes, not {len(prev)}")
    if origin is not None and origin not in ORIGINS:
        raise ValueError(f"an origin is one of {', '.join(ORIGINS)}, not {origin!r}")
    kind, data = codec.unstructure(event)
    if origin is not None:
        body = codec.pack([SCHEMA_ORIGIN, game_id, seq, kind, data, actor, command, command_id, time_ms, origin])
        data = codec.unpack(body)[4]
        hash_ = link(prev, body)
        envelope = _new_envelope((SCHEMA_ORIGIN, game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash_, origin))
        return envelope, _ARRAY_12 + body[1:] + _BIN_32 + prev + _BIN_32 + hash_
    body = codec.pack([SCHEMA, game_id, seq, kind, data, actor, command, command_id, time_ms])
    # Unpacked again so the envelope holds exactly what decoding gives back (lists, not tuples):
    # then encode(decode(bytes)) == bytes and envelopes compare equal. (msgpack packs a tuple as it
    # packs a list, so the body's bytes are those of the unpacked data.)
    data = codec.unpack(body)[4]
    hash_ = link(prev, body)
    envelope = _new_envelope((SCHEMA, game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash_, None))
    # The wire form is the body's array of 9 made an array of 11: prev and hash follow it.
    return envelope, _ARRAY_11 + body[1:] + _BIN_32 + prev + _BIN_32 + hash_


def decode(raw: bytes) -> Envelope:
    return from_value(codec.unpack(raw))


def from_value(value: Any) -> Envelope:
    """The envelope for an already unpacked wire value (a reader of a msgpack stream unpacks once)."""
    if not isinstance(value, list) or len(value) not in (11, 12):
        raise DecodeError("an envelope is an array of 11 fields (12 with an origin)")
    schema = value[0]
    if type(schema) is not int or schema not in SCHEMAS:  # True == 1, and 1.0 == 1, in Python
        raise DecodeError(f"unknown envelope schema {schema!r} (this pbm reads {', '.join(map(str, SCHEMAS))})")
    if len(value) != (11 if schema == SCHEMA else 12):
        raise DecodeError(f"an envelope of schema {schema} is an array of {11 if schema == SCHEMA else 12} fields")
    if schema == SCHEMA:
        value.append(None)  # no origin
    else:
        origin = value.pop(9)  # to the end, where the tuple keeps it
        if origin not in ORIGINS:
            raise DecodeError(f"envelope has a bad origin {origin!r}")
        value.append(origin)
    schema, game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash_, _origin = value
    checked = (
        isinstance(game_id, str),
        type(seq) is int and seq >= 0,
        isinstance(kind, str),
        actor is None or type(actor) is int,
        command is None or isinstance(command, str),
        command_id is None or isinstance(command_id, str),
        type(time_ms) is int,
        isinstance(prev, bytes) and len(prev) == 32,
        isinstance(hash_, bytes) and len(hash_) == 32,
    )
    if False in checked:
        raise DecodeError(f"envelope has a bad {_CHECKED[checked.index(False)]}")
    return _new_envelope(value)


_CHECKED = ("game id", "seq", "kind", "actor", "command", "command id", "time", "prev hash", "hash")
