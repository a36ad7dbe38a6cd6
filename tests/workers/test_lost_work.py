"""No bot turn is lost for good: a job popped by a worker that dies before it starts the job stays
in one of rq's lists, recovery takes a queued job found in no list for lost, and an idle worker's
recovery finds lost work within 30 s, with no worker restarting. Real workers on the test Redis."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rq import Queue
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.worker import Worker

from events.commands import Games
from events.store import Store
from workers.dispatch import AI_QUEUE, Dispatcher, turn_job_id
from workers.recovery import process_alive
from workers.worker import RECOVERY_BOUND_S, live_workers, make_worker

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


def test_a_turn_whose_end_was_lost_with_redis_is_retried_by_its_own_worker(store: Store, cli_env) -> None:
    """What a Sentinel failover's promoted replica can hold: a turn's start (status "started" under
    a worker, its execution) but not its end, written to the old master only. The worker lives on,
    idle, so recovery trusts the job; before, it waited out the execution's TTL (minutes). The
    worker's next maintenance retries it instead, and the bots play the game to its end."""
    games, game_id, job_id = bot_only_game(store, seed=24)
    worker = make_worker(store.redis, recovering=False, scheduling=False)
    worker.register_birth()
    try:
        job, _queue = worker.queue_class.dequeue_any(worker.queues, None, connection=worker.connection)
        assert job.id == job_id
        worker.prepare_execution(job)  # the start as SimpleWorker.execute_job writes it; then no end
        worker.prepare_job_execution(job)
        assert Job.fetch(job_id, connection=store.redis).get_status() == JobStatus.STARTED
        assert job_id not in pbm_recover(cli_env)  # started by a live worker: trusted
        worker.run_maintenance_tasks()
        assert Job.fetch(job_id, connection=store.redis).get_status() == JobStatus.QUEUED
        assert not store.redis.smembers(worker.executions_key)
    finally:
        worker.register_death()
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


def process_state(pid: int) -> str:
    """The state letter of /proc/<pid>/stat ('Z': a zombie), or '' once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return ""


def rq_worker_of(store: Store, process: subprocess.Popen) -> Worker | None:
    return next((w for w in Worker.all(connection=store.redis) if w.pid == process.pid), None)


def test_a_zombie_is_dead(tmp_path) -> None:
    """A child killed and not yet reaped keeps its pid: os.kill(pid, 0) succeeds on it."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        assert process_alive(child.pid)
        child.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 30
        while process_state(child.pid) != "Z":
            assert time.monotonic() < deadline, "the child did not become a zombie"
            time.sleep(0.01)
        os.kill(child.pid, 0)  # what liveness was judged by: no error for a zombie
        assert not process_alive(child.pid)
    finally:
        child.wait()  # reaped
    assert not process_alive(child.pid)


def test_a_worker_killed_and_left_unreaped_gives_up_its_turn_within_the_bound(store: Store, cli_env) -> None:
    """As under `pbm simulate --workers N`, whose parent polls its workers only until the first one
    answers: a worker SIGKILLed mid-turn and never reaped is a zombie, and an idle worker took its
    turn over only once its heartbeat ran out (75 s and more); reaped, within the bound."""
    env = {**os.environ, **cli_env}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    games = Games(store, dispatch=Dispatcher(store.redis))
    # A bot that thinks for a minute: its turn is held, started, by whichever worker takes it.
    game_id = games.create("tranquility", 1, seed=31, bots={0: "ismcts:60s"})
    thinker = subprocess.Popen([sys.executable, "-m", "pbm", "worker", "--no-recover"], env=env, **quiet)
    idle = None
    try:
        registry = StartedJobRegistry(AI_QUEUE, connection=store.redis)
        deadline = time.monotonic() + 90
        held = None
        while held is None:
            assert time.monotonic() < deadline and thinker.poll() is None, "the first worker never took a turn"
            mine = rq_worker_of(store, thinker)
            started = [Job.fetch(job_id, connection=store.redis) for job_id in registry.get_job_ids(cleanup=False)]
            held = next((job.id for job in started if mine is not None and job.worker_name == mine.name and game_id in job.id), None)
            time.sleep(0.1)
        idle = subprocess.Popen([sys.executable, "-m", "pbm", "worker"], env=env, **quiet)  # recovers: at start and every 10 s
        while (other := rq_worker_of(store, idle)) is None or other.get_state() != "idle":
            assert time.monotonic() < deadline and idle.poll() is None, "the second worker never got going"
            time.sleep(0.1)
        thinker.send_signal(signal.SIGKILL)  # and not waited for: its parent (this test) has not reaped it
        killed_at = time.monotonic()
        while process_state(thinker.pid) != "Z":
            assert time.monotonic() - killed_at < 30, "the killed worker did not become a zombie"
            time.sleep(0.01)
        while Job.fetch(held, connection=store.redis).worker_name != other.name:
            waited = time.monotonic() - killed_at
            assert waited < RECOVERY_BOUND_S, f"the zombie's turn was not taken over {waited:.0f} s after it was killed"
            time.sleep(0.2)
        print(f"the zombie's turn was taken over after {time.monotonic() - killed_at:.1f} s")
        assert process_state(thinker.pid) == "Z"  # a zombie all along: the case under test
        # Still registered with rq (its heartbeat lasts), not counted as a running worker.
        assert rq_worker_of(store, thinker) is not None
        assert [w.pid for w in live_workers(store.redis) if w.pid in (thinker.pid, idle.pid)] == [idle.pid]
    finally:
        for process in (thinker, idle):
            if process is not None:
                process.kill()
                process.wait()
        store.delete(game_id)  # its 60 s turn, queued again or not, finds no game: no other test's worker thinks for it
