"""`pbm worker`, `pbm recover`, `pbm stats` and `pbm simulate`: the shell over workers/. It parses,
calls and renders; the jobs, dispatch and analytics live in workers/. rq and matplotlib are imported
by the commands that use them, not here (`pbm --help` imports this module).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
import redis
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

import core
from events import keys, server
from pbm.cli import PathParam, console, emit_json, errors, fail, open_games, say
from workers import analytics
from workers.bots import parse_kind
from workers.dispatch import AI_QUEUE, ANALYTICS_QUEUE, NOTIFY_QUEUE, QUEUES

SIMULATED = "sim-"  # the tag at the start of a simulated game's id
QUEUE_WORK = {AI_QUEUE: "bot turns", NOTIFY_QUEUE: "turn mails and webhooks", ANALYTICS_QUEUE: "game summaries"}


@click.command()
@click.option("--burst", is_flag=True, help="Stop when the queues are empty.")
@click.option("--queue", "queues", multiple=True, type=click.Choice(QUEUES), help="Serve only these (default: all, turns first).")
@click.option("--no-recover", is_flag=True, help="Skip the start-up search for lost work.")
@click.option("--verbose", "-v", is_flag=True, help="Log every job.")
def worker(burst: bool, queues: tuple[str, ...], no_recover: bool, verbose: bool) -> None:
    """Run a worker: bot turns, deadlines and game summaries, from rq queues in the same Redis as the games.

    It is rq's SimpleWorker (no fork per job: a bot turn is a few milliseconds, a fork per job
    would cost more than the turn and drop the tables kept folded between turns), with rq's
    scheduler in a thread (deadlines and reminders, docs/clocks.md). At start, and every 10
    seconds in one of the running workers, it queues any work a crash lost.
    """
    from workers.worker import in_one_line, make_worker

    client = server.connect()
    queue_client = server.connect_queues(client)
    for each in {id(client): client, id(queue_client): queue_client}.values():
        first_ping(each)
    # From here on a lost Redis is waited out (workers.worker); what still ends the worker (Redis
    # refusing a command, or lost as the worker stops) is said with the step it came from.
    try:
        runner = make_worker(queue_client, queues or QUEUES, recovering=not no_recover, log=client)
        served = ", ".join(f"{QUEUE_WORK.get(queue, queue)} ({queue})" for queue in queues or QUEUES)
        # On stdout: stderr stays the one line that says why a worker stopped (tests/test_redis_failures.py).
        say(f"pbm worker: {served}, and the deadlines' scheduler, for the games in {server.describe()}"
            + ("; it stops when the queues are empty" if burst else ""))
        if not os.environ.get("PBM_ADMIN_TOKEN"):
            say("warning: PBM_ADMIN_TOKEN is not set: a `pbm serve` started with this environment has its operator's API (/api/games) and console off")
        if not no_recover:
            queued = runner.recover_now()
            if queued:
                errors.print(f"recovered {len(queued)} lost job(s)", highlight=False)
        runner.work(burst=burst, logging_level="INFO" if verbose else "WARNING")
    except redis.RedisError as error:
        fail(in_one_line(error))
    if runner.redis_failure:
        fail(runner.redis_failure)


START_WAIT_S = 30.0  # how long a worker tries at start for a Redis it cannot reach


def first_ping(client) -> None:
    """A Redis that fails at start does so here, in one line, not inside rq (which warns and goes
    on). One that cannot be reached is tried again for START_WAIT_S first, saying so: a Sentinel
    failover takes seconds, and a worker started meanwhile (or still importing when it began) must
    not end for it; past that, the address is most likely wrong. A refused password or a missing
    database is not tried again."""
    from workers.worker import in_one_line

    give_up, wait = time.monotonic() + START_WAIT_S, 1.0
    while True:
        try:
            client.ping()
            return
        except (redis.ConnectionError, redis.TimeoutError) as error:
            if isinstance(error, redis.AuthenticationError) or time.monotonic() + wait > give_up:
                raise
            errors.print(f"pbm worker: could not connect to Redis: {in_one_line(error)}; retrying in {wait:g} seconds", highlight=False, markup=False, soft_wrap=True)
            time.sleep(wait)
            wait = min(wait * 2, 8.0)


@click.command(name="recover")
@click.option("--json", "as_json", is_flag=True)
def recover_command(as_json: bool) -> None:
    """Queue the work lost by a crash: bot turns nobody will play, summaries nobody will write."""
    from workers.recovery import recover

    client = server.connect()
    queued = recover(client, server.connect_queues(client))
    if as_json:
        return emit_json({"queued": queued})
    console.print(f"queued {len(queued)} job(s)" + (": " + ", ".join(queued) if queued else ""), highlight=False)


@click.command()
@click.argument("game_id", metavar="GAME", required=False)
@click.option("--game", "slug", help="Aggregates over every summarized game of this type.")
@click.option("--json", "as_json", is_flag=True)
def stats(game_id: str | None, slug: str | None, as_json: bool) -> None:
    """A finished game's summary (pbm stats GAME), or aggregates (pbm stats --game SLUG)."""
    if (game_id is None) == (slug is None):
        fail("give a game id, or --game SLUG, not both")
    store = open_games().store
    if slug is not None:
        core.get_game(slug)
        summaries = analytics.load_summaries(store, slug)
        by_players = analytics.aggregate_by_players(summaries)
        if as_json:
            return emit_json({"game": slug, "games": len(summaries), "by_players": {str(n): result for n, result in by_players.items()}})
        if not by_players:
            return say(f"{slug}: no summarized games yet")
        for players, result in by_players.items():
            render_aggregate(slug, result, players)
        return None
    summary = analytics.load_summary(store, game_id)
    if summary is None:
        info = store.info(game_id)
        fail(f"no game {game_id!r} (see `pbm list`)" if info is None else f"game {game_id} has no summary yet: it is summarized by a worker when it ends")
    if as_json:
        return emit_json(summary)
    render_summary(summary)


