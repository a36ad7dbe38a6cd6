"""Bots through real rq workers on the real (test) Redis: finished games, no double move, recovery
after a crash between append and enqueue and after a worker killed with SIGKILL mid-job, and a
duplicate enqueue that does nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from rq import Queue
from rq.job import Job
from rq.registry import StartedJobRegistry

import core
from events.commands import Games
from events.store import Conflict, Store
from workers import analytics, jobs
from workers.dispatch import AI_QUEUE, Dispatcher, turn_command_id, turn_job_id

# Small budgets: these tests check plumbing, not strength.
KINDS = ("random", "heuristic", "ismcts:6")


def run_worker(cli_env: dict[str, str], *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pbm", "worker", *args],
        env={**os.environ, **cli_env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def dispatching(store: Store, queue_client) -> Games:
    return Games(store, dispatch=Dispatcher(queue_client))


def assert_played_once(store: Store, game_id: str) -> None:
    """Every bot move is in the log once, at the seq its command id names."""
    envelopes = store.read(game_id)
    ids = [env.command_id for env in envelopes if env.command_id is not None]
    assert len(ids) == len(set(ids))
    for env in envelopes:
        if env.command_id is not None and env.command_id.startswith("bot:"):
            assert env.command_id == turn_command_id(env.seq, env.actor)


def test_a_bot_only_game_of_each_game_and_kind_finishes_through_rq(dispatching: Games, store: Store, cli_env):
    created = []
    for slug, game in sorted(core.GAMES.items()):
        players = min(max(game.min_players, 2), game.max_players)
        for kind in KINDS:
            bots = {seat: kind for seat in range(players)}
            created.append((dispatching.create(slug, players, seed=len(created) + 1, bots=bots), slug, kind))
    result = run_worker(cli_env, "--burst")
    assert result.returncode == 0, result.stderr
    said = result.stdout.splitlines()
    assert said[0].startswith("pbm worker: bot turns (pbm-ai), turn mails and webhooks (pbm-notify), game summaries (pbm-analytics)")
    assert ("PBM_ADMIN_TOKEN is not set" in result.stdout) == (not cli_env.get("PBM_ADMIN_TOKEN"))
    for game_id, slug, kind in created:
        table = dispatching.table(game_id)
        assert table.outcome is not None, f"{slug} with {kind} bots did not finish"
        assert_played_once(store, game_id)
        summary = analytics.load_summary(store, game_id)
        assert summary is not None and summary["scores"] == list(table.outcome.scores)
        assert summary["seats"] == [kind] * table.players


def test_a_duplicate_enqueue_does_nothing(dispatching: Games, store: Store, queue_client, cli_env, monkeypatch):
    game_id = dispatching.create("holly-oak", 3, seed=11, bots={0: "random", 1: "random", 2: "random"})
    table = dispatching.table(game_id)
    seat = table.to_act[0]
    job_id = turn_job_id(game_id, table.seq, seat)
    queue = Queue(AI_QUEUE, connection=queue_client)
    assert Job.exists(job_id, connection=queue_client)
    # The queue is listed in rq's set of queues (sent once per process, not with every job).
    assert AI_QUEUE in [q.name for q in Queue.all(connection=queue_client)]
    # The same state dispatched again (a retried writer, recovery): nothing more is queued.
    Dispatcher(queue_client)(game_id, table)
    assert queue.get_job_ids().count(job_id) == 1
    # The job delivered twice (run in-process, against the same Redis): one move.
    monkeypatch.setenv("PBM_HOME", cli_env["PBM_HOME"])
    first = jobs.take_turn(game_id, table.seq, seat)
    second = jobs.take_turn(game_id, table.seq, seat)
    assert first["status"] == "played" and second["status"] == "stale"
    assert store.length(game_id) > table.seq
    assert_played_once(store, game_id)
    Job.fetch(job_id, connection=queue_client).delete()  # the queued copy would only find it stale


def test_recovery_queues_the_turn_lost_between_append_and_enqueue(store: Store, queue_client, cli_env):
    silent = Games(store)  # a writer that dies before it dispatches: nothing is queued
    game_id = silent.create("holiday-board", 2, seed=5, bots={0: "heuristic", 1: "random"})
    assert not Job.exists(turn_job_id(game_id, silent.table(game_id).seq, silent.table(game_id).to_act[0]), connection=queue_client)
    recovered = subprocess.run(
        [sys.executable, "-m", "pbm", "recover", "--json"], env={**os.environ, **cli_env}, capture_output=True, text=True
    )
    assert recovered.returncode == 0 and game_id in recovered.stdout
    result = run_worker(cli_env, "--burst", "--no-recover")
    assert result.returncode == 0, result.stderr
    assert silent.table(game_id).outcome is not None
    assert_played_once(store, game_id)


def test_a_worker_killed_mid_job_leaves_the_game_finished_without_a_double_move(dispatching: Games, store: Store, queue_client, cli_env):
    # seat 0 thinks for a while each turn, so the kill lands inside a job
    game_id = dispatching.create("holly-oak", 3, seed=3, bots={0: "ismcts:0.15s", 1: "random", 2: "random"})
    worker = subprocess.Popen(
        [sys.executable, "-m", "pbm", "worker", "--no-recover"], env={**os.environ, **cli_env},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    registry = StartedJobRegistry(AI_QUEUE, connection=queue_client)

    def thinking() -> bool:  # seat 0's turn is running: the kill lands inside its 0.15 s search
        return any(job_id.startswith(f"pbm-turn-{game_id}-") and job_id.endswith("-0") for job_id in registry.get_job_ids())

    deadline = time.monotonic() + 60
    try:
        while not (store.length(game_id) > 12 and thinking()):
            assert time.monotonic() < deadline, "the worker never got going"
            time.sleep(0.05)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()
    stuck = registry.get_job_ids()
    assert stuck, "the kill should leave a job started by a dead worker"
    result = run_worker(cli_env, "--burst")  # recovery at start finds and replaces the orphan
    assert result.returncode == 0, result.stderr
    table = dispatching.table(game_id)
    assert table.outcome is not None
    assert_played_once(store, game_id)
    moves = Counter((env.seq, env.actor) for env in store.read(game_id) if env.command is not None)
    assert all(count == 1 for count in moves.values())


def test_a_turn_on_a_table_another_writer_moved_on_is_stale_not_played(store: Store) -> None:
    worker_side, other_writer = Games(store), Games(store)
    game_id = worker_side.create("holly-oak", 3, seed=12, bots={0: "random", 1: "random", 2: "random"})
    table = worker_side.table(game_id)
    seat = table.to_act[0]
    other_writer.submit(game_id, seat, table.legal_moves(seat)[0])
    cached = worker_side.table_at(game_id, table.seq)  # folded here, not re-read: behind the log
    assert cached.seq == table.seq
    with pytest.raises(Conflict):
        worker_side.submit(game_id, seat, cached.legal_moves(seat)[0], command_id=turn_command_id(table.seq, seat), expected_seq=table.seq)
    assert worker_side.table_at(game_id, table.seq + 99).seq == store.length(game_id)
