"""The rq job functions: one bot turn, one game's summary. They take ids only, re-read the log,
and write only through the command path; run twice, they change nothing the second time.
"""

from __future__ import annotations

import time

import redis
from rq import get_current_job

from events import server
from events.commands import CommandIdReused, Games, UnknownGame, UnreadableGame
from events.store import Conflict, NotPlayable, Store
from workers import analytics, bots
from workers.dispatch import Dispatcher, turn_command_id

_games: dict[str, Games] = {}


def games_for(queues: redis.Redis) -> Games:
    """One Games per rq Redis and process: its folded tables stay warm from job to job, so a
    turn reads only the events appended since that game's last turn here. The log is on rq's
    own Redis unless it lives apart (events.server.queues_apart: a Cluster, or PBM_QUEUE_URL)."""
    server_key = repr(queues.connection_pool)
    games = _games.get(server_key)
    if games is None:
        log = server.connect() if server.queues_apart() else queues
        games = _games[server_key] = Games(Store(log), dispatch=Dispatcher(queues, log=log))
    return games


def current_connection() -> redis.Redis:
    """rq's Redis: the running job's, else the configured one."""
    job = get_current_job()
    return job.connection if job is not None else server.connect_queues()


def take_turn(game_id: str, seq: int, seat: int) -> dict:
    """Play `seat`'s move at `seq` if the game still waits for it there; else do nothing."""
    games = games_for(current_connection())
    try:
        table = games.table_at(game_id, seq)
    except UnreadableGame as error:  # a broken log: nobody plays it, the job is done
        return {"status": "unplayable", "reason": str(error)}
    except UnknownGame:  # deleted (`pbm delete`, a stopped simulation) since the turn was queued
        return {"status": "gone"}
    if table.seq != seq or seat not in table.to_act:
        done = games.store.command(game_id, turn_command_id(seq, seat))
        if done is not None:
            # Our move is in the log, but the job died before its dispatch: dispatch again (the
            # jobs are unique, so whatever was already queued is not queued twice).
            games.dispatch(game_id, table)
        return {"status": "stale", "seq": table.seq}
    kind = table.bots.get(seat)
    if kind is None:
        return {"status": "not a bot seat"}
    started = time.perf_counter()
    move = bots.choose(kind, table, seat, bots.bot_random(game_id, seq, seat))
    think_ms = (time.perf_counter() - started) * 1000
    try:
        submitted = games.submit(game_id, seat, move, command_id=turn_command_id(seq, seat), expected_seq=seq)
    except Conflict:
        return {"status": "stale"}
    except NotPlayable as error:
        return {"status": "unplayable", "reason": str(error)}
    except CommandIdReused:
        # A twin of this job (a retry of a bot with a time budget) chose another move and played
        # it first: the turn is taken; dispatch as for a duplicate.
        games.dispatch(game_id, games.table(game_id))
        return {"status": "stale", "seq": seq}
    if submitted.duplicate:
        games.dispatch(game_id, games.table(game_id))
    return {"status": "played", "move": move, "think_ms": round(think_ms, 3), "duplicate": submitted.duplicate}


def summarize(game_id: str) -> dict:
    """Write the finished game's summary (idempotent: the same log gives the same summary)."""
    games = games_for(current_connection())
    if games.store.info(game_id) is None:  # deleted since the game ended
        return {"status": "gone"}
    return analytics.store_summary(games.store, game_id)


def noop() -> None:
    """The baseline job of bench/workers.py: rq's own cost per job, nothing of ours."""