def render_summary(summary: dict[str, Any]) -> None:
    console.print(
        f"[bold]{summary['game_id']}[/] ({summary['game']}): {summary['events']} events, "
        f"{sum(summary['moves'])} moves, {summary['duration_ms'] / 1000:.1f} s",
        highlight=False,
    )
    per_seat = RichTable("seat", "player", "score", "won", "moves", "think (s)", box=None)
    extras = [key for key in ("tricks", "kings", "king_points") if key in summary]
    for key in extras:
        per_seat.add_column(key.replace("_", " "))
    for seat in range(summary["players"]):
        per_seat.add_row(
            str(seat),
            summary["seats"][seat],
            str(summary["scores"][seat]),
            "yes" if seat in summary["winners"] else "",
            str(summary["moves"][seat]),
            f"{summary['think_ms'][seat] / 1000:.2f}",
            *(str(summary[key][seat]) for key in extras),
        )
    console.print(per_seat)
    if "rounds" in summary:
        console.print(f"rounds: {summary['rounds']}")


def rate_text(rate: dict[str, Any]) -> str:
    return f"{rate['rate']:.1%} [{rate['low']:.1%}, {rate['high']:.1%}] of {rate['games']}"


def render_aggregate(slug: str, result: dict[str, Any], players: int) -> None:
    games = result["games"]
    say(f"{slug}, {players} player{'s' if players != 1 else ''}: {games} summarized game{'s' if games != 1 else ''}")
    if not games:
        return
    if result["cooperative"]:
        say(f"team win rate [95% Wilson interval] over games: {rate_text(result['team_win_rate'])}")
        listing = RichTable("team", "win rate [95% Wilson interval] over games", box=None)
        for team, rate in result["team_win_rate_by_team"].items():
            listing.add_row(team, rate_text(rate))
        console.print(listing, highlight=False, markup=False)
    else:
        say(f"games with a winner: {rate_text(result['games_with_a_winner'])}")
        for title, rows in (("seat", result["win_rate_by_seat"]), ("player", result["win_rate_by_kind"])):
            listing = RichTable(title, "win rate [95% Wilson interval] of seat-games", box=None)
            for name, rate in rows.items():
                listing.add_row(str(name), rate_text(rate))
            console.print(listing, highlight=False, markup=False)
    for name in ("scores", "winning_scores", "length_moves"):
        d = result[name]
        if d["n"]:
            say(f"{name.replace('_', ' ')}: min {d['min']}, median {d['median']}, mean {d['mean']}, max {d['max']}")
        elif name == "winning_scores":
            say("winning scores: none (no game was won)")


