"""`pbm list`: the games in the log, from their rows (events.store) and the index, in one pipelined
read. It reads no log, except a game's whose row does not know its status, and writes nothing.

A module of its own so that listing imports only the store: not the command path, the codec or the
rules (a fresh `pbm list` pays for every module it imports; bench/index.py measures it on 10,000
games, target under a second).
"""

from __future__ import annotations

import json
import time
from typing import Any

import click

from pbm.cli import emit_json, say
from pbm.result import result_text
from pbm.view_text import columns, seats_text


@click.command(name="list")
@click.option("--running", is_flag=True, help="Only games not over.")
@click.option("--finished", is_flag=True, help="Only games over.")
@click.option("--waiting-for", "waiting_for", type=int, metavar="SEAT", help="Only games waiting for this seat.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_games(running: bool, finished: bool, waiting_for: int | None, as_json: bool) -> None:
    """List the games in the log (all, or those the filters pick)."""
    from events import server
    from events.store import Store

    if running and finished:
        raise click.UsageError("--running and --finished exclude each other")
    store = Store(server.connect())
    rows = []
    state = "running" if running else "finished" if finished else None
    games_ = None  # the command path, made only to fold a game whose row does not know its status
    for info in store.games(state, waiting_for):
        row: dict[str, Any] = {"game_id": info.game_id, "game": info.slug, "players": info.players, "seq": info.length}
        if info.unverified is not None:
            row["unverified"] = info.unverified
        if info.status is not None:  # the row written with the events: no log read
            status = info.status
            rows.append(row | {"to_act": list(status.to_act), "outcome": status.outcome, "since_ms": status.since_ms}
                        | ({"status": f"waiting for {status.waiting}"} if status.waiting else {}))
            continue
        from events.commands import Games, UnreadableGame

        games_ = games_ or Games(store)
        try:  # a game logged before rows were kept (`pbm reindex` writes them), or unverified: fold its log
            table = games_.table(info.game_id)
        except UnreadableGame as error:
            # One damaged log must not hide the others: list it, say what is wrong.
            rows.append(row | {"error": error.reason})
            continue
        outcome = table.outcome
        outcome = None if outcome is None else outcome.to_dict()
        rows.append(row | {"seq": table.seq, "to_act": list(table.to_act), "outcome": outcome, "since_ms": None}
                    | ({"status": "waiting for salts"} if table.waiting_for_salts else {}))
    from events.joining import open_seats_of

    unseated = open_seats_of(store.redis, [row["game_id"] for row in rows if row.get("outcome") is None])
    for row in rows:
        if row["game_id"] in unseated:  # its clock starts when they are taken
            row["waiting_for_players"] = unseated[row["game_id"]]
    filtered = running or finished or waiting_for is not None
    if filtered:  # the index picked them; a row that did not know its status was folded above
        rows = [row for row in rows if picked(row, running, finished, waiting_for)]
    if as_json:
        return emit_rows(rows) if rows else emit_json(rows)
    if not rows:
        return say(f"no game matches {filters_text(running, finished, waiting_for)}" if filtered else "no games yet: try pbm new holly-oak --players 3, or pbm demo")
    lines = [(row["game_id"], row["game"], str(row["players"]), str(row["seq"]), status_text(row)) for row in rows]
    # Plain columns: a rich table takes seconds to lay out ten thousand games.
    click.echo("\n".join(columns([("id", "game", "players", "events", "status"), *lines], indent="")))


def filters_text(running: bool, finished: bool, waiting_for: int | None) -> str:
    """The filters as they were typed: `--running --waiting-for 2`."""
    return " ".join(["--running"] * running + ["--finished"] * finished + ([] if waiting_for is None else [f"--waiting-for {waiting_for}"]))


def emit_rows(rows: list[dict[str, Any]]) -> None:
    """A JSON array with one row a line: json's C encoder writes each (with indent= it falls back
    to its pure-Python one, which took most of a second for 10,000 rows)."""
    click.echo("[\n  " + ",\n  ".join(json.dumps(row) for row in rows) + "\n]")


def picked(row: dict[str, Any], running: bool, finished: bool, waiting_for: int | None) -> bool:
    if "outcome" not in row or "unverified" in row:  # unreadable, or never to be played
        return False
    over = row["outcome"] is not None
    return (not running or not over) and (not finished or over) and (waiting_for is None or waiting_for in row["to_act"])


def status_text(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"unreadable: {row['error']}"
    if "unverified" in row:
        return f"imported unverified, never played: {row['unverified']}"
    outcome = row["outcome"]
    if row.get("waiting_for_players"):
        return "waiting for players: " + seats_text(row["waiting_for_players"]) + " open"
    if outcome is None:
        since = row.get("since_ms")
        when = "" if since is None else time.strftime(" since %Y-%m-%d %H:%M UTC", time.gmtime(since / 1000))
        return row.get("status", "waiting for " + seats_text(row["to_act"])) + when
    return "over: " + result_text(row["game"], outcome)
