"""The codec: game events <-> tagged plain data <-> msgpack bytes. No I/O.

Every event class has a permanent `kind` tag; the tag, never the class name, is what is stored, so
a class may be renamed freely. Decoding refuses unknown kinds and unknown fields.
"""

from __future__ import annotations

import enum
from typing import Any

import cattrs
import cattrs.errors
import msgpack
from cattrs.gen import make_dict_unstructure_fn, override
from cattrs.strategies import configure_union_passthrough

import core
from core.contract import LIFECYCLE_EVENTS, GameStarted, OptionValue


class DecodeError(ValueError):
    """Stored bytes that are not a valid event: the text says which kind and what is wrong."""


KINDS: dict[str, type] = {cls.kind: cls for cls in LIFECYCLE_EVENTS}  # and the games' kinds, as added
_GAMES_ADDED: set[str] = set()


def _add_kinds(game: core.Game) -> None:
    for cls in game.event_types:  # core.Game checks each tag starts with the game's slug
        if KINDS.setdefault(cls.kind, cls) is not cls:
            raise TypeError(f"two event classes share the tag {cls.kind!r}")


def event_class(kind: str) -> type | None:
    """The class stored under `kind`; a game's kinds are added when its first event is decoded
    (a tag starts with its game's slug), so decoding one game loads no other game's rules."""
    cls = KINDS.get(kind)
    if cls is None:
        slug = kind.partition(".")[0]
        if slug in core.GAMES and slug not in _GAMES_ADDED:
            _add_kinds(core.GAMES[slug])
            _GAMES_ADDED.add(slug)
            cls = KINDS.get(kind)
    return cls


def all_kinds() -> dict[str, type]:
    """Every kind this pbm can decode (loads every game)."""
    for slug in core.GAMES:
        event_class(f"{slug}.")
    return dict(KINDS)


def _strict(cls: type) -> Any:
    # cattrs would turn "7" into 7; a stored log must already hold the right types.
    def check(value: Any, wanted: Any) -> Any:
        if wanted is not cls:  # a subclass: a (str, Enum) or (int, Enum) field
            return _enum(value, wanted)
        if type(value) is not cls:
            raise TypeError(f"expected {cls.__name__}, got {type(value).__name__} {value!r}")
        return value

    return check


def _enum(value: Any, cls: type[enum.Enum]) -> enum.Enum:
    try:
        return cls(value)
    except ValueError:
        raise TypeError(f"{value!r} is not a {cls.__name__}") from None


# detailed_validation=False: a refusal is the first thing wrong, raised as it is found, instead of
# every field tried and the errors gathered (what `_reason` reported was the first of them anyway);
# decoding is strict all the same, and a third faster (bench/spine.py's replay profile).
converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=False)
for _primitive in (int, str, bool, bytes):
    converter.register_structure_hook(_primitive, _strict(_primitive))
configure_union_passthrough(OptionValue, converter)


def _plain_enum(cls: type[enum.Enum]) -> Any:
    """A plain Enum field (Holly Oak's Season, on most of its events): its members looked up by
    value in a dict, as Enum's own call does first, without the call (cls(value), which also
    raises the ValueError cattrs reported before, for anything else)."""
    members = dict(cls._value2member_map_)

    def structure(value: Any, _wanted: Any) -> enum.Enum:
        try:
            return members[value]
        except (KeyError, TypeError):
            return cls(value)

    return structure


converter.register_structure_hook_factory(
    lambda wanted: isinstance(wanted, type) and issubclass(wanted, enum.Enum) and not issubclass(wanted, (int, str, bytes)),
    _plain_enum,
)
# Fields added to an event after logs exist are stored only when they differ from their default,
# so the events every old log holds keep their bytes (tests/test_codec.py freezes them).
converter.register_unstructure_hook(
    GameStarted, make_dict_unstructure_fn(
        GameStarted, converter, fixed_deal=override(omit_if_default=True), salts=override(omit_if_default=True)
    )
)


# The converter's hook for each class, looked up once (the converter's own dispatch costs as much
# as structuring a small event): the hooks are all registered above, at import.
_UNSTRUCTURE: dict[type, Any] = {}
_STRUCTURE: dict[str, tuple[type, Any]] = {}  # by kind: the class and its hook


def unstructure(event: Any) -> tuple[str, dict[str, Any]]:
    """(kind, data): the plain form of an event, as it is stored."""
    cls = event.__class__
    hook = _UNSTRUCTURE.get(cls)
    if hook is None:
        hook = _UNSTRUCTURE[cls] = converter.get_unstructure_hook(cls)
    return event.kind, hook(event)


def structure(kind: str, data: Any) -> Any:
    """The event for stored (kind, data); DecodeError on an unknown kind or field."""
    found = _STRUCTURE.get(kind)
    if found is None:
        cls = event_class(kind)
        if cls is None:
            raise DecodeError(f"unknown event kind {kind!r}")
        found = _STRUCTURE[kind] = (cls, converter.get_structure_hook(cls))
    cls, hook = found
    try:
        return hook(data, cls)
    except (cattrs.errors.CattrsError, TypeError, ValueError, KeyError, AttributeError) as error:
        raise DecodeError(f"bad {kind} data: {_reason(error)}") from None


def _reason(error: Exception) -> str:
    if isinstance(error, cattrs.BaseValidationError):
        inner = error.exceptions[0] if error.exceptions else error
        return _reason(inner) if inner is not error else str(error)
    if isinstance(error, KeyError):
        return f"missing field {error}"
    return str(error) or type(error).__name__


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def unpack(raw: bytes) -> Any:
    try:
        return msgpack.unpackb(raw, raw=False, strict_map_key=True)
    except (msgpack.UnpackException, ValueError, TypeError) as error:
        raise DecodeError(f"not valid msgpack ({type(error).__name__}: {error})") from None


def encode_event(event: Any) -> bytes:
    """One event alone as bytes: [kind, data]."""
    return pack(list(unstructure(event)))


def decode_event(raw: bytes) -> Any:
    value = unpack(raw)
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        raise DecodeError("an event is [kind, data]")
    return structure(value[0], value[1])
