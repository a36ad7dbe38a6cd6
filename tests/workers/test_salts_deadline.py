"""The salts' deadline (workers.deadlines.watch_salts): dispatch queues its look in a game with a
clock whose deal waits for salts; not due, it schedules itself; due, it closes the salts (the
seats that sent none silent) and the deal follows; run again, nothing."""

from __future__ import annotations

import pytest

import core
from events import clock as clocks
from events.commands import Games
from events.store import Store
from replays.log import from_store
from replays.verify import verify
from tests.workers.test_deadlines import S, back_dated, drop_jobs, game_jobs, now_ms
from workers import deadlines
from workers.dispatch import Dispatcher, salts_deadline_job_id, salts_watch_job_id


@pytest.fixture
def made(store: Store, queue_client):
    games: list[str] = []
    yield games
    for game_id in games:
        drop_jobs(queue_client, game_id)
        store.delete(game_id)


def test_dispatch_watches_the_salts_only_in_a_game_with_a_clock(store: Store, queue_client, made) -> None:
    dispatching = Games(store, dispatch=Dispatcher(queue_client))
    clocked = dispatching.create("holly-oak", 3, seed=1, clock=clocks.settings("1h"), salt_seats=[0, 1, 2])
    plain = dispatching.create("holly-oak", 3, seed=1, salt_seats=[0, 1, 2])
    made += [clocked, plain]
    assert game_jobs(queue_client, clocked) == [salts_watch_job_id(clocked, 3)]  # GameStarted, SaltsAwaited, ClockSet
    assert game_jobs(queue_client, plain) == []


def test_the_salts_deadline_closes_them_and_deals(store: Store, queue_client, monkeypatch, cli_env, made) -> None:
    monkeypatch.setenv("PBM_HOME", cli_env["PBM_HOME"])
    games, wall = back_dated(store, 100)
    early = games.create("holly-oak", 3, seed=4, clock=clocks.settings("1h"), salt_seats=[0, 1, 2])
    due = wall.now + 3600 * S
    made.append(early)
    looked = deadlines.watch_salts(early)
    assert looked == {"status": "waiting", "due_ms": due, "scheduled": [salts_deadline_job_id(early, due)]}
    assert games.table(early).waiting_for_salts == (0, 1, 2)

    game_id = games.create("holly-oak", 3, seed=4, clock=clocks.settings("60s"), salt_seats=[0, 1, 2])
    made.append(game_id)
    games.give_salt(game_id, 1, "bob's")
    done = deadlines.watch_salts(game_id)
    assert done["status"] == "closed" and done["silent"] == [0, 2]
    table = games.table(game_id)
    assert not table.waiting_for_salts and table.to_act and table.salts == ("bob's",)
    closed = [env.event for env in store.read(game_id) if isinstance(env.event, core.SaltsClosed)]
    assert closed == [core.SaltsClosed(silent=(0, 2))]
    length = store.length(game_id)
    assert deadlines.watch_salts(game_id)["status"] == "stale" and store.length(game_id) == length
    assert verify(from_store(store, game_id), seed=store.seed(game_id)).ok
