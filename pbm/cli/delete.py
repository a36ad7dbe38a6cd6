"""`pbm delete` and `pbm archive`: games removed from Redis on purpose (an archive first writes the
game's replay file, which `pbm replay import` brings back). The only commands that remove a log;
they go through pbm.deleting, as the web console does.
"""

from __future__ import annotations

from pathlib import Path

import click

import core
from pbm import deleting
from pbm.cli import PathParam, emit_json, open_games, say

FORCE = click.option("--force", is_flag=True, help="Also a game still running.")


@click.command()
@click.argument("game_ids", metavar="GAME...", nargs=-1, required=True)
@FORCE
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def delete(game_ids: tuple[str, ...], force: bool, as_json: bool) -> None:
    """Delete games from the log for good (a running one only with --force); see also pbm archive."""
    deleted = deleting.delete(open_games(), game_ids, force)  # all or nothing
    if as_json:
        return emit_json([{"game_id": info.game_id, "game": info.slug, "events": info.length} for info in deleted])
    say(*(f"deleted {info.game_id} ({info.slug}, {info.length} events)" for info in deleted))


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", "path", required=True, type=PathParam(dir_okay=False), help="The replay file to write.")
@FORCE
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def archive(game_id: str, path: str, force: bool, as_json: bool) -> None:
    """Write a game's replay file, check it reads back the same, then delete the game from Redis."""
    from replays import archive as replay_files

    games_ = open_games()
    deleting.check_deletable(games_, game_id, force, verb="archives")
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
