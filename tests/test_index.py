"""The game list and recovery's work list from rows and index keys: true without reading a log,
repaired after a crash between a game's script and its index update, rebuilt by reindex."""

from __future__ import annotations

import json

import pytest
import redis

from events import index, keys
from events.commands import REINDEX_GRACE_MS, Games, status_of
from events.store import Store
from tests.replays.conftest import play_random


def in_set(client: redis.Redis, key: str, game_id: str) -> bool:
    return client.zscore(key, game_id) is not None


def ids(infos) -> set[str]:
    return {info.game_id for info in infos}


def test_rows_say_what_the_folded_log_says(games: Games, store: Store) -> None:
    running = games.create("holly-oak", 3, seed=1)
    games.submit(running, *first_move(games, running))
    finished = games.create("holly-oak", 3, seed=2)
    play_random(games, finished)
    for game_id in (running, finished):
        table = games.table(game_id)
        status = store.info(game_id).status
        assert status.to_act == table.to_act and store.info(game_id).length == table.seq
        assert status.outcome == (None if table.outcome is None else table.outcome.to_dict())
        assert status.since_ms == store.read(game_id, table.seq - 1)[0].time_ms
    assert running in ids(store.games("running")) and running not in ids(store.games("finished"))
    assert finished in ids(store.games("finished")) and finished not in ids(store.games("running"))
    waiting = games.table(running).to_act[0]
    assert running in ids(store.games(waiting_for=waiting))
    assert running not in ids(store.games(waiting_for=(waiting + 1) % 3))
    assert not in_set(store.redis, keys.RUNNING, finished) and in_set(store.redis, keys.UNSUMMARIZED, finished)


def first_move(games: Games, game_id: str) -> tuple[int, str]:
    table = games.table(game_id)
    return table.to_act[0], table.legal_moves(table.to_act[0])[0]


def test_a_lost_index_update_after_the_last_append_is_repaired_by_the_readers(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=3, bots={0: "random"})
    play_random(games, game_id)
    # The process died after the script and before index.ended: still listed as running.
    created = store.info(game_id).created_ms
    index.listed(store.redis, game_id, created, bots=True)
    assert in_set(store.redis, keys.RUNNING, game_id) and in_set(store.redis, keys.BOT_GAMES, game_id)
    assert game_id not in ids(store.games("running")) and game_id not in ids(store.bot_games())
    assert not in_set(store.redis, keys.RUNNING, game_id) and not in_set(store.redis, keys.BOT_GAMES, game_id)
    assert game_id in ids(store.owed_summaries())
    store.redis.set(keys.summary(game_id), "{}")  # a summary written, its index update lost
    assert game_id not in ids(store.owed_summaries()) and not in_set(store.redis, keys.UNSUMMARIZED, game_id)


def test_an_ending_move_that_lost_its_race_leaves_the_game_running(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=4)
    index.ending(store.redis, game_id, 0)  # as the loser of a race at the last move leaves it
    assert game_id in ids(store.games("running")) and game_id not in ids(store.games("finished"))
    assert game_id not in ids(store.owed_summaries()) and in_set(store.redis, keys.UNSUMMARIZED, game_id)


def test_reindex_rebuilds_rows_and_index_from_the_logs(games: Games, store: Store) -> None:
    running = games.create("holly-oak", 3, seed=5, bots={1: "random"})
    finished = games.create("holly-oak", 3, seed=6)
    play_random(games, finished)
    before = {game_id: store.info(game_id) for game_id in (running, finished)}
    # As a game logged before rows were kept: only slug, players and created, and no index.
    for game_id in before:
        store.redis.hdel(keys.meta(game_id), "seq", "to_act", "outcome", "since", "bots")
        for key in index.ALL:
            store.redis.zrem(key, game_id)
    assert store.info(running).status is None and running not in ids(store.games())
    count, problems = games.reindex()
    assert count >= 2 and not {running, finished} & {game_id for game_id, _error in problems}
    assert {game_id: store.info(game_id) for game_id in before} == before
    assert running in ids(store.bot_games()) and finished in ids(store.games("finished"))
    assert finished in ids(store.owed_summaries())


def test_reindex_drops_a_listing_without_a_log_only_once_it_is_old(store: Store, game_id: str) -> None:
    now = [10**12]
    games = Games(store, clock=lambda: now[0])
    index.listed(store.redis, game_id, now[0], bots=True)  # a create that crashed before its script
    games.reindex()
    assert in_set(store.redis, keys.GAMES, game_id)  # it may still be on its way
    now[0] += REINDEX_GRACE_MS + 1
    games.reindex()
    assert not any(in_set(store.redis, key, game_id) for key in index.ALL)


def test_a_row_folded_from_an_older_log_is_not_written(games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=7)
    old = games.table(game_id)
    games.submit(game_id, *first_move(games, game_id))
    stale = status_of(old.game, old.state, old.bots, 0)
    assert not store.set_row(game_id, "holly-oak", 3, 0, old.seq, stale)
    assert store.info(game_id).status.to_act == games.table(game_id).to_act


@pytest.mark.parametrize("state", ["over", ""])
def test_an_unknown_state_is_refused(store: Store, state: str) -> None:
    with pytest.raises(ValueError, match="running or finished"):
        store.games(state)


def test_pbm_list_reads_rows_and_pbm_reindex_reports(pbm, games: Games, store: Store) -> None:
    game_id = games.create("holly-oak", 3, seed=9)
    store.redis.hdel(keys.meta(game_id), "to_act")  # a row that does not know: list folds the log
    listed = {row["game_id"]: row for row in json.loads(pbm("list", "--json").output)}
    assert listed[game_id]["to_act"] == list(games.table(game_id).to_act) and listed[game_id]["since_ms"] is None
    report = json.loads(pbm("reindex", "--json").output)
    assert report["games"] >= 1 and game_id not in [p["game_id"] for p in report["unreadable"]]
    listed = {row["game_id"]: row for row in json.loads(pbm("list", "--json").output)}
    assert listed[game_id]["since_ms"] == store.info(game_id).status.since_ms
