"""`pbm reindex`: rebuild every game's row and the index across games from the logs. It only parses,
calls events.commands and renders."""

from __future__ import annotations

import click

from pbm.cli import console, emit_json, open_games


@click.command()
@click.option("--json", "as_json", is_flag=True)
def reindex(as_json: bool) -> None:
    """Rebuild the game list and recovery's work list from the logs (they are the truth).

    Needed once for games logged before the index existed, or after a crash left it stale; safe
    while games are being played.
    """
    count, problems = open_games().reindex()
    if as_json:
        return emit_json({"games": count, "unreadable": [{"game_id": g, "error": e} for g, e in problems]})
    console.print(f"reindexed {count - len(problems)} game(s)", highlight=False)
    for game_id, error in problems:
        console.print(f"  {game_id}: unreadable: {error}", highlight=False)
