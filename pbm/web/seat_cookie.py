"""The seat's cookie: a seat's link (/play/{token}, or /review/{token} for its replay) opened once
leaves its token in a cookie scoped to that seat's pages and redirects there, so the address bar,
the history, a proxy's log and every Location header hold no token after the first request. It
holds nothing but the seat's own token; it never logs or echoes it.

- HttpOnly: no script reads it, the page's own included.
- Path=/play/g/{game}/{seat}, and a second cookie with the same token for the seat's replay,
  Path=/review/g/{game}/{seat}: a browser holding several seats (of one game or of many) keeps
  cookies per seat, each sent to its own seat's pages only (cookie paths match by whole segments,
  so seat 1's is not sent to seat 10's), and a person with many seats sends one token a request.
- SameSite=Lax, not Strict: the link is clicked in a mail, a cross-site navigation. With Strict, the
  browser would not send the cookie it was just given on the redirect that follows that click (the
  redirect stays part of the cross-site navigation), and the first page would answer 401. Lax
  sends it on top-level GET navigations only, never on another site's form POST, fetch or frame.
- Secure when the server is reached over https (PBM_PUBLIC_URL, or the request itself).
- Max-Age 30 days: a slow game may wait weeks on a seat; every turn mail carries the link again,
  and opening it renews the cookie.

The page's forms still carry a CSRF token and are checked for a same-origin post (pbm/web/pages.py):
a cookie is an ambient credential, which a token in the path was not.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

NAME = "pbm_seat"
MAX_AGE_S = 30 * 24 * 3600


def seat_path(game_id: str, seat: int) -> str:
    """The path of a seat's page, where its cookie is sent: no secret in it."""
    return f"/play/g/{game_id}/{seat}"


def review_path(game_id: str, seat: int) -> str:
    """The path of a seat's replay page, where its cookie is sent too."""
    return f"/review/g/{game_id}/{seat}"


def give(response: Response, request: Request, game_id: str, seat: int, token: str, public_url: str | None) -> None:
    secure = request.url.scheme == "https" or (public_url or "").startswith("https://")
    # One path per cookie: a path that covered both would be "/" and reach every seat's pages.
    for path in (seat_path(game_id, seat), review_path(game_id, seat)):
        response.set_cookie(NAME, token.strip().lower(), max_age=MAX_AGE_S, path=path, secure=secure, httponly=True, samesite="lax")


def token_of(request: Request) -> str | None:
    return request.cookies.get(NAME) or None
