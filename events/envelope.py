"""The envelope: one stored event with its place in the log, its cause and its hash link. No I/O.

Wire form (msgpack array, schema 1):
    [schema, game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash]
`actor` is a seat, or None for the system (the deal, the seed's reveal); `command` is the move text
on the first event of a command (None on the others); `time_ms` is wall-clock metadata only, never
read by a rule. `hash` = SHA-256(prev + the packed body [schema .. time_ms]); `prev` is the previous
event's hash (32 zero bytes before seq 0), so changing any stored event breaks every later link.
"""

from __future__ import annotations

import hashlib
from typing import Any

import attrs

from events import codec
from events.codec import DecodeError

SCHEMA = 1
GENESIS = bytes(32)


@attrs.frozen
class Envelope:
    game_id: str
    seq: int
    kind: str
    data: Any
    actor: int | None
    command: str | None
    command_id: str | None
    time_ms: int
    prev: bytes
    hash: bytes
    schema: int = SCHEMA

    @property
    def event(self) -> Any:
        return codec.structure(self.kind, self.data)

    def body(self) -> list[Any]:
        return [
            self.schema, self.game_id, self.seq, self.kind, self.data,
            self.actor, self.command, self.command_id, self.time_ms,
        ]

    def expected_hash(self) -> bytes:
        return link(self.prev, codec.pack(self.body()))

    def encode(self) -> bytes:
        return codec.pack(self.body() + [self.prev, self.hash])


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
) -> Envelope:
    """The envelope for `event` at `seq`, hashed onto `prev`."""
    return sealed(game_id, seq, event, prev, actor=actor, command=command, command_id=command_id, time_ms=time_ms)[0]


# msgpack's headers of a fixarray of 11 (the wire form) and of bin 8 of 32 bytes (a hash).
_ARRAY_11, _BIN_32 = b"\x9b", b"\xc4\x20"


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
) -> tuple[Envelope, bytes]:
    """The envelope for `event` at `seq`, hashed onto `prev`, and its wire form (what `encode`
    gives), made from the hashed body's bytes: the writer packs once instead of three times."""
    if len(prev) != 32:
        raise ValueError(f"a previous hash is 32 bytes, not {len(prev)}")
    kind, data = codec.unstructure(event)
    body = codec.pack([SCHEMA, game_id, seq, kind, data, actor, command, command_id, time_ms])
    # Unpacked again so the envelope holds exactly what decoding gives back (lists, not tuples):
    # then encode(decode(bytes)) == bytes and envelopes compare equal. (msgpack packs a tuple as it
    # packs a list, so the body's bytes are those of the unpacked data.)
    data = codec.unpack(body)[4]
    hash_ = link(prev, body)
    envelope = Envelope(game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash_)
    # The wire form is the body's array of 9 made an array of 11: prev and hash follow it.
    return envelope, _ARRAY_11 + body[1:] + _BIN_32 + prev + _BIN_32 + hash_


def decode(raw: bytes) -> Envelope:
    return from_value(codec.unpack(raw))


def from_value(value: Any) -> Envelope:
    """The envelope for an already unpacked wire value (a reader of a msgpack stream unpacks once)."""
    if not isinstance(value, list) or len(value) != 11:
        raise DecodeError("an envelope is an array of 11 fields")
    schema, game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash_ = value
    if schema != SCHEMA:
        raise DecodeError(f"unknown envelope schema {schema!r} (this pbm reads {SCHEMA})")
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
    return Envelope(game_id, seq, kind, data, actor, command, command_id, time_ms, prev, hash_, schema)


_CHECKED = ("game id", "seq", "kind", "actor", "command", "command id", "time", "prev hash", "hash")
