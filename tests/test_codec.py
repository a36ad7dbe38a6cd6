"""The codec and the envelope: permanent tags, strict decoding, and frozen bytes that must never
change without a migration (a schema bump, an upcaster and a new fixture)."""

from __future__ import annotations

import attrs
import pytest

import core
from bench.random_moves import random_moves
from core.contract import LIFECYCLE_EVENTS
from events import codec, envelope
from events.codec import DecodeError

# A GameStarted envelope as schema 1 wrote it. If this test fails, stored logs no longer decode:
# write a migration instead of changing the bytes.
FROZEN_GAME_STARTED = bytes.fromhex(
    "9b01a3672d3100b070626d2e67616d655f7374617274656485a467616d65a9686f6c6c792d6f616bad72756c6573"
    "5f76657273696f6e01a7706c617965727303a76f7074696f6e739192a178c3af736565645f636f6d6d69746d656e74"
    "d94034383432386264623764646438323934313064366262623932346664656233613364376538386332353737626666"
    "616530373362393930633666303631643038c0c0c0cf0000018bcfe56800c420000000000000000000000000000000"
    "0000000000000000000000000000000000c420853b3712a25295646fccda6424a533663aaf55e89fe856f2d5c9736a"
    "421477bc"
)
STARTED = core.GameStarted("holly-oak", 1, 3, (("x", True),), core.commitment(7))


def test_frozen_bytes_still_decode_to_the_same_event() -> None:
    env = envelope.decode(FROZEN_GAME_STARTED)
    assert env.event == STARTED and (env.game_id, env.seq, env.time_ms) == ("g-1", 0, 1_700_000_000_000)
    assert env.hash == env.expected_hash() and env.prev == envelope.GENESIS
    again = envelope.seal("g-1", 0, STARTED, envelope.GENESIS, actor=None, command=None, command_id=None, time_ms=1_700_000_000_000)
    assert again.encode() == FROZEN_GAME_STARTED


def test_every_kind_is_unique_and_namespaced() -> None:
    kinds = codec.all_kinds()
    assert len(kinds) == len(LIFECYCLE_EVENTS) + sum(len(game.event_types) for game in core.GAMES.values())
    for kind, cls in kinds.items():
        assert cls.kind == kind and "." in kind
        slug = kind.split(".")[0]
        assert slug == "pbm" or slug in core.GAMES


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        (["pbm.no_such_kind", {}], "unknown event kind 'pbm.no_such_kind'"),
        (["pbm.seed_revealed", {"seed": "ab", "extra": 1}], "extra"),
        (["pbm.seed_revealed", {"seed": 7}], "expected str"),
        (["pbm.seed_revealed", {}], "missing field 'seed'"),
        (["pbm.seed_revealed", ["ab"]], "bad pbm.seed_revealed data"),  # not a mapping
        (["holly-oak.card_played", {"seat": 1, "card": "7Su", "season": "Spr"}], "'Spr' is not a valid Season"),
        (["pbm.seed_revealed"], "[kind, data]"),
        # A str where an array is stored: not taken as its letters (the converter's tuple hook did).
        (["holly-oak.hands_dealt", {"round": 1, "hands": ["1Sp"]}], "expected an array, got str '1Sp'"),
    ],
)
def test_bad_event_data_is_refused_with_a_reason(stored, message: str) -> None:
    with pytest.raises(DecodeError) as refused:
        codec.decode_event(codec.pack(stored))
    assert message in str(refused.value)


def test_bad_envelopes_are_refused() -> None:
    good = codec.unpack(FROZEN_GAME_STARTED)
    for index, bad_value, what in [(0, 2, "schema"), (0, True, "schema"), (0, 1.0, "schema"), (2, -1, "seq"), (9, b"short", "prev"), (5, "x", "actor")]:
        broken = list(good)
        broken[index] = bad_value
        with pytest.raises(DecodeError, match=what):
            envelope.decode(codec.pack(broken))
    with pytest.raises(DecodeError, match="msgpack"):
        envelope.decode(FROZEN_GAME_STARTED[:-5])


def test_a_changed_event_breaks_its_hash() -> None:
    env = envelope.decode(FROZEN_GAME_STARTED)
    tampered = envelope.Envelope(env.game_id, env.seq, env.kind, {**env.data, "players": 4}, env.actor,
                                 env.command, env.command_id, env.time_ms, env.prev, env.hash)
    assert tampered.expected_hash() != tampered.hash


def test_enum_fields_decode_to_their_enum_even_when_they_are_str_enums() -> None:
    from core.games.holiday_board.events import EndReason  # a (str, Enum) in a real event

    assert codec.converter.structure("no_bid", EndReason) is EndReason.NO_BID
    with pytest.raises(TypeError, match="not a EndReason"):
        codec.converter.structure("nope", EndReason)
    with pytest.raises(TypeError, match="expected str"):
        codec.converter.structure(7, str)


