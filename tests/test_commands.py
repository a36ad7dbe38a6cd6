"""The command path on a real Redis: create, submit, refusals, conflicts, idempotency, races."""

from __future__ import annotations

import threading
import uuid

import pytest

import core
from core.rng import Rng, seed_hex
from events.commands import CommandIdReused, Games, UnknownGame
from events.envelope import GENESIS
from events.seats import NotASeat, Seats
from events.store import Conflict, Store
from tests.conftest import forged, written


def first_legal(games: Games, game_id: str) -> tuple[int, str]:
    table = games.table(game_id)
    seat = table.to_act[0]
    return seat, table.legal_moves(seat)[0]


def test_create_logs_only_the_seed_commitment(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=42, forced_moves="ask")
    envelopes = store.read(game_id)
    started = envelopes[0].event
    assert isinstance(started, core.GameStarted)
    assert started.seed_commitment == core.commitment(42) and started.players == 3
    assert "seed" not in envelopes[0].data and store.seed(game_id) == 42
    assert envelopes[0].prev == GENESIS and envelopes[0].actor is None
    assert games.table(game_id).events == core.new_table("holly-oak", 3, seed=42).events


def test_a_legal_move_is_appended_with_its_cause(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=1, forced_moves="ask")
    seat, move = first_legal(games, game_id)
    submitted = games.submit(game_id, seat, move, command_id="c1")
    assert not submitted.duplicate and submitted.seq == 2
    stored = store.read(game_id, submitted.seq)
    assert stored == submitted.events
    assert (stored[0].actor, stored[0].command, stored[0].command_id) == (seat, move, "c1")
    assert stored[0].prev == store.read(game_id, 1, 1)[0].hash


@pytest.mark.parametrize("bad", ["play 7 Su", "fold", "", "play 99Zz"])
def test_refused_moves_change_nothing(games: Games, store: Store, bad: str) -> None:
    game_id = games.create("holly-oak", 3, seed=1, forced_moves="ask")
    seat, _move = first_legal(games, game_id)
    before = store.read_raw(game_id)
    with pytest.raises(core.IllegalMove):
        games.submit(game_id, seat, bad)
    wrong_seat = (seat + 1) % 3
    with pytest.raises(core.IllegalMove, match="turn"):
        games.submit(game_id, wrong_seat, first_legal(games, game_id)[1])
    assert store.read_raw(game_id) == before


def test_a_stale_expected_seq_is_a_conflict(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=1, forced_moves="ask")
    seat, move = first_legal(games, game_id)
    games.submit(game_id, seat, move)
    length = store.length(game_id)
    seat, move = first_legal(games, game_id)
    with pytest.raises(Conflict, match=f"at seq {length}, not 2"):
        games.submit(game_id, seat, move, expected_seq=2)
    assert store.length(game_id) == length
    games.submit(game_id, seat, move, expected_seq=length)


def test_a_repeated_command_returns_the_first_result(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=1, forced_moves="ask")
    seat, move = first_legal(games, game_id)
    first = games.submit(game_id, seat, move, command_id="same")
    length = store.length(game_id)
    again = Games(store).submit(game_id, seat, move, command_id="same")
    assert again.duplicate and again.events == first.events and again.seq == first.seq
    assert store.length(game_id) == length


def test_a_command_id_reused_for_another_move_or_seat_is_refused(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=5, forced_moves="ask")  # seat 1 holds 1Sp and leads
    games.submit(game_id, 1, "play 1Sp", command_id="c")
    length = store.length(game_id)
    assert Games(store).submit(game_id, 1, "PLAY 1sp", command_id="c").duplicate  # the same move, spelled otherwise
    seat, move = first_legal(games, game_id)
    for other_seat, other_move in ((1, "play 2Sp"), (seat, move), (1, "no such move")):
        with pytest.raises(CommandIdReused, match="command id 'c' was used for another move"):
            Games(store).submit(game_id, other_seat, other_move, command_id="c")
        with pytest.raises(CommandIdReused):  # also when the writer's seq is the log's
            games.submit(game_id, other_seat, other_move, command_id="c", expected_seq=length)
    assert store.length(game_id) == length


def test_another_process_sees_every_move(store: Store) -> None:
    writer, reader = Games(store), Games(store)
    game_id = writer.create("holly-oak", 3, seed=3)
    reader.table(game_id)  # cached at the start
    for _ in range(5):
        writer.submit(game_id, *first_legal(writer, game_id))
    assert reader.table(game_id).events == writer.table(game_id).events


def play(games: Games, game_id: str, moves: int) -> None:
    for _ in range(moves):
        games.submit(game_id, *first_legal(games, game_id))


