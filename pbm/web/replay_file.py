"""A game's replay file as a download: what the operator's export and a seat's export both answer,
byte for byte (replays.archive.dumps over the stored log and the disputes beside it). It reads
the log and writes nothing; who may have it is the caller's to decide, but for a seat's the rule
is here, for the API and the replay page alike (for_a_seat).
"""

from __future__ import annotations

from fastapi.responses import Response

from events.commands import Games
from events.store import Store
from pbm.web.errors import ApiError
from replays import archive


def download(store: Store, game_id: str) -> Response:
    data = archive.dumps(archive.exported(store, game_id))
    disposition = f'attachment; filename="{game_id}{archive.SUFFIX}"'
    return Response(data, media_type="application/octet-stream", headers={"Content-Disposition": disposition})


def for_a_seat(games: Games, game_id: str) -> Response:
    """The replay file as a seat may have it: only once the game is over. The log holds every
    seat's hidden cards and the secret seed's commitment, the disputes every seat's reasons (which
    may name its cards: the audit shows a seat only its own until the end); 409 while the game runs."""
    if games.table(game_id).outcome is None:
        raise ApiError(409, "the game is still running: its replay file can be had here once the game is over")
    return download(games.store, game_id)
