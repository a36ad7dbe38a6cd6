"""Store contract: atomic checked appends, idempotent command ids, reads by seq, the game list."""

from __future__ import annotations

import pytest

from events import keys
from events.envelope import GENESIS, decode, seal
from events.store import Conflict, Store

import core
from core.rng import seed_hex


def sealed_bytes(game_id: str, first: int, count: int, prev: bytes = GENESIS) -> list[bytes]:
    out = []
    for seq in range(first, first + count):
        env = seal(game_id, seq, core.SeedRevealed(seed_hex(seq)), prev, actor=None, command=None, command_id=None, time_ms=seq)
        out.append(env.encode())
        prev = env.hash
    return out


def test_append_then_read_gives_the_same_bytes_in_order(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 5)
    appended = store.append(game_id, 0, raw[:2])
    assert (appended.first, appended.count, appended.duplicate) == (0, 2, False)
    store.append(game_id, 2, raw[2:])
    assert store.read_raw(game_id) == list(enumerate(raw))
    assert store.length(game_id) == 5
    assert [e.seq for e in store.read(game_id)] == [0, 1, 2, 3, 4]


def test_read_from_and_to_a_seq(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 6)
    store.append(game_id, 0, raw)
    assert store.read_raw(game_id, 2, 4) == [(2, raw[2]), (3, raw[3]), (4, raw[4])]
    assert store.read_raw(game_id, 5) == [(5, raw[5])]
    assert store.read_raw(game_id, 6) == []


def test_stale_expected_seq_is_a_conflict_and_appends_nothing(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 4)
    store.append(game_id, 0, raw[:1])
    for stale in (0, 2):
        with pytest.raises(Conflict) as conflict:
            store.append(game_id, stale, raw[1:])
        assert conflict.value.actual == 1
    assert store.length(game_id) == 1


def test_the_right_seq_on_another_chain_is_a_conflict_and_appends_nothing(store: Store, game_id: str, redis_client) -> None:
    """A failover's promoted replica may lack the old master's last event and have got another one
    at its seq since: a writer still holding the lost one is at the right seq on the wrong chain.
    Its move, sealed onto the lost event, is refused (it reads the log again), never appended."""
    lost = sealed_bytes(game_id, 0, 4)  # the writer's chain: seq 2 as the old master had it
    store.append(game_id, 0, lost[:3])
    redis_client.delete(keys.log(game_id))  # the promoted replica's log: seq 2 is another event
    kept = sealed_bytes(game_id, 0, 2) + [seal(game_id, 2, core.SeedRevealed(seed_hex(99)), decode(lost[1]).hash, actor=None, command=None, command_id=None, time_ms=2).encode()]
    store.append(game_id, 0, kept)
    with pytest.raises(Conflict, match="seq 2 is not the one this writer read"):
        store.append(game_id, 3, lost[3:])
    assert store.read_raw(game_id) == list(enumerate(kept))
    on_the_log = seal(game_id, 3, core.SeedRevealed(seed_hex(3)), decode(kept[2]).hash, actor=None, command=None, command_id=None, time_ms=3)
    assert store.append(game_id, 3, [on_the_log.encode()]).count == 1


def test_a_repeated_command_id_appends_nothing_and_answers_the_first_result(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 5)
    store.append(game_id, 0, raw[:1])
    first = store.append(game_id, 1, raw[1:3], command_id="cmd-1")
    again = store.append(game_id, 3, raw[3:], command_id="cmd-1")
    assert (first.first, first.count, first.duplicate) == (1, 2, False)
    assert (again.first, again.count, again.duplicate) == (1, 2, True)
    assert store.length(game_id) == 3
    # Even with a stale expected seq, a known command is recognised, not a conflict.
    assert store.append(game_id, 0, raw[3:], command_id="cmd-1").duplicate


def test_keys_share_the_game_hash_tag(game_id: str) -> None:
    named = {keys.log(game_id), keys.commands(game_id), keys.seed(game_id), keys.meta(game_id)}
    assert len(named) == 4
    assert all(f"{{{game_id}}}" in key for key in named)


def test_create_refuses_a_taken_id_and_lists_games(store: Store, game_id: str) -> None:
    raw = sealed_bytes(game_id, 0, 2)
    store.create(game_id, "holly-oak", 3, 1234, seed=99, envelopes=raw)
    with pytest.raises(Conflict):
        store.create(game_id, "holly-oak", 4, 5678, seed=1, envelopes=raw)
    info = store.info(game_id)
    assert (info.slug, info.players, info.created_ms, info.length) == ("holly-oak", 3, 1234, 2)
    assert store.seed(game_id) == 99
    assert game_id in [g.game_id for g in store.games()]


def test_a_create_or_append_sent_twice_is_done_once(store: Store, game_id: str) -> None:
    """What redis-py does when a connection drops before the reply: it sends the command again."""
    raw = sealed_bytes(game_id, 0, 3)
    for _ in range(2):
        store.create(game_id, "holly-oak", 3, 1234, seed=99, envelopes=raw[:2])
    first = store.append(game_id, 2, raw[2:])
    again = store.append(game_id, 2, raw[2:])
    assert (first.duplicate, again.duplicate, again.first, again.count) == (False, True, 2, 1)
    assert store.length(game_id) == 3 and [g.game_id for g in store.games()].count(game_id) == 1
    with pytest.raises(Conflict):  # another append at a stale seq is still a conflict
        store.append(game_id, 2, sealed_bytes(game_id, 2, 1, prev=b"\x01" * 32))


def test_stored_bytes_decode_to_a_hash_chain(store: Store, game_id: str) -> None:
    store.append(game_id, 0, sealed_bytes(game_id, 0, 4))
    envelopes = store.read(game_id)
    prev = GENESIS
    for env in envelopes:
        assert env.prev == prev and env.hash == env.expected_hash()
        assert decode(env.encode()) == env
        prev = env.hash


def test_since_move_reads_back_to_the_seats_latest_move(store: Store, game_id: str) -> None:
    """From the first event of the seat's latest move to `stop`, read back a page at a time (the
    pages grow: a move 300 events back takes several), or from the start if it has not moved."""
    envelopes, prev = [], GENESIS
    moves = {5: (1, "play 1"), 7: (0, "play 2"), 300: (1, "play 3")}  # seq -> (seat, move)
    for seq in range(320):
        seat, move = moves.get(seq, (None, None))
        envelopes.append(seal(game_id, seq, core.SeedRevealed(seed_hex(seq)), prev, actor=seat, command=move, command_id=None, time_ms=seq))
        prev = envelopes[-1].hash
    store.append(game_id, 0, [env.encode() for env in envelopes])
    assert store.since_move(game_id, 1, 319) == envelopes[300:]
    assert store.since_move(game_id, 1, 299) == envelopes[5:300]
    assert store.since_move(game_id, 0, 319) == envelopes[7:]
    assert store.since_move(game_id, 2, 319) == envelopes  # never moved: the whole log
    assert store.since_move(game_id, 1, 4) == envelopes[:5]
    assert store.since_move(game_id, 1, 5) == envelopes[5:6]
    assert store.read(game_id, 319, count=3, backward=True) == envelopes[317:][::-1]
    assert store.read(game_id, 2, count=10, backward=True) == envelopes[:3][::-1]
