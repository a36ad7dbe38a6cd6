"""`pbm delete` and `pbm archive`: games removed from Redis on purpose (an archive first writes the
game's replay file, which `pbm replay import` brings back). The only commands that remove a log;
they go through events.store.Store.delete.
"""

from __future__ import annotations

from pathlib import Path

import click

import core
from events.commands import UnknownGame, UnreadableGame
from pbm.cli import PathParam, emit_json, open_games, say
from pbm.view_text import seats_text

FORCE = click.option("--force", is_flag=True, help="Also a game still running.")


def check_deletable(games_, game_id: str, force: bool, verb: str = "deletes") -> None:
    """A running game is someone's: deleting (or archiving, `verb`) it takes --force, and the
    refusal names that flag for the command given. A broken one may go without."""
    if games_.store.info(game_id) is None:
        raise UnknownGame(game_id)
    try:
        table = games_.table(game_id)
    except UnreadableGame:
        return
    if table.outcome is None and not force:
        raise core.SetupError(f"game {game_id} is still running (waiting for {seats_text(list(table.to_act))}): --force {verb} it anyway")


@click.command()
@click.argument("game_ids", metavar="GAME...", nargs=-1, required=True)
@FORCE
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def delete(game_ids: tuple[str, ...], force: bool, as_json: bool) -> None:
    """Delete games from the log for good (a running one only with --force); see also pbm archive."""
    games_ = open_games()
    for game_id in game_ids:  # every one checked before any is deleted: all or nothing
        check_deletable(games_, game_id, force)
    deleted = [games_.store.delete(game_id) for game_id in game_ids]
    if as_json:
        return emit_json([{"game_id": info.game_id, "game": info.slug, "events": info.length} for info in deleted if info])
    say(*(f"deleted {info.game_id} ({info.slug}, {info.length} events)" for info in deleted if info))


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", "path", required=True, type=PathParam(dir_okay=False), help="The replay file to write.")
@FORCE
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def archive(game_id: str, path: str, force: bool, as_json: bool) -> None:
    """Write a game's replay file, check it reads back the same, then delete the game from Redis."""
    from replays import archive as replay_files

    games_ = open_games()
    check_deletable(games_, game_id, force, verb="archives")
    from replays.log import BadLog

    try:
        log = replay_files.export(games_.store, game_id, path)
        same = replay_files.read(path).envelopes == log.envelopes
    except (OSError, BadLog) as error:
        raise core.SetupError(f"{path}: {getattr(error, 'strerror', None) or error}: nothing deleted") from None
    if not same:  # never delete what the file lacks
        raise core.SetupError(f"{path} does not read back as game {game_id}: nothing deleted")
    games_.store.delete(game_id)
    if as_json:
        return emit_json({"game_id": game_id, "file": str(Path(path)), "events": len(log.events)})
    say(f"archived {game_id} ({len(log.events)} events) to {path} and deleted it; pbm replay import {path} brings it back")
