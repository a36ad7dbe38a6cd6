"""Deadlines on the real (test) Redis and rq: the deadline job's decisions (in time, paused,
extended, on vacation, stale, due), what dispatch and recovery queue (nothing for a game without
a deadline), and a game of people with a deadline of two seconds played on by the autopilot
through a real `pbm worker` and its scheduler, a seat handed to the autopilot after two timeouts
in a row and back when its player moves through the API."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import ScheduledJobRegistry

import core
from events import clock as clocks
from events.commands import Games
from events.store import Store
from pbm import clock_control as game_clocks
from pbm.web import create_app
from replays.audit import audit
from replays.log import from_store
from replays.verify import verify
from tests.web.conftest import ADMIN, TestClient, bearer
from workers import deadlines
from workers.dispatch import AI_QUEUE, NOTIFY_FUNCTION, NOTIFY_QUEUE, Dispatcher, deadline_job_id, job_key, watch_job_id
from workers.recovery import recover

S = 1000


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Wall:
    def __init__(self, at: int) -> None:
        self.now = at

    def __call__(self) -> int:
        return self.now


def game_jobs(queue_client, game_id: str, popped: bool = False) -> list[str]:
    """The rq job ids of a game, queued or scheduled (or `popped`: in an intermediate list, where a
    worker stopped between its pop and the job leaves one), on the turn and notice queues."""
    key = f"-{job_key(game_id)}-"
    queues = [Queue(name, connection=queue_client) for name in (AI_QUEUE, NOTIFY_QUEUE)]
    places = [*queues, *(ScheduledJobRegistry(queue=queue) for queue in queues)]
    places += [queue.intermediate_queue for queue in queues] if popped else []
    return sorted({job_id for place in places for job_id in place.get_job_ids() if key in job_id})


def drop_jobs(queue_client, game_id: str) -> None:
    """Take a game's jobs off rq (queued, scheduled or popped): no later test's worker acts on them
    (a deadline job left scheduled would be moved to its queue by the next scheduler that runs; a
    popped one left in an intermediate list is another test's stale copy)."""
    queues = [Queue(name, connection=queue_client) for name in (AI_QUEUE, NOTIFY_QUEUE)]
    for job_id in game_jobs(queue_client, game_id, popped=True):
        for queue in queues:
            ScheduledJobRegistry(queue=queue).remove(job_id)
            queue.intermediate_queue.remove(job_id)
        try:
            Job.fetch(job_id, connection=queue_client).delete()
        except NoSuchJobError:
            pass


@pytest.fixture
def jobs_of(queue_client, store: Store):
    """The rq job ids of a game (queued or scheduled); at the end, the test's games and their jobs
    are deleted, so no later worker acts on them."""
    made: set[str] = set()

    def ids(game_id: str) -> list[str]:
        made.add(game_id)
        return game_jobs(queue_client, game_id)

    yield ids
    for game_id in made:
        drop_jobs(queue_client, game_id)
        store.delete(game_id)


@pytest.fixture
def in_process(monkeypatch, cli_env):
    """The deadline job run in this process, on the test's Redis (as a worker would run it)."""
    monkeypatch.setenv("PBM_HOME", cli_env["PBM_HOME"])
    return deadlines


def back_dated(store: Store, seconds_ago: float) -> tuple[Games, Wall]:
    wall = Wall(now_ms() - int(seconds_ago * S))
    return Games(store, clock=wall), wall


def test_a_game_without_a_deadline_schedules_nothing(store: Store, queue_client, jobs_of) -> None:
    dispatching = Games(store, dispatch=Dispatcher(queue_client))
    game_id = dispatching.create("holly-oak", 3, seed=1)
    table = dispatching.table(game_id)
    dispatching.submit(game_id, table.to_act[0], table.legal_moves(table.to_act[0])[0])
    assert jobs_of(game_id) == []
    assert not any(game_id in job_id for job_id in recover(store.redis, queue_client))
    clocked = dispatching.create("holly-oak", 3, seed=1, clock=clocks.settings("1h"))
    seat = dispatching.table(clocked).to_act[0]
    assert jobs_of(clocked) == [watch_job_id(clocked, dispatching.table(clocked).seq, seat)]


def test_recovery_queues_the_deadline_look_a_crash_lost(store: Store, queue_client, jobs_of) -> None:
    silent = Games(store)  # a writer that dies before it dispatches
    game_id = silent.create("holly-oak", 3, seed=2, clock=clocks.settings("1h"))
    table = silent.table(game_id)
    assert jobs_of(game_id) == []
    expected = watch_job_id(game_id, table.seq, table.to_act[0])
    assert expected in recover(store.redis, queue_client)
    assert expected not in recover(store.redis, queue_client)  # queued: alive, not queued twice


def test_due_and_still_waiting_the_autopilot_moves_once(store: Store, in_process, jobs_of) -> None:
    games, _wall = back_dated(store, 100)
    game_id = games.create("holly-oak", 3, seed=3, clock=clocks.settings("60s"))
    table = games.table(game_id)
    seat = table.to_act[0]
    turn = clocks.Clock.read(store.read(game_id)).turn
    done = in_process.watch(game_id, seat)
    assert done["status"] == "timed out" and done["move"] in table.legal_moves(seat)
    envelopes = store.read(game_id)
    timed_out, moved = envelopes[table.seq], envelopes[table.seq + 1]
    assert timed_out.event == core.TurnTimedOut(seat=seat, turn=turn) and timed_out.actor is None
    assert moved.actor == seat and moved.command == done["move"] and moved.command_id == f"timeout:{turn}:{seat}"
    length = store.length(game_id)
    assert in_process.watch(game_id, seat)["status"] == "stale"  # run again: nothing more
    assert in_process.watch(game_id, seat, turn)["status"] == "stale"
    assert store.length(game_id) == length
    assert verify(from_store(store, game_id), seed=store.seed(game_id)).ok
    jobs_of(game_id)


def test_a_stale_deadline_job_does_nothing(store: Store, in_process, jobs_of) -> None:
    games, wall = back_dated(store, 100)
    game_id = games.create("holly-oak", 3, seed=4, clock=clocks.settings("60s"))
    seat = games.table(game_id).to_act[0]
    old_turn = clocks.Clock.read(store.read(game_id)).turn
    wall.now += 30 * S  # the seat moved in time, 70 s ago
    games.submit(game_id, seat, games.table(game_id).legal_moves(seat)[0])
    length = store.length(game_id)
    assert in_process.watch(game_id, seat, old_turn)["status"] == "stale"
    assert store.length(game_id) == length
    following = games.table(game_id).to_act[0]  # its turn began 70 s ago: due 10 s ago
    assert in_process.watch(game_id, following, clocks.Clock.read(store.read(game_id)).turn)["status"] == "timed out"
    jobs_of(game_id)


def scheduled_at(queue_client, job_id: str) -> int | None:
    registry = ScheduledJobRegistry(AI_QUEUE, connection=queue_client)
    when = registry.get_scheduled_time(job_id) if job_id in registry else None
    return None if when is None else int(when.timestamp() * S)


def test_pause_resume_extend_and_vacation_change_when_the_deadline_job_acts(store: Store, queue_client, in_process, jobs_of) -> None:
    # created 100 s ago with 60 s a move: due 40 s ago, unless the clock stood still
    for change in ("pause", "resume", "extend", "vacation"):
        games, wall = back_dated(store, 100)
        created = wall.now
        game_id = games.create("holly-oak", 3, seed=5, clock=clocks.settings("60s", vacation_days=2))
        seat = games.table(game_id).to_act[0]
        turn = clocks.Clock.read(store.read(game_id)).turn
        wall.now = created + 10 * S
        game_clocks.pause(games, game_id)
        if change == "pause":  # paused 90 s ago and never resumed: it waits for the resume
            assert in_process.watch(game_id, seat)["status"] == "paused"
            assert store.read(game_id)[-1].kind == core.ClockPaused.kind
            continue
        wall.now = created + 90 * S
        game_clocks.resume(games, game_id)  # 80 s paused: due 40 s from now
        due = created + 140 * S
        if change == "extend":
            game_clocks.extend(games, game_id, "1h")
            due += 3600 * S
        if change == "vacation":
            game_clocks.take_vacation(games, game_id, seat, 1)  # from 10 s ago, for a day
            due += 86_400 * S - 0
        looked = in_process.watch(game_id, seat)
        assert looked == {"status": "waiting", "due_ms": due, "scheduled": [deadline_job_id(game_id, turn, seat, due)]}
        assert scheduled_at(queue_client, deadline_job_id(game_id, turn, seat, due)) == -(-due // S) * S  # rounded up
        assert in_process.watch(game_id, seat)["scheduled"] == []  # the same due time: one job
        assert store.read(game_id)[-1].kind != core.TurnTimedOut.kind
        jobs_of(game_id)


def test_a_reminder_is_queued_when_due_soon_and_not_when_the_due_time_moved(store: Store, queue_client, in_process, jobs_of) -> None:
    games, _wall = back_dated(store, 50)
    game_id = games.create("holly-oak", 3, seed=6, clock=clocks.settings("60s", "20s"))
    seat = games.table(game_id).to_act[0]
    turn = clocks.Clock.read(store.read(game_id)).turn
    told = in_process.remind(game_id, seat, turn, 20)
    assert told["status"] == "reminded"
    notices = [job_id for job_id in jobs_of(game_id) if job_id.startswith("pbm-notify-")]
    assert len(notices) == 1 and Job.fetch(notices[0], connection=queue_client).func_name == NOTIFY_FUNCTION
    args = Job.fetch(notices[0], connection=queue_client).args
    assert args[:4] == (game_id, seat, "reminder", store.length(game_id)) and "left to move" in args[4]
    game_clocks.extend(games, game_id, "1h")
    assert in_process.remind(game_id, seat, turn, 20)["status"] == "moved"


def wait_for(condition, what: str, limit_s: float = 120):
    give_up = time.monotonic() + limit_s
    while True:
        found = condition()
        if found:
            return found
        assert time.monotonic() < give_up, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_the_autopilot_moves_a_timed_out_seat_through_a_real_worker_and_its_player_takes_it_back(
    store: Store, queue_client, cli_env, jobs_of, tmp_path
) -> None:
    games = Games(store, dispatch=Dispatcher(queue_client))
    app = create_app(store.redis, games=games, admin_token=ADMIN)
    with TestClient(app) as client:
        body = {"game": "holly-oak", "players": 3, "seats": [{"name": n} for n in ("Ann", "Bob", "Cy")], "deadline": "2s", "autopilot_after": 2, "late_salts": False}
        created = client.post("/api/games", json=body, headers=bearer(ADMIN))
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        jobs_of(game_id)  # its jobs and itself are dropped at the end, whatever happens
        tokens = {seat["seat"]: seat["token"] for seat in created.json()["seats"]}
        first = games.table(game_id).to_act[0]
        me = client.get("/api/me", headers=bearer(tokens[first])).json()
        assert me["deadline"] and me["clock"]["deadline"]["seat"] == first
        page = client.get(f"/play/{tokens[first]}").text
        assert "Your move</span>" not in page and "Your move is due <time" in page
        said = (tmp_path / "worker.err").open("w")
        worker = subprocess.Popen([sys.executable, "-m", "pbm", "worker"], env={**os.environ, **cli_env}, stdout=subprocess.DEVNULL, stderr=said)
        try:
            def events() -> list:
                return store.read(game_id)

            # The first seat's deadline passes: the timeout, then the autopilot's move.
            wait_for(lambda: any(env.kind == core.TurnTimedOut.kind for env in events()), "the first timeout")
            log = events()
            at = next(env.seq for env in log if env.kind == core.TurnTimedOut.kind)
            wait_for(lambda: store.length(game_id) > at + 1, "the autopilot's move")
            moved = store.read(game_id, at + 1, at + 1)[0]
            assert moved.actor == first and moved.command_id == f"timeout:{log[at].event.turn}:{first}"
            # After two timeouts in a row the autopilot plays the seat.
            def handed() -> bool:
                return any(env.kind == core.BotsSeated.kind and first in dict(env.event.bots) for env in events())

            wait_for(handed, "the seat handed to the autopilot")
            assert games.table(game_id).bots.get(first) == clocks.AUTOPILOT
            # Its player comes back: a move from its token hands the seat back (refused if it is not
            # its turn, but handed back all the same), then its next turn waits for them.
            tried = client.post("/api/me/moves", json={"move": "play 1Sp"}, headers=bearer(tokens[first]))
            assert tried.status_code in (200, 422), tried.text
            wait_for(lambda: first not in games.table(game_id).bots, "the seat handed back")
            def my_turn():
                table = games.table(game_id)
                return table if first in table.to_act and first not in table.bots else None

            def play_mine(key: str):
                table = wait_for(my_turn, "the player's own turn")
                return client.post(
                    "/api/me/moves",
                    json={"move": table.legal_moves(first)[0], "expected_seq": table.seq},
                    headers=bearer(tokens[first]) | {"Idempotency-Key": key},
                )

            played = play_mine("mine-1")
            if played.status_code == 409:  # the deadline of two seconds passed first: the next turn then
                played = play_mine("mine-2")
            assert played.status_code == 200, played.text
        finally:
            worker.terminate()
            worker.wait(timeout=60)
        log = from_store(store, game_id)
        mine = next(env for env in log.envelopes if (env.command_id or "").startswith(f"web:{first}:mine-"))
        assert mine.actor == first
        after = clocks.Clock.read(log.envelopes[: mine.seq + 1])
        assert after.timeouts_in_a_row[first] == 0 and len(after.timeouts) >= 2
        assert verify(log, seed=store.seed(game_id)).ok
        text, _report = audit(log)
        assert "## Clock" in text and "timed out: the autopilot moved" in text
        said.close()
        assert "Traceback" not in (tmp_path / "worker.err").read_text()
        jobs_of(game_id)


def test_the_scheduler_waits_out_a_lost_redis_and_goes_on() -> None:
    """A worker outlives a Redis restart (tests/test_redis_failures.py); so must its scheduler,
    or no deadline would act from that worker again."""
    from datetime import UTC, datetime, timedelta

    import redis

    from tests.real_redis import REDIS_SERVER, redis_server
    from workers.worker import SchedulerThread

    with redis_server() as (url, admin):
        port = admin.connection_pool.connection_kwargs["port"]
        scheduler = SchedulerThread(redis.Redis.from_url(url), [AI_QUEUE])
        scheduler.start()
        wait_for(lambda: admin.exists(f"rq:scheduler-lock:{AI_QUEUE}"), "the scheduler's lock", 30)
        admin.shutdown(nosave=True)
        wait_for(lambda: scheduler.failure, "the scheduler to meet the lost Redis", 30)
        assert scheduler.is_alive() and "cannot reach" in scheduler.failure
        again = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            client = redis.Redis.from_url(url)
            wait_for(lambda: _answers(client), "the restarted Redis", 30)
            queue = Queue(AI_QUEUE, connection=client)
            queue.enqueue_at(datetime.now(UTC) - timedelta(seconds=1), "workers.jobs.noop", job_id="due-after-restart")
            wait_for(lambda: "due-after-restart" in queue.get_job_ids(), "the due job moved to its queue", 90)
        finally:
            scheduler.stop()
            again.kill()
            again.wait()
        assert not scheduler.is_alive()


def _answers(client) -> bool:
    import redis

    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
