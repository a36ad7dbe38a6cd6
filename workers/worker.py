"""The pbm worker: rq's SimpleWorker with a dequeue that never holds a job in no list, plus pbm's
recovery at start and with rq's maintenance. It runs jobs; it writes nothing itself except rq's
own bookkeeping and the recovery lock.

SimpleWorker runs each job inside the worker process, with no fork per job: a bot turn is a few
milliseconds of work, a fork per job (rq's default Worker) costs more than that (rq's own
benchmark notes put SimpleWorker about 6x faster on short jobs), and it would throw away the
tables the worker keeps folded between turns. The price: a job that crashes the interpreter takes
the worker down with it; recovery then queues that job again.

Dequeue: rq moves a popped job into the queue's intermediate list (BLMOVE) only when a worker
serves one queue; with two it pops with a plain BLPOP, and a worker killed between that pop and
the start of the job leaves the job in no list at all. Ours always moves (LMOVE on each queue in
order, then BLMOVE on the first for at most DEQUEUE_BLOCK_S), and rq takes the job off the
intermediate list in the same transaction that marks it started. So a job is always in its queue,
in the intermediate list, or started under a worker's name, and recovery can tell when it is lost.
The short block also wakes an idle worker every second, so its maintenance (and recovery) runs on
time instead of after rq's dequeue timeout (405 s by default).

Scheduler: every worker runs rq's scheduler (RQScheduler: it moves the deadline and reminder jobs
that are due from rq's ScheduledJobRegistry to their queues) in a thread of its own, driven by the
scheduler's public methods, instead of rq's `work(with_scheduler=True)`, which forks it into a
process of its own: a worker killed with SIGKILL left that process running for good, an orphan
holding the scheduler's lock. A thread dies with its worker. The schedulers that do not hold a
queue's lock try for it every 5 s (rq's own fallback waits 120 s), and free first a lock whose
holder ran on this host in a process that is gone; a holder on another host loses its lock when
rq's TTL (61 s) runs out. So a deadline is acted on within seconds of a killed worker on the
same host, within about a minute on another. One scheduler at a time holds the lock for a queue,
whatever the number of workers.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
import traceback
from contextlib import contextmanager
from pathlib import Path

import redis
from rq import Queue, SimpleWorker
from rq.exceptions import NoSuchJobError, SchedulerNotFound, StopRequested
from rq.executions import Execution
from rq.job import JobStatus
from rq.scheduler import RQScheduler
from rq.scripts import release_lock
from rq.utils import as_text

import core
from events import keys, server
from events.server import FAILURES, REDIS_ERRORS, explain
from workers.dispatch import QUEUES
from workers.recovery import POP_GRACE_S, process_alive, recover

RECOVERY_INTERVAL_S = 10  # how often one of the running workers looks for lost work
DEQUEUE_BLOCK_S = 1  # an idle worker wakes this often: to look at its other queues, to maintain
# Lost work is queued again within this of being lost, with any one worker alive and idle: the
# recovery lock lapses (RECOVERY_INTERVAL_S - 1), a worker's next maintenance takes it (at most
# RECOVERY_INTERVAL_S + DEQUEUE_BLOCK_S after its last), recovery waits out a fresh pop (POP_GRACE_S).
RECOVERY_BOUND_S = 30
assert RECOVERY_INTERVAL_S + DEQUEUE_BLOCK_S + POP_GRACE_S < RECOVERY_BOUND_S
assert DEQUEUE_BLOCK_S < server.MIN_TIMEOUT_S  # a blocked dequeue is answered before pbm's timeout


class ReliableQueue(Queue):
    @classmethod
    def dequeue_any(cls, queues, timeout, connection, job_class=None, serializer=None, death_penalty_class=None):
        """rq's dequeue_any, but every pop moves the job into its queue's intermediate list."""
        queues = list(queues)
        while True:
            popped = next(filter(None, (cls.lmove(connection, queue.key, None) for queue in queues)), None)
            if popped is None:
                if timeout is None:
                    return None
                popped = cls.lmove(connection, queues[0].key, min(timeout, DEQUEUE_BLOCK_S))  # raises DequeueTimeout
            queue_key, job_id = map(as_text, popped)
            queue = cls.from_queue_key(queue_key, connection=connection, job_class=job_class, serializer=serializer, death_penalty_class=death_penalty_class)
            job = queue.fetch_job(job_id)
            if job is not None:  # a job deleted while queued is skipped (rq's cleanup drops its id)
                return job, queue


PUBSUB_RETRY_S = 2  # how long rq's command listener waits between tries to reach Redis again
SCHEDULER_INTERVAL_S = 1  # how often the scheduler moves due jobs to their queues
SCHEDULER_MAX_WAIT_S = 30  # the longest it waits between tries while Redis is unreachable
# A scheduler without its locks tries for them this often (rq's own fallback waits 120 s), and
# frees first a lock whose holder ran on this host and is gone (a worker killed with SIGKILL).
SCHEDULER_LOCK_RETRY_S = 5


class SchedulerThread(threading.Thread):
    """rq's scheduler, run in a thread of the worker: acquire the queues' locks (or wait for them),
    heartbeat, move due jobs; release the locks when the worker stops."""

    def __init__(self, connection: redis.Redis, queue_names: list[str], burst: bool = False) -> None:
        super().__init__(name="pbm-scheduler", daemon=True)
        self.scheduler = RQScheduler(queue_names, connection=connection, interval=SCHEDULER_INTERVAL_S, logging_level="WARNING")
        self.burst = burst
        self.stopping = threading.Event()
        self.failure: str | None = None
        self._last_try = float("-inf")  # the first look frees a dead holder's lock at once
        self.queue_names = set(queue_names)

    def run(self) -> None:
        scheduler = self.scheduler
        born = False
        wait = SCHEDULER_INTERVAL_S
        while True:
            try:
                if not born:
                    scheduler.register_birth()
                    born = True
                if scheduler.should_reacquire_locks or self._retry_locks():
                    scheduler.acquire_locks()
                scheduler.heartbeat()
                if scheduler.acquired_locks:
                    scheduler.enqueue_scheduled_jobs()
                wait = SCHEDULER_INTERVAL_S
            except REDIS_ERRORS as error:
                # A Redis gone away (a restart, a failover): the worker's own loop waits it out and
                # says so; the scheduler waits too, backing off, and goes on where it was.
                self.failure = explain(error)
                wait = min(wait * 2, SCHEDULER_MAX_WAIT_S)
            if self.burst or self.stopping.wait(wait):
                break
        try:
            scheduler.release_locks()
            scheduler.register_death()
        except REDIS_ERRORS:
            pass

    def _retry_locks(self) -> bool:
        """Whether to try for the locks now: some are another's, and the last try is old enough;
        a lock held by a dead scheduler of this host is freed first."""
        scheduler = self.scheduler
        missing = self.queue_names - set(scheduler.acquired_locks)
        if not missing or time.monotonic() - self._last_try < SCHEDULER_LOCK_RETRY_S:
            return False
        self._last_try = time.monotonic()
        for name in missing:
            key = RQScheduler.get_locking_key(name)
            holder = scheduler.connection.get(key)
            if holder is not None and holder.decode() != scheduler.name and scheduler_dead(scheduler.connection, holder.decode()):
                release_lock(scheduler.connection, key, holder.decode())
        return True

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)


def scheduler_dead(connection, name: str) -> bool:
    """Whether the scheduler `name` (a lock's holder) is gone: its heartbeat expired, or it ran on
    this host in a process that no longer runs (gone, or a zombie: workers.recovery.process_alive)."""
    try:
        other = RQScheduler.fetch(name, connection=connection)
    except SchedulerNotFound:
        return True
    if other.hostname != socket.gethostname() or not other.pid:
        return False
    return not process_alive(other.pid)


class PbmWorker(SimpleWorker):
    queue_class = ReliableQueue
    recovering = True
    scheduling = True  # run rq's scheduler in a thread (the deadline and reminder jobs)
    redis_failure: str | None = None  # why rq's loop gave up, when Redis was the cause
    log_connection = None  # the log's client, when it is not rq's (events.server.connect_queues)

    def _set_connection(self, connection):
        # rq raises its connection's socket timeout to 415 s, to outlast a dequeue that blocks up
        # to 405 s. Ours blocks DEQUEUE_BLOCK_S at most, within pbm's own timeout (which may not
        # go below 2 s, events.server), so that timeout stays: a hung Redis is told in seconds.
        return connection

    def work(self, *args, **kwargs) -> bool:
        scheduler = None
        if self.scheduling:
            scheduler = SchedulerThread(self.connection, [queue.name for queue in self.queues], burst=bool(kwargs.get("burst")))
            scheduler.start()
            if scheduler.burst:
                scheduler.join()  # due jobs are in their queues before a burst looks at them
        try:
            with redis_errors_in_one_line(self):
                return super().work(*args, **kwargs)
        finally:
            if scheduler is not None:
                scheduler.stop()

    # rq waits out a lost Redis only inside its dequeue loop; a connection lost in a step around it
    # (maintenance, the suspension check, marking the worker idle before it dequeues) ended the
    # worker, so whether a worker survived a Redis restart depended on the moment. Each step waits.
    # So do the steps of its start, once `pbm worker`'s first ping found Redis: rq's __init__ names
    # the connection (CLIENT SETNAME), its bootstrap registers the worker, subscribes to its command
    # channel and marks it started, all outside any loop. A worker still starting (its imports take
    # seconds on a busy machine) when a Sentinel failover began ended at CLIENT SETNAME.
    def _set_ip_address(self, connection) -> None:
        self._waiting_out_lost_redis(super()._set_ip_address, connection)

    def register_birth(self) -> None:
        tries = 0

        def register_birth_once() -> None:
            nonlocal tries
            tries += 1
            if tries > 1:
                # The try before may have gone through with its reply lost, and rq refuses a name
                # that is registered and alive. The name is this worker's own (a fresh uuid4).
                self.connection.delete(self.key)
            SimpleWorker.register_birth(self)

        self._waiting_out_lost_redis(register_birth_once)

    def subscribe(self) -> None:
        self._waiting_out_lost_redis(super().subscribe)

    def set_state(self, state: str, pipeline=None) -> None:
        if pipeline is not None:  # written with the pipeline, by the step that runs it
            return super().set_state(state, pipeline)
        return self._waiting_out_lost_redis(super().set_state, state)

    def check_for_suspension(self, burst: bool) -> None:
        self._waiting_out_lost_redis(super().check_for_suspension, burst)

    def run_maintenance_tasks(self) -> None:
        self._waiting_out_lost_redis(self._maintain)

    def dequeue_job_and_maintain_ttl(self, timeout, max_idle_time=None):
        return self._waiting_out_lost_redis(super().dequeue_job_and_maintain_ttl, timeout, max_idle_time)

    def execute_job(self, job, queue):
        """rq's, run again once Redis answers when Redis was lost during it (the job's bookkeeping
        before or after its work, or the work's own calls): rq let that end the worker (a busy
        worker did not outlive a Sentinel failover), and the job stayed "started" under a worker
        alive, which recovery leaves alone. Running it again is safe: a bot's move carries a
        command id from (seq, seat), a notification's send is recorded, so a job that runs twice
        plays once."""
        while True:
            try:
                return super().execute_job(job, queue)
            except (redis.ConnectionError, redis.TimeoutError) as error:
                if self._stop_requested:
                    raise StopRequested() from error
                self.log.error("Worker %s: lost Redis during job %s: %s; it runs again once Redis answers", self.name, job.id, in_one_line(error))
                self._waiting_out_lost_redis(self.connection.ping)

    def heartbeat(self, *args, **kwargs):
        return self._waiting_out_lost_redis(super().heartbeat, *args, **kwargs)

    def _waiting_out_lost_redis(self, step, *args, **kwargs):
        """`step(*args)`, tried again while Redis cannot be reached, with rq's backoff and its one
        line per try; a stop request ends the wait."""
        wait = 1.0
        while True:
            try:
                return step(*args, **kwargs)
            except (redis.ConnectionError, redis.TimeoutError) as error:
                if self._stop_requested:
                    raise StopRequested() from error
                self.log.error("Worker %s: could not connect to Redis: %s; retrying in %d seconds", self.name, in_one_line(error), wait)
                time.sleep(wait)
                wait = min(wait * self.exponential_backoff_factor, self.max_connection_wait_time)

    def _pubsub_exception_handler(self, exc, pubsub, pubsub_thread) -> None:
        # rq's own handler (its command listener's thread) logs redis-py's raw text, relying on the
        # one-line filter; but that thread sleeps 2 s between tries and rq waits 1 s for it when the
        # worker stops, so on a loaded machine it logged once more after the filter was gone. A
        # timeout ended the thread with a traceback. Both are said here, in the one line; a stopping
        # worker's thread just stops.
        if not isinstance(exc, (redis.ConnectionError, redis.TimeoutError)):
            return super()._pubsub_exception_handler(exc, pubsub, pubsub_thread)
        if self._stop_requested:
            pubsub_thread.stop()
            return None
        self.log.error("Worker %s: could not connect to Redis: %s; retrying in %d seconds", self.name, in_one_line(exc, "rq's command listener"), PUBSUB_RETRY_S)
        time.sleep(PUBSUB_RETRY_S)
        return None

    def handle_exception(self, job, *exc_info) -> None:
        # A job that fails on Redis (out of memory, a read-only replica...) is logged as the one
        # line that names the failure, not as a traceback of redis-py's internals.
        if isinstance(exc_info[1], FAILURES):  # a Cluster's own errors too (no node reachable...)
            self.log.error("Worker %s: job %s: %s", self.name, job.id, explain(exc_info[1]))
            return
        # An error that says all in its message (a notification's channel that failed: its
        # SMTP server down, its webhook dead) is one line too; rq retries the job as it would.
        if getattr(exc_info[1], "one_line", False):
            self.log.error("Worker %s: job %s: %s", self.name, job.id, exc_info[1])
            return
        super().handle_exception(job, *exc_info)

    def prepare_job_execution(self, job, remove_from_intermediate_queue: bool = False) -> None:
        # rq takes the job off its intermediate list only for one-queue workers, the only ones its
        # own dequeue moves there; ours moves every job there.
        super().prepare_job_execution(job, remove_from_intermediate_queue=True)

    def recover_now(self) -> list[str]:
        """At start: always (a worker that replaces a killed one must find its orphan at once).
        Recovery queues only what is missing, so a try cut short is tried again whole."""
        return self._waiting_out_lost_redis(self._recover_at_start)

    def _recover_at_start(self) -> list[str]:
        self.connection.set(keys.RECOVERY_LOCK, self.name, ex=RECOVERY_INTERVAL_S - 1)
        return recover(self.log_connection or self.connection, self.connection)

    def _maintain(self) -> None:
        super().run_maintenance_tasks()
        self._retry_own_orphans()
        # Periodically: one worker per interval, whoever takes the lock.
        if self.recovering and self.connection.set(keys.RECOVERY_LOCK, self.name, nx=True, ex=RECOVERY_INTERVAL_S - 1):
            recover(self.log_connection or self.connection, self.connection)


    def _retry_own_orphans(self) -> None:
        """Jobs left "started" under this worker, which runs none between jobs: their end (done or
        failed) was written to a Redis that lost it, a failover's old master, or not written at all
        (rq logs a failure it could not record and goes on). Recovery trusts a job started by a
        live worker, so such a turn waited until its execution's TTL ran out (the turn's timeout
        and a minute). Marked expired here, rq's own cleanup of abandoned jobs takes them: retried
        while retries last, else failed, which recovery queues again. A job that runs twice plays
        once (execute_job)."""
        for member in self.connection.smembers(self.executions_key):
            execution = Execution.from_composite_key(as_text(member), self.connection)
            try:
                job = self.job_class.fetch(execution.job_id, connection=self.connection, serializer=self.serializer)
            except NoSuchJobError:
                job = None
            if job is not None and job.get_status() == JobStatus.STARTED and job.worker_name == self.name:
                self.log.warning("Worker %s: job %s was left started under this worker, its end lost with Redis: it is retried", self.name, job.id)
                registry = job.started_job_registry
                self.connection.zadd(registry.key, {execution.composite_key: 1}, xx=True)
                registry.cleanup(exception_handlers=self._exc_handlers)
            self.connection.srem(self.executions_key, member)


def running_workers(connection) -> int:
    """How many rq workers are alive on this Redis: rq drops the ones whose heartbeat expired, and
    one of this host whose process is gone or a zombie is not counted (its heartbeat lasts minutes)."""
    return len(live_workers(connection))


def live_workers(connection) -> list[SimpleWorker]:
    here = socket.gethostname()
    return [w for w in SimpleWorker.all(connection=connection) if w.hostname != here or not w.pid or process_alive(w.pid)]


def make_worker(connection, queues: tuple[str, ...] = QUEUES, recovering: bool = True, log=None, scheduling: bool = True) -> PbmWorker:
    """A worker on rq's `connection`; `log` is the log's client if it lives elsewhere."""
    warm_up()
    worker = PbmWorker(
        [ReliableQueue(name, connection=connection) for name in queues],
        connection=connection,
        maintenance_interval=RECOVERY_INTERVAL_S,
    )
    worker.recovering = recovering
    worker.scheduling = scheduling
    worker.log_connection = log
    return worker


REDIS_PY = Path(redis.__file__).parent
SHOWN_FROM = (REDIS_PY.parent, Path(__file__).resolve().parents[1])  # rq's site-packages, pbm's tree


def origin(error: BaseException) -> str:
    """Where `error` was raised, as the step that made the call: the innermost frame of its
    traceback outside redis-py (rq's or pbm's), "function (path:line)"; and, when it was raised
    while handling an earlier Redis error (rq records a job's failure on the lost Redis that failed
    it), where that one was: "handle_execution_ended (...), after handle_job_success (...)"."""
    steps: list[str] = []
    while error is not None:
        frames = [frame for frame in traceback.extract_tb(error.__traceback__) if not Path(frame.filename).is_relative_to(REDIS_PY)]
        if isinstance(error, REDIS_ERRORS) and frames:
            path = Path(frames[-1].filename)
            shown = next((path.relative_to(root) for root in SHOWN_FROM if path.is_relative_to(root)), Path(path.name))
            step = f"{frames[-1].name} ({shown}:{frames[-1].lineno})"
            if step not in steps:
                steps.append(step)
        error = error.__context__
    return ", after ".join(steps) or "an unknown step"


def in_one_line(error: BaseException, step: str | None = None) -> str:
    """explain's line for a Redis error, with the step it came from (`origin`, unless given)."""
    return f"{explain(error)} [in {step or origin(error)}]"


