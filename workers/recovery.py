"""Recovery: finds games that wait on work nobody will do, and queues it. Reads the index and the
games' rows (events.store), not their logs; writes only rq jobs.

Games with a deadline are candidates too (the index's clocked games): for each person the game waits
on, the look at the clock dispatch queues (workers.deadlines.watch) must exist, and in a game whose
deal still waits for the players' salts, the look at the salts' deadline (watch_salts); a finished
one has done its work, since it scheduled the deadline job, which rq's scheduler keeps in Redis.

Work goes missing when a process dies between an append and its enqueue, a worker dies between
its pop and the start of the job (the job stays "queued" but is in no queue), or a worker dies in
the middle of a job (its job stays "started" for good). For every game still running with a bot
to act, and every finished game without a summary, recovery makes sure the job exists and will
still run (`job_alive`, the one place that decides it); if not, it is replaced by a fresh one with
the same id. Replacing is safe: a bot's move carries a command id from (seq, seat), so a job that
runs twice plays once. A notification a dead worker held is queued again the same way (found in
rq's lists, see stranded_notifications); its send is recorded, so it is sent once.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.worker import Worker

from events.commands import Games
from events.store import GameInfo, Store
from workers.dispatch import NOTIFY_FUNCTION, NOTIFY_QUEUE, Dispatcher, Work, notify_job_id, notify_work, salts_work, work_at, work_for

log = logging.getLogger("pbm.workers")
WAITING = {JobStatus.DEFERRED, JobStatus.SCHEDULED}  # rq's registries run these later
POP_GRACE_S = 2.0  # a live worker starts a popped job within milliseconds; a dead one never does


def recover(connection: redis.Redis, queues: redis.Redis | None = None) -> list[str]:
    """Queue what is missing, reading the log's Redis `connection` and queuing on `queues` (rq's
    Redis, by default the same); returns the ids of the jobs queued (or replaced)."""
    store = Store(connection)
    dispatcher = Dispatcher(queues if queues is not None else connection, log=connection)
    games = Games(store)
    queued = []
    # The index names the candidates (running games with a bot seat, finished games owed a
    # summary); each game's row, written with its events, says whether it waits on a job now.
    clocked = store.clocked_games()
    clocked_ids = {info.game_id for info in clocked}
    candidates = {info.game_id: info for info in [*store.bot_games(), *clocked, *store.owed_summaries()]}
    for info in candidates.values():
        try:
            for work in work_of(games, info, info.game_id in clocked_ids):
                if revive(dispatcher, work):
                    queued.append(work.job_id)
        except redis.ConnectionError:
            raise
        except Exception as error:  # one unreadable log must not keep every other game waiting
            log.warning("recovery skipped game %s: %s: %s", info.game_id, type(error).__name__, error)
    queued += [work.job_id for work in stranded_notifications(dispatcher.connection) if revive(dispatcher, work)]
    return queued


def stranded_notifications(connection: redis.Redis) -> list[Work]:
    """The notifications a dead worker held: started under it, or popped by it and never started.

    Unlike a bot turn, a notification is not something a game's row waits on (the game waits on
    the person), so recovery finds these in rq's own lists rather than from the index: only jobs a
    worker had taken, a handful, never every game. Run again, such a job finds its send recorded
    if the worker died after sending, and sends nothing twice.
    """
    queue = Queue(NOTIFY_QUEUE, connection=connection)
    held = set(StartedJobRegistry(queue=queue).get_job_ids(cleanup=False))
    held |= set(IntermediateQueue(queue.key, connection).get_job_ids())
    found = []
    for job_id in sorted(held):
        try:
            job = Job.fetch(job_id, connection=connection)
        except NoSuchJobError:
            continue
        if job.func_name == NOTIFY_FUNCTION and len(job.args) in (4, 5):
            game_id, seat, kind, seq, *note = job.args  # a clock's notice adds its note
            key = job_id[len(notify_job_id(game_id, seq, seat, kind)) + 1 :]  # and its job id a key
            found.append(notify_work(game_id, seq, seat, kind, *note, key=key))
    return found


def work_of(games: Games, info: GameInfo, clocked: bool = False) -> Iterator[Work]:
    status = info.status
    if status is None:  # a row that does not know (reindex raced a move): fold the log
        return work_for(info.game_id, games.table(info.game_id))
    if status.waiting == "salts":  # the row says so: the salts' deadline, as dispatch queued it
        return salts_work(info.game_id, info.length)
    return work_at(info.game_id, info.length, status.to_act, status.bots, info.finished, clocked=clocked)


def revive(dispatcher: Dispatcher, work: Work) -> bool:
    """Queue `work` again unless its job will still run; True if queued."""
    connection = dispatcher.connection
    if job_alive(connection, work):
        return False
    intermediate = IntermediateQueue(Queue(work.queue, connection=connection).key, connection)
    try:
        Job.fetch(work.job_id, connection=connection).delete()
    except NoSuchJobError:
        pass
    # A dead worker's pop: left there, rq's own cleanup would later fail the fresh job of that id.
    intermediate.remove(work.job_id)
    connection.delete(intermediate.get_first_seen_key(work.job_id))
    return dispatcher.enqueue(work, at_front=True)  # it has waited once already


def job_alive(connection: redis.Redis, work: Work) -> bool:
    """Whether the job of `work` will still run: queued and in its queue, popped by a worker that
    starts it (it leaves the intermediate list within POP_GRACE_S), started by a live worker, or
    deferred. A queued job in no list was popped by a worker that died: lost."""
    give_up = time.monotonic() + POP_GRACE_S
    while True:
        status, in_queue, popped = job_place(connection, work)
        if status != JobStatus.QUEUED or in_queue or not popped or time.monotonic() > give_up:
            break
        time.sleep(0.05)
    if status == JobStatus.STARTED:
        return worker_alive(connection, Job.fetch(work.job_id, connection=connection).worker_name)
    if status == JobStatus.QUEUED:
        return in_queue
    if status == JobStatus.FINISHED and work.finished_is_done:
        return True
    return status in WAITING


def job_place(connection: redis.Redis, work: Work) -> tuple[JobStatus | None, bool, bool]:
    """(status, in its queue, in its intermediate list), read in one transaction: a worker moves a
    job from one to the next atomically, so this never sees it between two places."""
    queue = Queue(work.queue, connection=connection)
    pipe = connection.pipeline(transaction=True)
    pipe.hget(Job.key_for(work.job_id), "status")
    pipe.lpos(queue.key, work.job_id)
    pipe.lpos(queue.intermediate_queue_key, work.job_id)
    status, in_queue, popped = pipe.execute()
    return (JobStatus(status.decode()) if status else None), in_queue is not None, popped is not None


def worker_alive(connection: redis.Redis, name: str | None) -> bool:
    """False once the worker's heartbeat key expired, or at once if it ran on this host and its
    process is gone (a worker killed with SIGKILL leaves its key until the heartbeat runs out)."""
    if not name:
        return False
    worker = Worker.find_by_key(Worker.redis_worker_namespace_prefix + name, connection=connection)
    if worker is None:
        return False
    if worker.hostname == socket.gethostname() and worker.pid:
        return process_alive(worker.pid)
    return True


def process_alive(pid: int) -> bool:
    """Whether the process `pid` of this host runs (or may: one of another user's counts as alive).
    A zombie is dead: killed, but not yet reaped by its parent (a worker `pbm simulate --workers N`
    started, whose parent polls only until the first of them answers), it still has its pid, so
    os.kill(pid, 0) succeeds on it, and its job counted as held until its heartbeat ran out."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's: alive, unless /proc says it is a zombie
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False  # gone since the signal
    except OSError:
        return True  # no /proc to ask: the signal's answer stands
    # The state follows the command's name, which is in parentheses and may hold any character.
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])
