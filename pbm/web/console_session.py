"""The operator's console session: signed in with PBM_ADMIN_TOKEN once, then a cookie naming a
session kept in Redis (so sign-out and expiry end it on every replica), and each session's CSRF
token for the console's forms. It never stores or logs the admin token, and Redis holds only the
SHA-256 of a session id, as it holds a seat token's.

- HttpOnly: no script reads it (the console has no script anyway).
- SameSite=Strict: the console is reached by typing its address or from its own pages, never by a
  link in a mail, so no other site's request carries it, not even a top-level navigation.
- Path=/admin: sent to the console's pages only, never to a seat's page or the API.
- Secure when the server is reached over https (PBM_PUBLIC_URL, or the request itself).
- Max-Age and the Redis key's TTL are both MAX_AGE_S from sign-in (not renewed by use): a session
  left open on a shared machine ends by itself.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import attrs
import redis
from fastapi import Request
from fastapi.responses import Response

from events import keys

NAME = "pbm_console"
PATH = "/admin"
MAX_AGE_S = 12 * 3600


@attrs.frozen
class Session:
    id: str
    csrf: str


def _key(session_id: str) -> str:
    return keys.console_session(hashlib.sha256(session_id.encode()).hexdigest())


def open_session(client: redis.Redis, max_age_s: int = MAX_AGE_S) -> Session:
    """A fresh session (32 random bytes) and its CSRF token, expiring in `max_age_s`."""
    session = Session(secrets.token_hex(32), secrets.token_hex(32))
    client.set(_key(session.id), session.csrf, ex=max_age_s)
    return session


def find(client: redis.Redis, session_id: str | None) -> Session | None:
    """The session a cookie names, while it lasts; None for no cookie, an ended or unknown one."""
    if not session_id or len(session_id) != 64:
        return None
    csrf = client.get(_key(session_id))
    return None if csrf is None else Session(session_id, csrf.decode())


def end(client: redis.Redis, session_id: str) -> None:
    client.delete(_key(session_id))


def csrf_matches(session: Session, given: str) -> bool:
    return hmac.compare_digest(given.encode(), session.csrf.encode())


def give(response: Response, request: Request, session: Session, public_url: str | None, max_age_s: int = MAX_AGE_S) -> None:
    secure = request.url.scheme == "https" or (public_url or "").startswith("https://")
    response.set_cookie(NAME, session.id, max_age=max_age_s, path=PATH, secure=secure, httponly=True, samesite="strict")


def take_away(response: Response) -> None:
    response.delete_cookie(NAME, path=PATH, httponly=True, samesite="strict")


def id_of(request: Request) -> str | None:
    return request.cookies.get(NAME) or None