@pytest.mark.parametrize("then", ["shorter", "as long, other moves"])
def test_a_table_ahead_of_its_log_or_of_another_log_is_read_again_not_trusted(store: Store, then: str) -> None:
    """A long-running process (a server, a worker) keeps its tables folded. When the log loses
    events such a table has (a Redis restarted from an append-only file it had not yet written:
    docs/durability.md), or an import replaces it, the table is not of the log any more. It was
    trusted: a shorter log read from the table's end looked like a log with nothing new, so every
    move was refused as stale ("is at seq 2, not 5"), for as long as the table stayed cached."""
    from replays.archive import restore
    from replays.log import from_store

    server, other = Games(store), Games(store)
    game_id = server.create("holly-oak", 3, seed=3)
    play(server, game_id, 2)
    earlier = from_store(store, game_id)
    play(server, game_id, 3)
    ahead = server.table(game_id)  # cached here, five moves in
    if then == "shorter":
        restore(store.redis, earlier, replace=True, force=True)
    else:  # the same length, but another move at the end
        restore(store.redis, earlier, replace=True, force=True)
        play(other, game_id, 2)
        seat = other.table(game_id).to_act[0]
        other.submit(game_id, seat, other.table(game_id).legal_moves(seat)[-1])
    truth = other.table(game_id)
    assert truth.seq == (len(earlier.envelopes) if then == "shorter" else ahead.seq)
    with pytest.raises(Conflict, match=f"is at seq {truth.seq}, not {ahead.seq + 1}"):
        server.submit(game_id, *first_legal(other, game_id), expected_seq=ahead.seq + 1)
    assert server.table(game_id).events == truth.events
    seat, move = first_legal(other, game_id)
    assert server.submit(game_id, seat, move, expected_seq=truth.seq).seq == truth.seq
    play(server, game_id, 1)  # without an expected seq too
    assert other.table(game_id).events == server.table(game_id).events


def test_a_move_expected_at_a_seq_the_log_lost_is_refused_once_and_the_table_forgotten(store: Store) -> None:
    """A table held at exactly the seq a move expects is used without a read (one round trip saved
    a move); the append's conflict is then the only news of a shorter log."""
    from replays.archive import restore
    from replays.log import from_store

    server = Games(store)
    game_id = server.create("holly-oak", 3, seed=3)
    play(server, game_id, 1)
    earlier = from_store(store, game_id)
    play(server, game_id, 3)
    held = server.table(game_id)
    restore(store.redis, earlier, replace=True, force=True)
    seat = held.to_act[0]
    with pytest.raises(Conflict, match=f"is at seq {len(earlier.envelopes)}, not {held.seq}"):
        server.submit(game_id, seat, held.legal_moves(seat)[0], expected_seq=held.seq)
    assert server.table_at(game_id, held.seq).seq == len(earlier.envelopes)  # forgotten: read again


def test_a_move_expected_at_a_seq_the_log_has_on_another_chain_is_refused_and_the_table_forgotten(store: Store) -> None:
    """A Sentinel failover's promoted replica may lack the old master's last event and get another
    at its seq: a table held at exactly that seq is used unread, and its move was sealed onto the
    lost event (a broken hash chain, bench/failover.py's workers run, 3 runs in 100). The append
    refuses it (the log's last hash is not the move's prev) and the table is read again."""
    from replays.archive import restore
    from replays.log import from_store

    server, other = Games(store), Games(store)
    game_id = server.create("holly-oak", 3, seed=3)
    play(server, game_id, 2)
    earlier = from_store(store, game_id)
    seat, _move = first_legal(server, game_id)
    server.submit(game_id, seat, server.table(game_id).legal_moves(seat)[0])
    held = server.table(game_id)  # the old master's last move, which the replica never got
    restore(store.redis, earlier, replace=True, force=True)
    other.submit(game_id, seat, other.table(game_id).legal_moves(seat)[-1])  # another, at that seq
    truth = other.table(game_id)
    assert truth.seq == held.seq and truth.events != held.events
    with pytest.raises(Conflict, match="is not the one this writer read"):
        server.submit(game_id, held.to_act[0], held.legal_moves(held.to_act[0])[0], expected_seq=held.seq)
    assert store.length(game_id) == truth.seq
    assert server.table_at(game_id, held.seq).events == truth.events  # forgotten: read again
    assert server.submit(game_id, *first_legal(other, game_id), expected_seq=truth.seq).seq == truth.seq


def test_unknown_game(games: Games) -> None:
    with pytest.raises(UnknownGame, match="no game 'nope'"):
        games.table("nope")


def test_a_finished_game_reveals_its_seed_last(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=8)
    pick = Rng(8, 0)
    table = games.table(game_id)
    while table.to_act:
        seat = table.to_act[0]
        moves = table.legal_moves(seat)
        games.submit(game_id, seat, moves[pick.below(len(moves))])
        table = games.table(game_id)
    last = store.read(game_id)[-1]
    assert last.event == core.SeedRevealed(seed_hex(8)) and last.actor is None
    assert table.outcome is not None


