"""A secret link's cookie: a link that carries a token in its path (a seat's /play/{token}, a
person's /me/{token}, a game's join link /join/{token}), opened once, leaves the token in a cookie
scoped to the pages it opens and redirects there, so the address bar, the history, a proxy's log and
every Location header hold no token after the first request. The cookie holds nothing but that
token; nothing here logs or echoes it. pbm/web/seat_cookie.py, pbm/web/people.py and
pbm/web/joining.py each name theirs and its paths.

- HttpOnly: no script reads it, the page's own included.
- Path: only the pages the link opens (cookie paths match by whole segments, so seat 1's is not
  sent to seat 10's), so a browser holding many links sends one token a request.
- SameSite=Lax, not Strict: the link is clicked in a mail, a cross-site navigation. With Strict, the
  browser would not send the cookie it was just given on the redirect that follows that click (the
  redirect stays part of the cross-site navigation), and the first page would answer 401. Lax
  sends it on top-level GET navigations only, never on another site's form POST, fetch or frame.
- Secure when the server is reached over https (PBM_PUBLIC_URL, or the request itself).
- Max-Age 30 days: a slow game may wait weeks; every turn mail carries the link again, and opening
  it renews the cookie.

A cookie is an ambient credential, which a token in the path was not: the forms of the pages it
opens are checked for a same-origin post (and the seat's page's carry a CSRF token).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
from fastapi import Request
from fastapi.responses import Response

MAX_AGE_S = 30 * 24 * 3600


@attrs.frozen
class LinkCookie:
    name: str  # the cookie's name: one per kind of link, so a seat's and a person's never mix

    def give(self, response: Response, request: Request, token: str, paths: Iterable[str], public_url: str | None) -> None:
        """Leave `token` in this cookie, once for each of `paths` (a path covering them all would be
        a parent of every other link's pages too)."""
        secure = request.url.scheme == "https" or (public_url or "").startswith("https://")
        for path in paths:
            response.set_cookie(self.name, token.strip().lower(), max_age=MAX_AGE_S, path=path, secure=secure, httponly=True, samesite="lax")

    def token_of(self, request: Request) -> str | None:
        return request.cookies.get(self.name) or None
