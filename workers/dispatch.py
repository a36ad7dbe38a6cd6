"""Dispatch: the rq jobs that follow from a game's state, enqueued once each. Reads no log itself.

`Dispatcher` is the hook events.commands.Games calls after every append (and after create): it
enqueues an AI turn for each bot seat the game now waits for, a turn notification for each person's
seat it waits for that has a channel (an e-mail address or a webhook, read from the seat store), a
look at the clock for each person it waits for in a game with a deadline (workers.deadlines.watch:
it schedules the deadline and the reminders through rq's scheduler; a game without a deadline
schedules nothing) and, when the game is over, its summary and the end notification of every seat
with a channel. A job's id is built from (game, seq, seat), and rq's unique enqueue (one Lua script)
refuses an id that exists, so each is queued once however often dispatch or recovery runs. Job
arguments are ids only: never a card, never the seed. rq is imported on the first enqueue: a move
in a game of people queues nothing, and every `pbm play` would pay for the import.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

import attrs
import redis

from core.contract import CLOCK_EVENTS, ClockSet
from core.table import Table

CLOCK_CHANGES = tuple(cls for cls in CLOCK_EVENTS if cls is not ClockSet)
from events.seats import Seats

AI_QUEUE = "pbm-ai"
NOTIFY_QUEUE = "pbm-notify"
ANALYTICS_QUEUE = "pbm-analytics"
QUEUES = (AI_QUEUE, NOTIFY_QUEUE, ANALYTICS_QUEUE)  # a worker serves them in this order: turns first
# The notifier lives in the shell (it renders views and talks SMTP); rq imports it by this name when
# the job runs, so workers/ names it without importing pbm.
NOTIFY_FUNCTION = "pbm.mail.notify.notify_seat"
# A channel that fails (an SMTP server down, a dead webhook) is tried again later by rq's scheduler,
# never by a job that sleeps: the worker goes straight on to the next bot turn.
NOTIFY_RETRY_INTERVALS_S = (60, 600, 3600)
NOTIFY_TIMEOUT_S = 60  # a send gives up after 10 s (pbm/mail/notify.py); this only bounds a stuck job
TURN_TIMEOUT_S = 300  # an ismcts bot with a large budget thinks for minutes at most
RESULT_TTL_S = 3600  # a finished job's id stays taken this long, so a late duplicate is refused
RETRIES = 3  # requeued at once: a failure is a lost connection, not a rule problem
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]+")


@attrs.frozen
class Work:
    queue: str
    function: str
    args: tuple
    job_id: str
    retry_intervals: tuple[int, ...] = ()  # () : requeued at once, RETRIES times
    at_ms: int | None = None  # run at this time (rq's scheduler), not now
    # A finished job of this id has done its work (recovery does not queue it again): a look at the
    # clock that ran has scheduled what the turn needs.
    finished_is_done: bool = False


def job_key(game_id: str) -> str:
    # rq job ids allow letters, digits, '_' and '-': other game ids go in hex.
    return game_id if _SAFE_ID.fullmatch(game_id) else "x" + game_id.encode().hex()


def turn_job_id(game_id: str, seq: int, seat: int) -> str:
    return f"pbm-turn-{job_key(game_id)}-{seq}-{seat}"


def summary_job_id(game_id: str) -> str:
    return f"pbm-summary-{job_key(game_id)}"


def notify_job_id(game_id: str, seq: int, seat: int, kind: str) -> str:
    return f"pbm-notify-{kind}-{job_key(game_id)}-{seq}-{seat}"


def notify_work(game_id: str, seq: int, seat: int, kind: str, note: str = "", key: str = "") -> Work:
    """A notification job: ids and the kind only, never an address, a token or a card; a clock's
    notice adds its `note` (when the move is due: pbm.mail.notify records a send by it too), and `key`
    tells apart, in the job id, two of one kind at one seq (a turn's reminders)."""
    args = (game_id, seat, kind, seq, note) if note else (game_id, seat, kind, seq)
    job_id = notify_job_id(game_id, seq, seat, kind) + (f"-{key}" if key else "")
    return Work(NOTIFY_QUEUE, NOTIFY_FUNCTION, args, job_id, NOTIFY_RETRY_INTERVALS_S)


def turn_command_id(seq: int, seat: int) -> str:
    """The command id of a bot's move: a retried or doubled job submits it again, and the command
    path answers the second time without appending."""
    return f"bot:{seq}:{seat}"


def watch_job_id(game_id: str, seq: int, seat: int) -> str:
    return f"pbm-clock-{job_key(game_id)}-{seq}-{seat}"


def deadline_job_id(game_id: str, turn: int, seat: int, due_ms: int) -> str:
    """One per due time of a turn: every look at the clock that finds the same due time schedules
    the same job, so however many looks there are, one job acts at each due time."""
    return f"pbm-deadline-{job_key(game_id)}-{turn}-{seat}-{due_ms}"


def salts_watch_job_id(game_id: str, seq: int) -> str:
    return f"pbm-salts-{job_key(game_id)}-{seq}"


def salts_deadline_job_id(game_id: str, due_ms: int) -> str:
    return f"pbm-salts-due-{job_key(game_id)}-{due_ms}"


def reminder_job_id(game_id: str, turn: int, seat: int, before_s: int, due_ms: int) -> str:
    return f"pbm-remind-{job_key(game_id)}-{turn}-{seat}-{before_s}-{due_ms}"


def work_for(game_id: str, table: Table, reachable: Container[int] = ()) -> Iterator[Work]:
    """The jobs this state of the game calls for; `reachable`: the seats with a channel. A pause,
    a resume, an extension, a vacation or a timeout begins no turn: no turn notice follows one
    (the seat was told when its turn began; the clock's own notices say the rest)."""
    if table.waiting_for_salts:  # nobody to act: the salts' deadline is watched
        return salts_work(game_id, table.seq)
    if table.outcome is None and table.seq and isinstance(table.events[-1], CLOCK_CHANGES):
        reachable = ()
    return work_at(game_id, table.seq, table.to_act, table.bots, table.outcome is not None, reachable, table.players, table.clock is not None)


def salts_work(game_id: str, seq: int) -> Iterator[Work]:
    """The jobs of a game whose opening deal waits for salts (nobody is to act): the look at the
    salts' deadline (workers.deadlines.watch_salts), which every such game has, clock or none."""
    yield Work(AI_QUEUE, "workers.deadlines.watch_salts", (game_id,), salts_watch_job_id(game_id, seq), finished_is_done=True)


def work_at(
    game_id: str,
    seq: int,
    to_act: Iterable[int],
    bots: Container[int],
    over: bool,
    reachable: Container[int] = (),
    players: int = 0,
    clocked: bool = False,
) -> Iterator[Work]:
    """The jobs a game at `seq` calls for (recovery knows these from the game's row). A person's
    seat in `reachable` is told of its turn; at the end every seat in `reachable` of the `players`
    is told the result. In a `clocked` game (one with a deadline) each person to act gets a look
    at its clock."""
    if over:
        yield Work(ANALYTICS_QUEUE, "workers.jobs.summarize", (game_id,), summary_job_id(game_id))
        for seat in range(players):
            if seat in reachable:
                yield notify_work(game_id, seq, seat, "end")
        return
    for seat in to_act:
        if seat in bots:
            yield Work(AI_QUEUE, "workers.jobs.take_turn", (game_id, seq, seat), turn_job_id(game_id, seq, seat))
        else:
            if seat in reachable:
                yield notify_work(game_id, seq, seat, "turn")
            if clocked:
                yield Work(AI_QUEUE, "workers.deadlines.watch", (game_id, seat), watch_job_id(game_id, seq, seat), finished_is_done=True)


def told_seats(table: Table) -> list[int]:
    """The seats a notification may be owed to in this state: people to act, or all at the end."""
    if table.outcome is not None:
        return list(range(table.players))
    bots = table.bots
    return [seat for seat in table.to_act if seat not in bots]


class Dispatcher:
    """Games(store, dispatch=Dispatcher(client)): every writer enqueues what its append calls for.

    `connection` is rq's Redis; `log` the log's (where the seat store is), when it lives apart.
    """

    def __init__(self, connection: redis.Redis, log: redis.Redis | None = None) -> None:
        self.connection = connection
        self.seats = Seats(log if log is not None else connection)
        self.queues: dict[str, Any] = {}  # name -> rq Queue, made on first use
        self.registered: set[str] = set()  # queues this process has listed in rq's set of queues

    def __call__(self, game_id: str, table: Table, reach: Iterable[int] | None = None) -> None:
        """`reach`: the seats with a channel, when the caller knows them (Games hands on what its
        append script read from the game's row); else they are read, only in a state that waits
        on a person or is over."""
        candidates = told_seats(table)
        if not candidates:
            reachable: set[int] = set()
        elif reach is not None:
            reachable = set(reach) & set(candidates)
        else:
            reachable = self.seats.reachable(game_id, candidates)
        for work in work_for(game_id, table, reachable):
            self.enqueue(work)

    def enqueue(self, work: Work, at_front: bool = False) -> bool:
        """True if queued now; False if a job with that id exists already. `at_front`: ahead of
        the queue (recovery's choice for work that has waited already)."""
        from rq import Queue, Retry
        from rq.exceptions import DuplicateJobError

        if work.retry_intervals:
            retry, timeout = Retry(max=len(work.retry_intervals), interval=list(work.retry_intervals)), NOTIFY_TIMEOUT_S
        else:
            retry, timeout = Retry(max=RETRIES), TURN_TIMEOUT_S

        if work.queue not in self.queues:
            self.queues[work.queue] = Queue(work.queue, connection=self.connection)
        if work.at_ms is not None:
            return self._schedule(work)
        # rq's unique enqueue saves and queues the job at once in its own script; what it puts in
        # the pipeline it is given is only the queue's entry in rq's set of queues, the same every
        # time: sent once per process, it saves a round trip on every AI turn. Anything more in
        # the pipeline (a later rq queuing the job there) is sent.
        pipeline = self.connection.pipeline()
        try:
            self.queues[work.queue].enqueue_call(
                work.function,
                args=work.args,
                job_id=work.job_id,
                unique=True,
                timeout=timeout,
                description=work.job_id,  # rq's default repeats the call: ids only, but say so
                result_ttl=RESULT_TTL_S,
                failure_ttl=RESULT_TTL_S * 24,
                retry=retry,
                pipeline=pipeline,
                at_front=at_front,
            )
            if len(pipeline) > 1 or work.queue not in self.registered:
                pipeline.execute()
                self.registered.add(work.queue)
        except DuplicateJobError:
            return False
        return True

    def _schedule(self, work: Work) -> bool:
        """Into rq's ScheduledJobRegistry (its unique schedule is one script too); a worker's
        scheduler moves it to its queue at `work.at_ms`."""
        from rq import Retry
        from rq.exceptions import DuplicateJobError

        # rq's registry holds whole seconds: rounded up, so a job never runs before its time.
        when = datetime.fromtimestamp(-(-work.at_ms // 1000), UTC)
        try:
            self.queues[work.queue].enqueue_at(
                when,
                work.function,
                *work.args,
                job_id=work.job_id,
                unique=True,
                job_timeout=TURN_TIMEOUT_S,
                result_ttl=RESULT_TTL_S,
                failure_ttl=RESULT_TTL_S * 24,
                retry=Retry(max=RETRIES),
            )
        except DuplicateJobError:
            return False
        return True