def check_log(store: Store, game_id: str) -> list:
    envelopes = store.read(game_id)
    assert [e.seq for e in envelopes] == list(range(len(envelopes)))
    prev = GENESIS
    for env in envelopes:
        assert env.prev == prev and env.hash == env.expected_hash()
        prev = env.hash
    return envelopes


def test_racing_writers_lose_nothing_and_duplicate_nothing(store: Store) -> None:
    game_id = Games(store).create("holly-oak", 4, seed=5, forced_moves="ask")
    accepted: list[str] = []
    refused: list[str] = []
    lock = threading.Lock()

    def player(worker: int) -> None:
        games = Games(store)  # a process of its own: its own cache
        pick = Rng(worker, 0)
        for turn in range(400):
            table = games.table(game_id)
            if not table.to_act:
                return
            seat = table.to_act[0]
            moves = table.legal_moves(seat)
            command_id = f"w{worker}-{turn}"
            try:
                games.submit(game_id, seat, moves[pick.below(len(moves))], command_id=command_id)
            except core.IllegalMove:
                with lock:
                    refused.append(command_id)  # the race moved the game on: the move went stale
                continue
            with lock:
                accepted.append(command_id)

    threads = [threading.Thread(target=player, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    envelopes = check_log(store, game_id)
    logged = [e.command_id for e in envelopes if e.command_id is not None]
    assert sorted(logged) == sorted(accepted)  # every accepted command exactly once, nothing else
    assert len(set(logged)) == len(logged)
    assert refused, "the threads never raced: the test proved nothing"
    final = Games(store).table(game_id)
    assert final.outcome is not None
    assert core.replay_table("holly-oak", [e.event for e in envelopes]).state == final.state


def test_one_command_sent_by_many_at_once_is_played_once(store: Store) -> None:
    game_id = Games(store).create("holly-oak", 3, seed=9)
    seat, move = first_legal(Games(store), game_id)
    command_id = uuid.uuid4().hex
    results = []

    def send() -> None:
        results.append(Games(store).submit(game_id, seat, move, command_id=command_id))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    envelopes = check_log(store, game_id)
    assert [e.command_id for e in envelopes].count(command_id) == 1
    assert len(results) == 8 and sum(not r.duplicate for r in results) == 1
    assert len({tuple(e.hash for e in r.events) for r in results}) == 1


def test_one_games_shared_by_threads_keeps_every_table_true(store: Store) -> None:
    """A web server's thread pool shares one Games: threads on one game and on others, with a
    cache smaller than the games so tables are evicted and refolded while others play."""
    shared = Games(store, cache_size=2)
    game_ids = [shared.create("holly-oak", 3, seed=seed, forced_moves="ask") for seed in (21, 22, 23)]
    played: list[str] = []
    lock = threading.Lock()

    def player(worker: int) -> None:
        game_id = game_ids[worker % len(game_ids)]
        pick = Rng(worker, 1)
        for turn in range(60):
            table = shared.table(game_id)
            if not table.to_act:
                return
            seat = table.to_act[0]
            moves = table.legal_moves(seat)
            try:
                shared.submit(game_id, seat, moves[pick.below(len(moves))], command_id=f"s{worker}-{turn}")
            except core.IllegalMove:
                continue  # the other thread on this game moved first
            with lock:
                played.append(game_id)

    threads = [threading.Thread(target=player, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for game_id in game_ids:
        envelopes = check_log(store, game_id)
        assert played.count(game_id) == sum(e.command is not None for e in envelopes)
        replayed = core.replay_table("holly-oak", [e.event for e in envelopes])
        assert shared.table(game_id).state == replayed.state and Games(store).table(game_id).state == replayed.state


def test_a_seat_token_check_rides_on_the_append_and_a_refusal_writes_nothing(games: Games, store: Store):
    seats = Seats(store.redis)
    game_id = games.create("holly-oak", 3, seed=4, forced_moves="ask")
    tokens = {seat: seats.issue(game_id, seat) for seat in range(3)}
    table = games.table(game_id)
    while True:  # up to the game's last move: a refusal there must not even list the game as over
        seat = table.to_act[0]
        move = table.legal_moves(seat)[0]
        last = table.copy()
        last.play(seat, move)
        if last.outcome is not None:
            break
        check = seats.check(tokens[seat], 600, 10**6)
        games.submit(game_id, seat, move, check=check)
        assert check.done  # run by the append itself
        table = games.table(game_id)
    before = written(store.redis, game_id)
    with pytest.raises(NotASeat):
        games.submit(game_id, seat, move, check=seats.check(forged(tokens[seat]), 600, 10**6))
    assert written(store.redis, game_id) == before
    games.submit(game_id, seat, move, check=seats.check(tokens[seat], 600, 10**6))
    assert games.table(game_id).outcome is not None
