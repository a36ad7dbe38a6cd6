"""Page notes: what a seat's form post, sent without JavaScript, leaves for the page it redirects to
(the move played, or refused and why, a stale page, a vacation begun). Kept in Redis under the
game's hash tag, named by a random id, for one read within NOTE_TTL_S; the redirect's URL names only
the note. A URL goes into the browser's history and every access log on the way, and the move
text is the seat's own hidden cards ("discard 20 49"). A note holds no token, and is read only
for the seat that left it (its page's cookie says which).
"""

from __future__ import annotations

import json
import re
import secrets

import redis

from events import keys

NOTE_TTL_S = 300  # the redirect follows at once; a note never read is gone soon after
_NOTE_ID = re.compile(r"[A-Za-z0-9_-]{16}")


def leave(client: redis.Redis, game_id: str, seat: int, said: dict[str, str]) -> str:
    """Keeps `said` for the seat's next page; answers the note's id, for the redirect's URL."""
    note_id = secrets.token_urlsafe(12)  # 16 characters
    client.set(keys.page_note(game_id, seat, note_id), json.dumps(said), ex=NOTE_TTL_S)
    return note_id


def take(client: redis.Redis, game_id: str, seat: int, note_id: str | None) -> dict[str, str]:
    """What the note said, once: a reload of the page draws the table without it (as a page opened
    afresh would); {} for no note, an unknown or spent one, or another seat's (its key names the
    seat: another seat's page cannot even spend it)."""
    if not note_id or not _NOTE_ID.fullmatch(note_id):
        return {}
    raw = client.getdel(keys.page_note(game_id, seat, note_id))
    return {} if raw is None else json.loads(raw)
