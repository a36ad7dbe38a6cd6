"""The codec: game events <-> tagged plain data <-> msgpack bytes. No I/O.

Every event class has a permanent `kind` tag; the tag, never the class name, is what is stored, so
a class may be renamed freely. Decoding refuses unknown kinds and unknown fields.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable
from functools import partial
from typing import Any

import attrs

import cattrs
import cattrs.errors
import msgpack
from cattrs.gen import make_dict_unstructure_fn, override
from cattrs.strategies import configure_union_passthrough

import core
from core.contract import LIFECYCLE_EVENTS, GameStarted, OptionValue, SaltsAwaited, SaltsClosed


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
converter.register_unstructure_hook(
    SaltsAwaited, make_dict_unstructure_fn(SaltsAwaited, converter, silent_from_seed=override(omit_if_default=True))
)
converter.register_unstructure_hook(
    SaltsClosed, make_dict_unstructure_fn(SaltsClosed, converter, from_seed=override(omit_if_default=True))
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
        found = _STRUCTURE[kind] = (cls, generated_structure(cls) or converter.get_structure_hook(cls))
    cls, hook = found
    try:
        return hook(data, cls)
    except (cattrs.errors.CattrsError, TypeError, ValueError, KeyError, AttributeError) as error:
        raise DecodeError(f"bad {kind} data: {_reason(error)}") from None


# Generated structuring: one function an event class, made from its fields' types, that checks and
# converts the stored data as the converter does (the same types refused, unknown fields refused,
# defaults for fields left out) with the checks of primitive fields written inline. The converter's
# hooks cost a Python call a field (a strict check, an enum lookup) and one a tuple's item: half a
# replay's structuring (bench/spine.py's profile). A class with a field of another type (a union,
# a nested class, a factory default) keeps the converter's hook.
_PRIMITIVES = (int, str, bool, bytes)


def _refuse(wanted: str, value: Any) -> TypeError:
    return TypeError(f"expected {wanted}, got {type(value).__name__} {value!r}")


def _value_checker(wanted: Any) -> Callable[[Any], Any] | None:
    """A function that checks and converts one stored value of type `wanted`; None if the type is
    not one generated structuring knows."""
    if wanted in _PRIMITIVES:
        def primitive(value: Any) -> Any:
            if value.__class__ is not wanted:
                raise _refuse(wanted.__name__, value)
            return value

        return primitive
    if isinstance(wanted, type) and issubclass(wanted, enum.Enum):
        if issubclass(wanted, (int, str, bytes)):  # a (str, Enum): the strict hooks' _enum
            return partial(_enum, cls=wanted)
        return partial(_plain_enum(wanted), _wanted=wanted)
    if typing.get_origin(wanted) is tuple:
        args = typing.get_args(wanted)
        if len(args) == 2 and args[1] is Ellipsis:
            if args[0] in _PRIMITIVES:
                return partial(_tuple_of_primitives, args[0])
            item = _value_checker(args[0])
            return None if item is None else partial(_tuple_of, item)
        items = [_value_checker(arg) for arg in args]
        return None if None in items else partial(_fixed_tuple, tuple(items))
    return None


def _array(value: Any) -> None:
    if value.__class__ is not list and value.__class__ is not tuple:
        raise _refuse("an array", value)


def _tuple_of_primitives(wanted: type, value: Any) -> tuple[Any, ...]:
    _array(value)
    for item in value:
        if item.__class__ is not wanted:
            raise _refuse(wanted.__name__, item)
    return tuple(value)


def _tuple_of(item: Callable[[Any], Any], value: Any) -> tuple[Any, ...]:
    _array(value)
    return tuple(map(item, value))


def _fixed_tuple(items: tuple[Callable[[Any], Any], ...], value: Any) -> tuple[Any, ...]:
    _array(value)
    if len(value) != len(items):
        raise TypeError(f"expected an array of {len(items)}, got {len(value)} items {value!r}")
    return tuple(check(item) for check, item in zip(items, value))


def _extra_fields(cls: type, data: dict[str, Any], names: frozenset[str]) -> cattrs.errors.ForbiddenExtraKeysError:
    return cattrs.errors.ForbiddenExtraKeysError("", cls, set(data) - names)


def generated_structure(cls: type) -> Callable[[Any, Any], Any] | None:
    """A function (data, cls) -> event for an attrs event class, or None (see above).

    The event is built by setting its slots, as the class's own __init__ does field by field
    through object.__setattr__ but without a call per field through it (an event class has no
    validators, converters or __attrs_post_init__ for it to skip: a class with any keeps the
    converter's hook)."""
    fields = attrs.fields(attrs.resolve_types(cls))
    names = frozenset(field.name for field in fields)
    # Slots for the fields and nothing __init__ would fill besides (a cached hash's).
    if set(cls.__dict__.get("__slots__", ("?",))) - {"__weakref__"} != names:
        return None
    if hasattr(cls, "__attrs_post_init__") or hasattr(cls, "__attrs_pre_init__"):
        return None
    scope: dict[str, Any] = {"_cls": cls, "_new": object.__new__, "_names": names, "_extra": _extra_fields, "_refuse": _refuse, "dict": dict}
    lines = [
        "def structure(data, _wanted):",
        "    if data.__class__ is not dict:",
        "        raise _refuse('a map', data)",
        "    if not data.keys() <= _names:",  # unknown fields first, as the converter refuses them
        "        raise _extra(_cls, data, _names)",
    ]
    for number, field in enumerate(fields):
        plain = field.init and field.alias == field.name and field.validator is None and field.converter is None
        if not plain or isinstance(field.default, attrs.Factory):
            return None
        value = f"v{number}"
        scope[f"set{number}"] = getattr(cls, field.name).__set__  # the slot's own descriptor
        if field.default is attrs.NOTHING:
            lines.append(f"    {value} = data[{field.name!r}]")
        else:
            scope[f"default{number}"] = field.default
            lines.append(f"    {value} = data.get({field.name!r}, default{number})")
        wanted = field.type
        if wanted in _PRIMITIVES:
            scope[f"type{number}"] = wanted
            lines += [
                f"    if {value}.__class__ is not type{number}:",
                f"        raise _refuse({wanted.__name__!r}, {value})",
            ]
        elif isinstance(wanted, type) and issubclass(wanted, enum.Enum) and not issubclass(wanted, (int, str, bytes)):
            # A plain Enum: its members by value, as _plain_enum looks them up (Enum's own call
            # raises the ValueError for anything else).
            scope[f"members{number}"], scope[f"enum{number}"] = dict(wanted._value2member_map_), wanted
            lines += [
                "    try:",
                f"        {value} = members{number}[{value}]",
                "    except (KeyError, TypeError):",
                f"        {value} = enum{number}({value})",
            ]
        else:
            check = _value_checker(wanted)
            if check is None:
                return None
            scope[f"check{number}"] = check
            lines.append(f"    {value} = check{number}({value})")
    lines.append("    event = _new(_cls)")
    lines += [f"    set{number}(event, v{number})" for number in range(len(fields))]
    lines.append("    return event")
    exec(compile("\n".join(lines), f"<pbm structure {cls.__name__}>", "exec"), scope)  # noqa: S102 (code made here, of field names)
    return scope["structure"]


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