class _OneLine(logging.Filter):
    """Rewrites rq's log records that carry a Redis error into one line: events.server.explain's,
    with the step the error came from (`origin`), so a failure says where it happened. The record
    of rq's loop giving up is kept by the worker instead (`pbm worker` ends with that line); the
    others (rq logs and goes on: a failed job's bookkeeping, its dependents) are logged as the line."""

    def __init__(self, worker: PbmWorker) -> None:
        super().__init__()
        self.worker = worker

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, REDIS_ERRORS):
            if "quitting" in str(record.msg):  # rq's "found an unhandled exception, quitting..."
                self.worker.redis_failure = in_one_line(error)
                return False
            record.msg, record.args = f"{record.getMessage()}: {in_one_line(error)}", ()
            record.exc_info = record.exc_text = None
            return True
        if isinstance(record.args, tuple) and any(isinstance(arg, REDIS_ERRORS) for arg in record.args):
            record.args = tuple(in_one_line(arg) if isinstance(arg, REDIS_ERRORS) else arg for arg in record.args)
        return True


@contextmanager
def redis_errors_in_one_line(worker: PbmWorker):
    one_line = _OneLine(worker)
    worker.log.addFilter(one_line)
    try:
        yield
    finally:
        worker.log.removeFilter(one_line)


def warm_up() -> None:
    """Import the job functions and every game before the first job, not during it: on a busy
    machine that first turn (a restarted worker's, often an orphan's) took one to two seconds."""
    import workers.deadlines  # noqa: F401
    import workers.jobs  # noqa: F401

    tuple(core.GAMES.values())  # each lookup imports its game's package
