"""The salts' deadline (workers.deadlines.watch_salts): dispatch queues its look in a game whose
deal waits for salts (recovery queues it again if a crash lost it); not due, it schedules itself;
due (one move's time with a clock, two days without one), it closes the salts (the seats that sent
none silent, salted from the seed) and the deal follows; run again, nothing."""

from __future__ import annotations

import pytest

import core
from core.rng import silent_salt
from events import clock as clocks
from events import keys
from events.commands import Games
from events.store import Store
from replays.log import from_store
from replays.verify import verify
from tests.workers.test_deadlines import S, back_dated, drop_jobs, game_jobs, now_ms
from workers import deadlines
from workers.dispatch import Dispatcher, salts_deadline_job_id, salts_watch_job_id
from workers.recovery import recover


@pytest.fixture
def made(store: Store, queue_client):
    games: list[str] = []
    yield games
    for game_id in games:
        drop_jobs(queue_client, game_id)
        store.delete(game_id)


def test_dispatch_watches_the_salts_in_a_game_with_a_clock_or_without(store: Store, queue_client, made) -> None:
    dispatching = Games(store, dispatch=Dispatcher(queue_client))
    clocked = dispatching.create("holly-oak", 3, seed=1, clock=clocks.settings("1h"), salt_seats=[0, 1, 2])
    plain = dispatching.create("holly-oak", 3, seed=1, salt_seats=[0, 1, 2])
    made += [clocked, plain]
    assert game_jobs(queue_client, clocked) == [salts_watch_job_id(clocked, 3)]  # GameStarted, SaltsAwaited, ClockSet
    assert game_jobs(queue_client, plain) == [salts_watch_job_id(plain, 2)]


def test_recovery_queues_the_salts_look_a_crash_lost(store: Store, queue_client, made) -> None:
    silent = Games(store)  # a writer that dies before it dispatches
    clocked = silent.create("holly-oak", 3, seed=2, clock=clocks.settings("1h"), salt_seats=[0, 1, 2])
    plain = silent.create("holly-oak", 3, seed=2, salt_seats=[0, 1])
    made += [clocked, plain]
    assert game_jobs(queue_client, clocked) == game_jobs(queue_client, plain) == []
    expected = [salts_watch_job_id(clocked, 3), salts_watch_job_id(plain, 2)]
    recovered = recover(store.redis, queue_client)
    assert all(job_id in recovered for job_id in expected)
    assert not any(job_id in recover(store.redis, queue_client) for job_id in expected)  # queued: alive, not queued twice
    assert game_jobs(queue_client, clocked) == [expected[0]] and game_jobs(queue_client, plain) == [expected[1]]


def test_without_a_clock_the_salts_close_two_days_after_the_commitment(store: Store, queue_client, monkeypatch, cli_env, made) -> None:
    monkeypatch.setenv("PBM_HOME", cli_env["PBM_HOME"])
    games, wall = back_dated(store, 100)
    fresh = games.create("holly-oak", 3, seed=5, salt_seats=[0, 1, 2])
    made.append(fresh)
    due = wall.now + clocks.SALTS_WITHOUT_CLOCK_S * S
    assert deadlines.watch_salts(fresh) == {"status": "waiting", "due_ms": due, "scheduled": [salts_deadline_job_id(fresh, due)]}
    assert store.redis.zscore(keys.CLOCKED_GAMES, fresh) is not None  # recovery's candidate while the salts are open

    games, _wall = back_dated(store, clocks.SALTS_WITHOUT_CLOCK_S + 100)
    late = games.create("holly-oak", 3, seed=5, salt_seats=[0, 1, 2])
    made.append(late)
    games.give_salt(late, 2, "cy's")
    done = deadlines.watch_salts(late)
    assert done["status"] == "closed" and done["silent"] == [0, 1]
    table = games.table(late)
    assert table.to_act and table.clock is None and table.salts == (silent_salt(5, 0), silent_salt(5, 1), "cy's")
    assert store.redis.zscore(keys.CLOCKED_GAMES, late) is None  # dealt: no deadline is left in it
    assert deadlines.watch_salts(late)["status"] == "stale"
    assert verify(from_store(store, late), seed=store.seed(late)).ok


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
    assert not table.waiting_for_salts and table.to_act and table.salts == (silent_salt(4, 0), "bob's", silent_salt(4, 2))
    closed = [env.event for env in store.read(game_id) if isinstance(env.event, core.SaltsClosed)]
    assert closed == [core.SaltsClosed(silent=(0, 2), from_seed=True)]
    length = store.length(game_id)
    assert deadlines.watch_salts(game_id)["status"] == "stale" and store.length(game_id) == length
    assert verify(from_store(store, game_id), seed=store.seed(game_id)).ok
