"""Games removed from Redis on purpose, for the operator: the check that a game may go and its
deletion. Shared by the CLI (`pbm delete`, `pbm archive`) and the web console, so both refuse and
delete exactly the same; it removes a log only through events.store.Store.delete and writes
nothing else.
"""

from __future__ import annotations

import core
from events.commands import Games, UnknownGame, UnreadableGame
from events.store import GameInfo
from pbm.view_text import seats_text


def check_deletable(games: Games, game_id: str, force: bool, verb: str = "deletes") -> None:
    """A running game is someone's: deleting (or archiving, `verb`) it takes `force`, and the
    refusal names that flag for the command given. A broken one may go without."""
    if games.store.info(game_id) is None:
        raise UnknownGame(game_id)
    try:
        table = games.table(game_id)
    except UnreadableGame:
        return
    if table.outcome is None and not force:
        raise core.SetupError(f"game {game_id} is still running (waiting for {seats_text(list(table.to_act))}): --force {verb} it anyway")


def delete(games: Games, game_ids: list[str] | tuple[str, ...], force: bool = False) -> list[GameInfo]:
    """Delete games for good: every one checked before any is deleted (all or nothing)."""
    for game_id in game_ids:
        check_deletable(games, game_id, force)
    return [info for info in (games.store.delete(game_id) for game_id in game_ids) if info]