def test_an_envelope_is_a_value_with_named_fields() -> None:
    import copy
    import pickle

    env = envelope.decode(FROZEN_GAME_STARTED)
    assert (env.schema, env.game_id, env.seq, env.kind) == (envelope.SCHEMA, "g-1", 0, "pbm.game_started")
    same = envelope.Envelope(env.game_id, env.seq, env.kind, env.data, env.actor, env.command,
                             env.command_id, env.time_ms, env.prev, env.hash)
    assert same == env and not same != env and hash(same.replace(data=None)) == hash(env.replace(data=None))
    assert env != tuple(env) and env != list(env)  # equal only to another envelope, as a value type
    assert pickle.loads(pickle.dumps(env)) == env == copy.copy(env) and copy.deepcopy(env) == env
    assert env.replace(seq=5).seq == 5 and env.replace(seq=5).hash == env.hash and env.seq == 0
    with pytest.raises(TypeError, match="no field 'sequence'"):
        env.replace(sequence=5)
    with pytest.raises(AttributeError):
        env.seq = 1
    with pytest.raises(TypeError):
        sorted([env, same])
    assert repr(env).startswith("Envelope(game_id='g-1', seq=0, kind='pbm.game_started'")


def _stored_events() -> dict[str, list[tuple[type, dict]]]:
    """For every kind, the stored data of its events in a random playout of each game (with every
    lifecycle event too), as decoding meets them."""
    from core.rng import Rng

    found: dict[str, list[tuple[type, dict]]] = {}
    extra = [core.BotsSeated(((1, "random"),)), core.ClockSet(3600, (60,), 2, 3), core.ClockPaused(), core.ClockResumed()]
    for slug, game in core.GAMES.items():
        table = core.new_table(slug, players=game.min_players, seed=11)
        for _now, seat, move in random_moves(table, Rng(5, 0)):
            table.play(seat, move)
        for event in [*table.events, *extra]:
            kind, data = codec.unstructure(event)
            found.setdefault(kind, []).append((type(event), codec.unpack(codec.pack(data))))
    for kind, cls in codec.all_kinds().items():  # one of each kind, made from its fields' types
        event = cls(**{field.name: _sample(field.type) for field in attrs.fields(attrs.resolve_types(cls))})
        found.setdefault(kind, []).append((cls, codec.unpack(codec.pack(codec.unstructure(event)[1]))))
    return found


def _sample(wanted):
    import enum
    import typing

    if isinstance(wanted, type) and issubclass(wanted, enum.Enum):
        return list(wanted)[-1]
    if wanted in (int, str, bool, bytes):
        return wanted(1) if wanted is not str else "a"
    args = typing.get_args(wanted)
    if typing.get_origin(wanted) is tuple:
        return (_sample(args[0]),) if args[-1] is Ellipsis else tuple(_sample(arg) for arg in args)
    return _sample(args[0])  # a union: its first type


def _refusal(structure, data, cls):
    try:
        structure(data, cls)
    except Exception as error:  # which exception does not matter: codec.structure says DecodeError
        return type(error)
    return None


def test_generated_structuring_decodes_and_refuses_as_the_converter_does() -> None:
    stored = _stored_events()
    assert set(stored) == set(codec.all_kinds())
    odd_values = [1.5, None, "7", 7, True, b"x", [], [1.5], [[1.5]], [["a", 1.5]], {"a": 1}, ["a", "b", "c"]]
    for kind, events in stored.items():
        cls = events[0][0]
        generated = codec.generated_structure(cls)
        if generated is None:
            continue
        hook = codec.converter.get_structure_hook(cls)
        for _cls, data in events:
            assert generated(data, cls) == hook(data, cls) and type(generated(data, cls)) is cls
        data = events[0][1]
        mutations = [{**data, "unknown": 1}, [data], "x"]
        mutations += [{k: v for k, v in data.items() if k != name} for name in data]
        mutations += [{**data, name: value} for name in data for value in odd_values]
        for mutated in mutations:
            refused = _refusal(generated, mutated, cls)
            if _refusal(hook, mutated, cls) is not None:
                assert refused is not None, f"{kind}: {mutated!r} refused by the converter, not by generated structuring"
            elif refused is not None:
                # Stricter only where the converter takes the data by making it into other data (a
                # tuple of a str's letters where an array of arrays is stored): it would not re-encode to it.
                assert codec.unpack(codec.pack(codec.unstructure(hook(mutated, cls))[1])) != mutated, (kind, mutated)
            else:
                assert generated(mutated, cls) == hook(mutated, cls)
