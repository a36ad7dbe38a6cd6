"""Snapshots as disposable caches: a cold read from one folds only what follows it and gives the
same table as the whole log; a missing, stale or foreign one is ignored; replays never read one."""

from __future__ import annotations

import random

import pytest

import core
from events import keys, snapshots
from events.commands import Games
from events.store import Store
from replays import verify
from replays.log import from_store


def long_game(games: Games, seed: int, slug: str = "holly-oak", players: int = 3) -> str:
    """A game played past a few snapshots, stopped before its end."""
    game_id = games.create(slug, players, seed=seed, bots={1: "random"})
    pick = random.Random(seed)
    table = games.table(game_id)
    while table.to_act and table.seq < 3 * snapshots.EVERY + 7:
        seat = table.to_act[0]
        games.submit(game_id, seat, pick.choice(table.legal_moves(seat)))
        table = games.table(game_id)
    return game_id


def folded(store: Store, game_id: str) -> core.Table:
    envelopes = store.read(game_id)
    return core.replay_table(envelopes[0].event.game, [env.event for env in envelopes], seed=store.seed(game_id))


@pytest.mark.parametrize("slug", sorted(core.GAMES))
def test_every_game_state_round_trips_through_the_snapshot_codec(slug: str) -> None:
    game = core.GAMES[slug]
    for seed in range(3):
        table = core.new_table(slug, players=max(game.min_players, 2), seed=seed)
        pick = random.Random(seed)
        while table.to_act:
            raw = snapshots.encode(table, bytes(32))
            back = snapshots.decode(game, table.started, raw)
            assert back is not None and back.state == table.state and back.seq == table.seq
            seat = table.to_act[0]
            table.play(seat, pick.choice(table.legal_moves(seat)))


def test_a_cold_read_starts_from_the_snapshot_and_equals_the_whole_log(games: Games, store: Store) -> None:
    game_id = long_game(games, seed=1)
    raw = store.redis.get(keys.snapshot(game_id))
    saved_at = snapshots.decode(core.GAMES["holly-oak"], store.read(game_id, 0, 0)[0].event, raw).seq
    assert saved_at % snapshots.EVERY == 0 and saved_at > store.length(game_id) - snapshots.EVERY
    cold = Games(store).table(game_id)
    assert isinstance(cold.events, snapshots.History) and cold.events._before is None  # the prefix unread
    truth = folded(store, game_id)
    assert cold.state == truth.state and cold.seq == truth.seq and cold.bots == truth.bots == {1: "random"}
    # The latest moves are narrated from the snapshot's state, still without the prefix.
    assert cold.narrate(0, start=saved_at) == truth.narrate(0)[saved_at:] and cold.events._before is None
    assert list(cold.events) == truth.events  # asked for, the prefix comes from the log
    assert cold.narrate(0) == truth.narrate(0)


def test_a_cold_read_plays_on_like_a_warm_one(games: Games, store: Store) -> None:
    game_id = long_game(games, seed=2)
    cold = Games(store)
    table = cold.table(game_id)
    seat = table.to_act[0]
    cold.submit(game_id, seat, table.legal_moves(seat)[0])
    assert cold.table(game_id).state == folded(store, game_id).state


@pytest.mark.parametrize("damage", ["stale hash", "other rules", "garbage", "missing"])
def test_a_bad_snapshot_is_ignored_and_replaced(games: Games, store: Store, damage: str) -> None:
    game_id = long_game(games, seed=3)
    key = keys.snapshot(game_id)
    good = store.redis.get(key)
    schema, rules, seq, last_hash, state, bots, clock, salting = snapshots.codec.unpack(good)
    bad = {
        "stale hash": snapshots.codec.pack([schema, rules, seq, bytes(32), state, bots, clock, salting]),
        "other rules": snapshots.codec.pack([schema, rules + 1, seq, last_hash, state, bots, clock, salting]),
        "garbage": b"\x93not a snapshot",
        "missing": None,
    }[damage]
    store.redis.delete(key) if bad is None else store.redis.set(key, bad)
    cold = Games(store).table(game_id)
    assert not isinstance(cold.events, snapshots.History)  # folded from the start
    assert cold.state == folded(store, game_id).state
    assert store.redis.get(key) is not None and store.redis.get(key) != bad  # a fresh one at the head


def test_replays_never_read_a_snapshot(games: Games, store: Store) -> None:
    game_id = long_game(games, seed=4)
    # A snapshot that lies about the state but carries the log's hash: the command path trusts it
    # (it is our own cache), verify and the replay tools read the log.
    raw = store.redis.get(keys.snapshot(game_id))
    schema, rules, seq, last_hash, state, bots, clock, salting = snapshots.codec.unpack(raw)
    liar = core.new_table("holly-oak", 3, seed=99).state
    store.redis.set(keys.snapshot(game_id), snapshots.codec.pack(
        [schema, rules, seq, last_hash, snapshots.codec.converter.unstructure(liar), bots, clock, salting]
    ))
    log = from_store(store, game_id)
    assert verify.verify(log, seed=store.seed(game_id)).ok
    assert log.state_after(log.last_seq) == folded(store, game_id).state
