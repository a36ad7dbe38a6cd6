"""A game's replay file as a download: what the operator's export and a seat's export both answer,
byte for byte (replays.archive.dumps over the stored log). It reads the log and writes nothing;
who may have it is the caller's to decide.
"""

from __future__ import annotations

from fastapi.responses import Response

from events.store import Store
from replays import archive
from replays.log import from_store


def download(store: Store, game_id: str) -> Response:
    data = archive.dumps(from_store(store, game_id))
    disposition = f'attachment; filename="{game_id}{archive.SUFFIX}"'
    return Response(data, media_type="application/octet-stream", headers={"Content-Disposition": disposition})
