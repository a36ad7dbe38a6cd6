"""Recovery: finds games that wait on work nobody will do, and queues it. Reads the log; writes
only rq jobs.

Work goes missing when a process dies between an append and its enqueue, or a worker dies in the
middle of a job (its job stays "started" for good). For every game still running with a bot to
act, and every finished game without a summary, recovery makes sure the job exists and can still
run: a missing, failed, stopped or orphaned job (its worker is gone) is replaced by a fresh one
with the same id. Replacing is safe: a bot's move carries a command id from (seq, seat), so a job
that runs twice plays once.
"""

from __future__ import annotations

import logging
import os
import socket

import redis
from rq.job import Job, JobStatus
from rq.exceptions import NoSuchJobError
from rq.worker import Worker

from events import keys
from events.codec import unpack
from events.commands import Games
from events.store import Store
from workers.dispatch import Dispatcher, Work, work_for

log = logging.getLogger("pbm.workers")
LIVE = {JobStatus.QUEUED, JobStatus.DEFERRED, JobStatus.SCHEDULED}
OPENING_EVENTS = 16  # BotsSeated sits right after the opening events: GameStarted and the deal


def recover(connection: redis.Redis) -> list[str]:
    """Queue what is missing; returns the ids of the jobs queued (or replaced)."""
    store = Store(connection)
    dispatcher = Dispatcher(connection)
    games = Games(store)
    queued = []
    for raw_id in connection.zrange(keys.GAMES, 0, -1):
        game_id = raw_id.decode()
        try:
            if not needs_look(connection, game_id):
                continue
            for work in work_for(game_id, games.table(game_id)):
                if revive(dispatcher, work):
                    queued.append(work.job_id)
        except redis.ConnectionError:
            raise
        except Exception as error:  # one unreadable log must not keep every other game waiting
            log.warning("recovery skipped game %s: %s: %s", game_id, type(error).__name__, error)
    return queued


def needs_look(connection: redis.Redis, game_id: str) -> bool:
    """Cheap filter before folding a game: over and summarized, or run by people alone: skip."""
    pipe = connection.pipeline(transaction=False)
    pipe.xrevrange(keys.log(game_id), count=1)
    pipe.xrange(keys.log(game_id), count=OPENING_EVENTS)
    pipe.exists(keys.summary(game_id))
    last, opening, summarized = pipe.execute()
    if not last:
        return False  # created but never written (a crash between index and log)
    if kind_of(last[0]) == "pbm.seed_revealed":
        return not summarized
    return any(kind_of(entry) == "pbm.bots_seated" for entry in opening)


def kind_of(entry: tuple) -> str:
    return unpack(entry[1][b"e"])[3]


def revive(dispatcher: Dispatcher, work: Work) -> bool:
    connection = dispatcher.connection
    try:
        job = Job.fetch(work.job_id, connection=connection)
    except NoSuchJobError:
        return dispatcher.enqueue(work)
    status = job.get_status()
    if status in LIVE or (status == JobStatus.STARTED and worker_alive(connection, job.worker_name)):
        return False
    job.delete()
    return dispatcher.enqueue(work)


def worker_alive(connection: redis.Redis, name: str | None) -> bool:
    """False once the worker's heartbeat key expired, or at once if it ran on this host and its
    process is gone (a worker killed with SIGKILL leaves its key until the heartbeat runs out)."""
    if not name:
        return False
    worker = Worker.find_by_key(Worker.redis_worker_namespace_prefix + name, connection=connection)
    if worker is None:
        return False
    if worker.hostname == socket.gethostname() and worker.pid:
        try:
            os.kill(worker.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
    return True
