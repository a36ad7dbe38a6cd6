"""The seat's cookie (pbm/web/link_cookie.py): a seat's link (/play/{token}, or /review/{token}
for its replay) opened once leaves its token in a cookie sent to that seat's pages only, and
redirects there.

- Path=/play/g/{game}/{seat}, and a second cookie with the same token for the seat's replay,
  Path=/review/g/{game}/{seat}: a browser holding several seats (of one game or of many) keeps
  cookies per seat, each sent to its own seat's pages only.

The page's forms carry a CSRF token and are checked for a same-origin post (pbm/web/pages.py).
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from pbm.web.link_cookie import LinkCookie

COOKIE = LinkCookie("pbm_seat")


def seat_path(game_id: str, seat: int) -> str:
    """The path of a seat's page, where its cookie is sent: no secret in it."""
    return f"/play/g/{game_id}/{seat}"


def review_path(game_id: str, seat: int) -> str:
    """The path of a seat's replay page, where its cookie is sent too."""
    return f"/review/g/{game_id}/{seat}"


def give(response: Response, request: Request, game_id: str, seat: int, token: str, public_url: str | None) -> None:
    COOKIE.give(response, request, token, (seat_path(game_id, seat), review_path(game_id, seat)), public_url)


def token_of(request: Request) -> str | None:
    return COOKIE.token_of(request)
