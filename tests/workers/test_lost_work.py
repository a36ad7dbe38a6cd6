"""No bot turn is lost for good: a job popped by a worker that dies before it starts the job stays
in one of rq's lists, recovery takes a queued job found in no list for lost, and an idle worker's
recovery finds lost work within 30 s, with no worker restarting. Real workers on the test Redis."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from rq import Queue
from rq.job import Job, JobStatus
from rq.worker import Worker

from events.commands import Games
from events.store import Store
from workers.dispatch import AI_QUEUE, Dispatcher, turn_job_id
from workers.worker import RECOVERY_BOUND_S

from tests.workers.test_rq import assert_played_once, run_worker

# A worker's own dequeue, then death before the job starts: what a SIGKILL right after the pop leaves.
POP_AND_DIE = """
import os, signal
from events.server import connect
from workers.worker import make_worker
worker = make_worker(connect())
job, queue = worker.queue_class.dequeue_any(worker.queues, 5, connection=worker.connection)
print(job.id, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def bot_only_game(store: Store, seed: int) -> tuple[Games, str, str]:
    games = Games(store, dispatch=Dispatcher(store.redis))
    game_id = games.create("holly-oak", 3, seed=seed, bots={0: "random", 1: "random", 2: "random"})
    table = games.table(game_id)
    return games, game_id, turn_job_id(game_id, table.seq, table.to_act[0])


def pbm_recover(cli_env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pbm", "recover", "--json"], env={**os.environ, **cli_env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["queued"]


def in_some_list(store: Store, job_id: str) -> bool:
    queue = Queue(AI_QUEUE, connection=store.redis)
    return any(store.redis.lpos(key, job_id) is not None for key in (queue.key, queue.intermediate_queue_key))


def test_a_queued_turn_taken_out_of_its_queue_is_recovered(store: Store, cli_env) -> None:
    games, game_id, job_id = bot_only_game(store, seed=21)
    queue = Queue(AI_QUEUE, connection=store.redis)
    assert store.redis.lpop(queue.key).decode() == job_id  # the reproduction: LPOP rq:queue:pbm-ai
    assert Job.fetch(job_id, connection=store.redis).get_status() == JobStatus.QUEUED  # queued, in no list
    assert job_id in pbm_recover(cli_env)
    assert job_id not in pbm_recover(cli_env)  # requeued once: now it is in its queue again
    assert run_worker(cli_env, "--burst", "--no-recover").returncode == 0
    assert games.table(game_id).outcome is not None
    assert_played_once(store, game_id)


def test_a_worker_killed_right_after_its_pop_loses_no_turn(store: Store, cli_env) -> None:
    games, game_id, job_id = bot_only_game(store, seed=22)
    died = subprocess.run([sys.executable, "-c", POP_AND_DIE], env={**os.environ, **cli_env}, capture_output=True, text=True, timeout=60)
    assert died.returncode == -9 and died.stdout.strip() == job_id, died.stderr
    assert in_some_list(store, job_id), "the popped job must stay in one of rq's lists"
    assert Job.fetch(job_id, connection=store.redis).get_status() == JobStatus.QUEUED
    assert job_id in pbm_recover(cli_env)
    assert not Queue(AI_QUEUE, connection=store.redis).intermediate_queue.get_job_ids()  # no stale copy left
    assert run_worker(cli_env, "--burst", "--no-recover").returncode == 0
    assert games.table(game_id).outcome is not None
    assert_played_once(store, game_id)


def test_an_idle_worker_finds_lost_work_within_the_bound_without_a_restart(store: Store, cli_env) -> None:
    worker = subprocess.Popen(
        [sys.executable, "-m", "pbm", "worker"], env={**os.environ, **cli_env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not any(w.pid == worker.pid and w.get_state() == "idle" for w in Worker.all(connection=store.redis)):
            assert time.monotonic() < deadline and worker.poll() is None, "the worker never got going"
            time.sleep(0.1)
        silent = Games(store)  # a writer that dies between its append and its enqueue: nothing queued
        game_id = silent.create("holly-oak", 3, seed=23, bots={0: "random", 1: "random", 2: "random"})
        lost_at, length = time.monotonic(), store.length(game_id)
        while store.length(game_id) == length:
            waited = time.monotonic() - lost_at
            assert waited < RECOVERY_BOUND_S, f"no recovery {waited:.0f} s after the work was lost"
            time.sleep(0.2)
        print(f"lost work found and played after {time.monotonic() - lost_at:.1f} s")
    finally:
        worker.terminate()
        worker.wait(timeout=30)
