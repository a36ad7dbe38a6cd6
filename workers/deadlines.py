"""The clock's rq jobs: a look at a seat's deadline, and a reminder before it. They take ids only,
re-read the game's table and clock (events.clock computes every due time from the log), and write
only through the command path; run twice, they change nothing the second time.

`watch(game, seat, turn)` is the one deadline job. Dispatch queues it at once after every append
that leaves a person to act in a game with a deadline (turn None: whatever turn is in progress);
it then schedules itself, through rq's scheduler, at the turn's due time (with the turn named),
and the reminders before it. When it runs:
- the turn it was scheduled for is over (the seat moved), or the seat is a bot's: nothing;
- the clock is paused: nothing (the resume's dispatch looks again);
- not yet due (an extension, a pause or a vacation moved the due time): schedule again at the new
  due time (the job id holds the due time, so every look that finds the same one schedules one job);
- due, and the game still waits on that seat in that turn: record TurnTimedOut, let the autopilot
  (the heuristic bot) move through the command path with command id `timeout:<turn>:<seat>`, and
  after `autopilot_after` timeouts in a row hand the seat to the autopilot (workers.bots'
  "autopilot" kind) until its player moves again (pbm.web.api hands it back on that move).
`watch_salts(game)` is the salts' deadline, in a game whose opening deal waits for the players'
salts (core.salts): with a clock, one move's time from the game's creation (the clock's first turn,
stopped while it is paused, and while the first seat still owed a salt is on vacation); without one,
events.clock.SALTS_WITHOUT_CLOCK_S from it (Clock.salts_due_ms). Due,
it closes the salts as they stand (Games.close_salts: the seats that sent none are named silent in
the log, and take their silent salts, derived from the committed seed) and the deal follows;
before, it schedules itself at the due time, as watch does.
Seat notices (a reminder, a timeout) go to the seat through pbm's notifications (pbm.mail.notify), queued
as an rq job named by its dotted path (workers.dispatch.NOTIFY_FUNCTION): workers never import pbm.
"""

from __future__ import annotations

import time

import core
from core.table import duration_text
from events import clock as clocks
from events.commands import UnknownGame, UnreadableGame
from events.store import Conflict, NotPlayable
from workers import bots
from workers.dispatch import AI_QUEUE, Work, deadline_job_id, notify_work, reminder_job_id, salts_deadline_job_id
from workers.jobs import current_connection, games_for

