"""A rematch begun is told to each of its people by mail, sent to a real SMTP server: the job is
queued on rq once per seat (ids only), and its mail carries the person's new seat link and their
page."""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient
from rq import Queue

from events.commands import Games
from events.people import People
from pbm.mail import notify
from pbm.web import create_app
from tests.web.conftest import ADMIN, bearer
from workers.dispatch import NOTIFY_QUEUE, notify_job_id
from tests.mail.conftest import text_of


def test_each_person_is_mailed_their_seat_in_the_rematch(dispatching: Games, smtp_sink, queue_client, clean_notify_queue):
    games = dispatching
    app = create_app(games.store.redis, games=games, admin_token=ADMIN)
    addresses = [f"{who}-{uuid.uuid4().hex[:8]}@players.test" for who in ("ann", "bob")]
    with TestClient(app) as client:
        seats = [{"name": "Ann", "email": addresses[0]}, {"name": "Bob", "email": addresses[1]}]
        created = client.post("/api/games", json={"game": "tranquility", "players": 2, "seats": seats, "seed": 2, "late_salts": False},
                              headers=bearer(ADMIN)).json()
        game_id = created["game_id"]
        table = games.table(game_id)
        while table.outcome is None:
            games.submit(game_id, table.to_act[0], table.legal_moves(table.to_act[0])[0])
            table = games.table(game_id)
        client.post("/api/me/rematch", headers=bearer(created["seats"][0]["token"]))
        begun = client.post("/api/me/rematch", headers=bearer(created["seats"][1]["token"])).json()
    assert begun["started"] is True
    new_id = begun["game_id"]
    queued = set(Queue(NOTIFY_QUEUE, connection=queue_client).job_ids)
    people = People(games.store.redis)
    for old_seat, address in enumerate(addresses):
        new_seat = (old_seat + 1) % 2
        assert notify_job_id(new_id, 0, new_seat, "rematch") in queued
        assert notify.tell(games, new_id, new_seat, "rematch", 0)
        assert not notify.tell(games, new_id, new_seat, "rematch", 0)  # once
        [mail] = [m for m in smtp_sink.to(address) if m["Subject"].startswith("Rematch")]
        body = text_of(mail)
        assert "A rematch has begun" in body
        token = app.state.pbm.seats.remade(new_id, new_seat)
        assert f"https://pbm.test/play/{token}" in body
        assert f"All your games: https://pbm.test/me/{people.token(people.holder(new_id, new_seat))}" in body