@click.command()
@click.argument("game")
@click.option("--games", "count", type=click.IntRange(1, 1_000_000), default=100, show_default=True)
@click.option("--players", "-p", type=int, help="Seats per game (default: as many as --bots names, or the game's fewest).")
@click.option("--bots", "bot_list", default="random", show_default=True, help="Bot kinds, comma separated: one for all seats, or one per seat (rotated over the seats from game to game).")
@click.option("--out", "out_dir", type=PathParam(file_okay=False), default="simulation", show_default=True, help="Where the report goes.")
@click.option("--workers", "spawn", type=click.IntRange(0, 64), default=0, help="Start this many local workers for the run (default: use the running ones).")
@click.option("--seed", type=click.IntRange(0, 2**200), help="Derive the games' seeds from this (reproducible runs).")
@click.option("--stall-timeout", "stall_s", type=click.FloatRange(min=1), default=300, show_default=True, metavar="SECONDS", help="Give up when no game has finished for this long.")
@click.option("--keep", is_flag=True, help="Keep the games in the log after the report (default: delete them).")
@click.option("--json", "as_json", is_flag=True)
def simulate(game: str, count: int, players: int | None, bot_list: str, out_dir: str, spawn: int, seed: int | None, stall_s: float, keep: bool, as_json: bool) -> None:
    """Play GAMES bot-only games on the workers, then write a report of who wins how often.

    The games are tagged by their ids (sim-GAME-RUN-N) and deleted once the report is written,
    unless --keep: a thousand bot games would otherwise crowd `pbm list` and `pbm stats --game`.
    A run that stops before the end (Ctrl-C, dead workers, no progress for --stall-timeout)
    deletes the games it created, so they neither linger as running games nor enter the stats.
    """
    from workers import report
    from workers.worker import running_workers

    spec = core.get_game(game)
    kinds = [str(parse_kind(kind)) for kind in bot_list.split(",") if kind.strip()]
    if not kinds:
        fail("--bots names no bot kind")
    players = players or (len(kinds) if len(kinds) > 1 else spec.min_players)
    if len(kinds) not in (1, players):
        fail(f"--bots names {len(kinds)} kinds for {players} seats: give one kind, or one per seat")
    games_ = open_games()
    client = games_.store.redis
    started = spawn_workers(spawn)
    try:
        if not spawn and not running_workers(games_.dispatch.connection):
            fail("no worker is running: start `pbm worker` (or pass --workers N)")
        ids: list[str] = []
        run = secrets.token_hex(3)
        try:
            for index in range(count):
                seats = {seat: kinds[(seat + index) % len(kinds)] for seat in range(players)}
                game_seed = None if seed is None else seed * 1_000_003 + index
                ids.append(games_.create(game, players, seed=game_seed, bots=seats, game_id=f"{SIMULATED}{game}-{run}-{index}"))
            summaries = wait_for_summaries(client, ids, started, stall_s)
        except (Stopped, KeyboardInterrupt) as stop:
            stop_workers(started)  # first, so no job of theirs writes to a game being deleted
            started.clear()
            for game_id in ids:
                games_.store.delete(game_id)
            fail(f"{stop or 'interrupted'}; deleted the {len(ids)} game(s) this simulation created")
    finally:
        stop_workers(started)
    result = analytics.aggregate(summaries)
    path = report.write(Path(out_dir), game, players, kinds, summaries, result)
    if not keep:  # the report holds what the run found; the games themselves were only the means
        for game_id in ids:
            games_.store.delete(game_id)
    if as_json:
        return emit_json({"report": str(path), "games": ids, "kept": keep, "aggregate": result})
    render_aggregate(game, result, players)
    console.print(f"report: {path}", highlight=False)
    console.print(f"the {len(ids)} games ({SIMULATED}{game}-{run}-N) are kept in the log" if keep
                  else f"deleted the {len(ids)} games it played (--keep keeps them)", highlight=False)


class Stopped(Exception):
    """The simulation cannot finish: its workers are gone, or nothing moves any more."""


WORKER_CHECK_S = 5.0  # how often a run on someone else's workers asks rq whether any is alive


def wait_for_summaries(client: Any, ids: list[str], started: list[subprocess.Popen], stall_s: float) -> list[dict[str, Any]]:
    """Every game's summary, once workers have played and summarized them all. Stopped when the
    workers this run started have all died, when rq knows of no live worker, or after `stall_s`
    seconds without a game finishing."""
    from workers.worker import running_workers

    remaining = list(ids)
    found: dict[str, dict[str, Any]] = {}
    progressed = checked = time.monotonic()
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn())
    with Progress(*columns, console=errors, transient=False) as progress:
        task = progress.add_task("games finished", total=len(ids))
        while remaining:
            pipe = client.pipeline(transaction=False)
            for game_id in remaining:
                pipe.get(keys.summary(game_id))
            for game_id, raw in zip(list(remaining), pipe.execute()):
                if raw is not None:
                    found[game_id] = json.loads(raw)
                    remaining.remove(game_id)
                    progressed = time.monotonic()
            progress.update(task, completed=len(found))
            if not remaining:
                break
            now = time.monotonic()
            if started and all([process.poll() is not None for process in started]):  # each polled: every dead one reaped
                codes = ", ".join(str(process.returncode) for process in started)
                raise Stopped(f"the worker(s) this simulation started have died (exit status {codes})")
            if not started and now - checked > WORKER_CHECK_S:
                checked = now
                if not running_workers(client):
                    raise Stopped("no worker is running any more")
            if now - progressed > stall_s:
                raise Stopped(f"no game finished in {stall_s:g} s: are the workers alive? (pbm worker)")
            time.sleep(0.2)
    return [found[game_id] for game_id in ids]


def spawn_workers(count: int) -> list[subprocess.Popen]:
    return [
        subprocess.Popen([sys.executable, "-m", "pbm", "worker", "--no-recover"], env=os.environ.copy())
        for _ in range(count)
    ]


def stop_workers(started: list[subprocess.Popen]) -> None:
    for process in started:
        process.send_signal(signal.SIGTERM)  # rq's warm shutdown: the current job finishes first
    for process in started:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