TIMEOUT_ATTEMPTS = 5  # a timeout raced by other appends (a pause, a vacation) is looked at again
EARLY_MS = 3000  # a job this close to its due time (another machine's clock) waits for it, not reschedules


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def due_note(due_ms: int, now: int) -> str:
    """What a reminder says of the due time: how long is left. The mail itself tells the due time
    in the person's own time zone (pbm.mail.notify), which a worker does not know."""
    left = max(1, (due_ms - now) // 1000)
    return f"a reminder: {duration_text(left)} left to move"


class Answered(Exception):
    """What a clock's job answers without acting on the game (read_game says why)."""

    def __init__(self, answer: dict) -> None:
        super().__init__(answer["status"])
        self.answer = answer


def read_game(games, game_id: str, clock_needed: bool = True) -> tuple[core.Table, clocks.Clock]:
    """The game's table and clock for a deadline's job, or Answered: the game is gone, cannot be
    played, or (when `clock_needed`) has no clock."""
    try:
        table, clock = games.table_with_clock(game_id)
    except UnreadableGame as error:
        raise Answered({"status": "unplayable", "reason": str(error)}) from None
    except UnknownGame:
        raise Answered({"status": "gone"}) from None
    if clock_needed and table.clock is None:
        raise Answered({"status": "no clock"})
    return table, clock


def watch(game_id: str, seat: int, turn: int | None = None) -> dict:
    """Act on `seat`'s deadline in the turn that began at `turn` (None: the turn in progress)."""
    games = games_for(current_connection())
    for _attempt in range(TIMEOUT_ATTEMPTS):
        try:
            table, clock = read_game(games, game_id)
        except Answered as answered:
            return answered.answer
        if table.outcome is not None:
            return {"status": "over"}
        if (turn is not None and clock.turn != turn) or seat not in table.to_act or seat in table.bots:
            return {"status": "stale", "turn": clock.turn}
        due = clock.due_ms(seat)
        if due is None:
            return {"status": "paused"}
        now = now_ms()
        if turn is not None and now < due <= now + EARLY_MS:
            time.sleep((due - now) / 1000)
            continue
        if now < due:
            scheduled = schedule(games.dispatch, game_id, clock, seat, due, now)
            return {"status": "waiting", "due_ms": due, "scheduled": scheduled}
        if games.settle(game_id) != table.seq:
            continue  # its only legal move was owed to it (a process died before playing it): played now
        try:
            games.record(game_id, core.TurnTimedOut(seat=seat, turn=clock.turn), command_id=f"timed-out:{clock.turn}:{seat}", expected_seq=table.seq)
        except Conflict:
            continue  # someone appended meanwhile (the seat may have moved): look again
        except NotPlayable as error:
            return {"status": "unplayable", "reason": str(error)}
        return autopilot(games, game_id, seat, clock.turn)
    return {"status": "busy"}  # appends kept racing it; the next append's dispatch looks again


def watch_salts(game_id: str, due_ms: int | None = None) -> dict:
    """Close the salts once their deadline is due (the module text); run again, nothing."""
    games = games_for(current_connection())
    for _attempt in range(TIMEOUT_ATTEMPTS):
        try:
            table, clock = read_game(games, game_id, clock_needed=False)  # without a clock the salts have a deadline too
        except Answered as answered:
            return answered.answer
        if not table.waiting_for_salts:
            return {"status": "stale"}
        due = clock.salts_due_ms(table.waiting_for_salts[0])
        if due is None:
            return {"status": "paused"}
        now = now_ms()
        if now < due:
            work = Work(AI_QUEUE, "workers.deadlines.watch_salts", (game_id, due), salts_deadline_job_id(game_id, due), at_ms=due)
            return {"status": "waiting", "due_ms": due, "scheduled": [work.job_id] if games.dispatch.enqueue(work) else []}
        try:
            closed = games.close_salts(game_id, expected_seq=table.seq)
        except Conflict:
            continue  # a salt came in meanwhile: look again
        except core.IllegalMove:
            return {"status": "stale"}
        except NotPlayable as error:
            return {"status": "unplayable", "reason": str(error)}
        return {"status": "closed", "seq": closed.seq, "silent": list(table.waiting_for_salts)}
    return {"status": "busy"}


def autopilot(games, game_id: str, seat: int, turn: int) -> dict:
    """The autopilot's move for a timed-out turn, then (after enough in a row) the seat handed to it."""
    table, clock = games.table_with_clock(game_id)
    if clock.turn != turn or seat not in table.to_act:
        return {"status": "timed out", "move": None}  # its player moved right after the timeout
    move = bots.choose(clocks.AUTOPILOT, table, seat, bots.bot_random(game_id, table.seq, seat))
    try:
        submitted = games.submit(game_id, seat, move, command_id=clocks.timeout_command_id(turn, seat), expected_seq=table.seq)
    except Conflict:
        return {"status": "timed out", "move": None}
    handed = False
    limit = table.clock.autopilot_after
    in_a_row = clock.timeouts_in_a_row.get(seat, 0)
    after = games.table(game_id)
    if limit and in_a_row >= limit and seat not in after.bots and after.outcome is None:
        games.seat_bots(game_id, {**after.bots, seat: clocks.AUTOPILOT}, command_id=f"autopilot:{turn}:{seat}")
        handed = True
    notify(games.dispatch, game_id, seat, "timeout", turn, f"your time ran out: the autopilot played {move}" + (
        f"; after {in_a_row} timeouts in a row it plays your seat until you move again" if handed else ""))
    return {"status": "timed out", "move": move, "seq": submitted.seq, "autopilot": handed, "in_a_row": in_a_row}


def schedule(dispatcher, game_id: str, clock: clocks.Clock, seat: int, due: int, now: int) -> list[str]:
    """The deadline job at `due` and each reminder still ahead; returns the ids newly scheduled."""
    works = [Work(AI_QUEUE, "workers.deadlines.watch", (game_id, seat, clock.turn), deadline_job_id(game_id, clock.turn, seat, due), at_ms=due)]
    for before_s in clock.settings.reminders_s:
        at = due - before_s * 1000
        if at > now:
            works.append(Work(AI_QUEUE, "workers.deadlines.remind", (game_id, seat, clock.turn, before_s), reminder_job_id(game_id, clock.turn, seat, before_s, due), at_ms=at))
    return [work.job_id for work in works if dispatcher.enqueue(work)]


def remind(game_id: str, seat: int, turn: int, before_s: int) -> dict:
    """Tell the seat its move is due soon, if its turn is still on and still due that soon."""
    games = games_for(current_connection())
    try:
        table, clock = games.table_with_clock(game_id)
    except (UnknownGame, UnreadableGame):
        return {"status": "gone"}
    if table.clock is None or table.outcome is not None or seat not in table.to_act or seat in table.bots:
        return {"status": "stale"}
    due = clock.due_ms(seat)
    now = now_ms()
    if clock.turn != turn or due is None:
        return {"status": "stale" if due is not None else "paused"}
    if due - now > before_s * 1000 + 1000:  # the due time moved later: the look that saw it reminds
        return {"status": "moved", "due_ms": due}
    # pbm.mail.notify sends a reminder about the game's seq as it is now (it checks the game is still
    # there); its key holds `before_s`, so each reminder of a turn is queued and sent once.
    notify(games.dispatch, game_id, seat, "reminder", table.seq, due_note(due, now), f"before-{before_s}")
    return {"status": "reminded", "due_ms": due}


def notify(dispatcher, game_id: str, seat: int, kind: str, seq: int, note: str, key: str = "") -> bool:
    """Queue pbm's notice to the seat (pbm.mail.notify.notify_seat, named by workers.dispatch: once per
    game, seq, seat and kind, and per reminder by its `key`)."""
    return dispatcher.enqueue(notify_work(game_id, seq, seat, kind, note, key))
