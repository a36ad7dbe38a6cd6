"""Fixtures for the web front end: the real ASGI app over the test Redis, driven in process."""

from __future__ import annotations

import itertools

import pytest

from events.commands import Games
from events.store import Store

from fastapi import testclient

from pbm.web import create_app
from pbm.web.limits import Allowance, Limits

ADMIN = "test-admin-token-of-32-characters"  # the shortest the server accepts is 32


# For a test that reads its seats as fast as it can (each seat's view at every move): no limit
# slows it. The limits themselves are tests/web/test_hardening.py's.
LOOSE = Limits(reads=Allowance(10**6, 10), address=Allowance(10**6, 10))
CLIENTS = itertools.count(1)


class TestClient(testclient.TestClient):
    """The app's test client, as a browser or a script on the server's own machine reaches it: at
    http://127.0.0.1, a loopback Host, for which a server without PBM_PUBLIC_URL makes links. Each
    client is a machine of its own, with an address of its own: the limits per client address
    count in the test Redis, which every test shares."""

    def __init__(self, app, base_url: str = "http://127.0.0.1", **given) -> None:
        number = next(CLIENTS)
        self.address = given.setdefault("client", (f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}", 50000))
        super().__init__(app, base_url=base_url, **given)


@pytest.fixture
def app(store: Store):
    # No dispatcher: these tests play every seat themselves (bots through rq are tested with a worker).
    return create_app(store.redis, games=Games(store), admin_token=ADMIN)


@pytest.fixture
def client(app) -> TestClient:
    with TestClient(app) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def finish(games, game_id: str) -> None:
    """Plays `game_id` to its end, each seat to act taking its first legal move."""
    table = games.table(game_id)
    while table.outcome is None:
        seat = table.to_act[0]
        games.submit(game_id, seat, table.legal_moves(seat)[0])
        table = games.table(game_id)


def new_game(client: TestClient, game: str = "holly-oak", seats: list[dict] | None = None, **extra) -> dict:
    seats = seats or [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]
    # Dealt at once unless a test asks for late salts (tests/web/test_salts.py does).
    body = {"game": game, "players": len(seats), "seats": seats, "late_salts": False, **extra}
    response = client.post("/api/games", json=body, headers=bearer(ADMIN))
    assert response.status_code == 201, response.text
    return response.json()
