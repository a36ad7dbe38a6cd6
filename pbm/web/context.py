"""What every request of one app shares: the command path (with its folded-table cache), the seat
store and the server's settings. Stateless apart from that cache, so replicas can run side by side.
"""

from __future__ import annotations

import attrs
from fastapi import Request

from events.commands import Games
from events.seats import Seats
from pbm import seating


@attrs.define
class Server:
    games: Games
    seats: Seats
    admin_token: str | None = None
    public_url: str | None = None  # the links' base (PBM_PUBLIC_URL); else the request's own
    moves_per_window: int = 30
    move_window_s: int = 10

    def base_url(self, request: Request) -> str:
        return (self.public_url or str(request.base_url)).rstrip("/")

    def link(self, request: Request, token: str) -> str:
        """A seat's link: its page (pbm/web/pages.py)."""
        return seating.link(self.base_url(request), token)


def current(request: Request) -> Server:
    return request.app.state.pbm
