"""The turn mail of a person's seat links to their page (every game of theirs), sent to a real
SMTP server; a seat nobody holds gets no such line."""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient

from events.commands import Games
from events.people import People
from pbm.mail import notify
from pbm.web import create_app
from tests.web.conftest import ADMIN, bearer
from tests.mail.conftest import text_of


def test_a_persons_turn_mail_links_to_their_page(games: Games, smtp_sink):
    address = f"ann-{uuid.uuid4().hex[:8]}@players.test"
    app = create_app(games.store.redis, games=games, admin_token=ADMIN)
    with TestClient(app) as client:
        seats = [{"name": "Ann", "email": address}, {"name": "Bob", "email": f"bob-{uuid.uuid4().hex[:8]}@players.test"}]
        created = client.post("/api/games", json={"game": "tranquility", "players": 2, "seats": seats, "seed": 1, "late_salts": False}, headers=bearer(ADMIN)).json()
    game_id = created["game_id"]
    table = games.table(game_id)
    seat = table.to_act[0]
    assert notify.tell(games, game_id, seat, "turn", table.seq)
    [mail] = smtp_sink.to(seats[seat]["email"])
    body = text_of(mail)
    person = created["seats"][seat]["person"]
    token = People(games.store.redis).token(person)
    assert f"All your games: https://pbm.test/me/{token}" in body
    assert f"https://pbm.test/play/{created['seats'][seat]['token']}" in body


def test_a_seat_nobody_holds_gets_no_person_link(games: Games):
    game_id = games.create("tranquility", 2, seed=1)
    assert notify.person_of(games, game_id, 0) == (None, None)
