"""A person invited to a new game hears of it by mail at once, through real parts: the game is made
over the API (or the console's form), the invitation is queued on rq (ids only), a real worker sends
it to a real SMTP server once, however often its job runs; a bot's seat, an open one and a person
without an address get none."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest
from rq import Queue

from events import keys
from events.commands import Games
from events.people import People
from pbm.mail import notify
from pbm.web import create_app
from tests.mail.conftest import text_of
from tests.mail.test_notify import work_in_process
from tests.web.conftest import ADMIN, TestClient, bearer
from workers.dispatch import NOTIFY_QUEUE, Dispatcher, notify_job_id, notify_work

pytestmark = pytest.mark.usefixtures("clean_notify_queue")


def address(who: str) -> str:
    return f"{who}-{uuid.uuid4().hex[:8]}@players.test"


def new_game(client: TestClient, seats: list[dict], **settings) -> dict:
    body = {"game": "holly-oak", "players": len(seats), "seats": seats, "seed": 3, **settings}
    response = client.post("/api/games", json=body, headers=bearer(ADMIN))
    assert response.status_code == 201, response.text
    return response.json()


def test_each_invited_person_is_mailed_once_with_the_game_the_players_and_their_own_link(dispatching: Games, smtp_sink, queue_client):
    ann, bob = address("ann"), address("bob")
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app) as client:
        bob_id = client.post("/api/people", json={"name": "Bob", "email": bob}, headers=bearer(ADMIN)).json()["id"]
        cy_id = client.post("/api/people", json={"name": "Cy"}, headers=bearer(ADMIN)).json()["id"]  # no address
        seats = [{"name": "Ann", "email": ann}, {"person": bob_id}, {"person": cy_id}, {"name": "Dot", "bot": "random"}, {"open": True}]
        created = new_game(client, seats, deadline="2d")
    game_id = created["game_id"]
    queued = {job_id for job_id in Queue(NOTIFY_QUEUE, connection=queue_client).job_ids if "-invite-" in job_id}
    assert queued == {notify_job_id(game_id, 0, 0, "invite"), notify_job_id(game_id, 0, 1, "invite")}  # Ann and Bob only
    for job in Queue(NOTIFY_QUEUE, connection=queue_client).jobs:
        assert job.args in ((game_id, 0, "invite", 0), (game_id, 1, "invite", 0)) or "-invite-" not in job.id  # ids only

    work_in_process(queue_client, dispatching.store)
    people = People(dispatching.store.redis)
    tokens = [seat.get("token") for seat in created["seats"]]
    for seat, to, others in ((0, ann, "Bob, Cy, Dot (bot) and seat 4"), (1, bob, "Ann, Cy, Dot (bot) and seat 4")):
        [mail] = smtp_sink.to(to, invitations=True)
        assert mail["Subject"] == f"Invitation: Holly Oak with {others} ({game_id})"
        assert mail.get_body(("html",)) is not None  # multipart, like every mail
        body = text_of(mail)
        you = ("Ann", "Bob")[seat]
        assert f"{you}, the operator of https://pbm.test has invited you to {game_id} (Holly Oak), with {others}." in body
        assert f"https://pbm.test/play/{tokens[seat]}" in body
        assert f"All your games: https://pbm.test/me/{people.token(people.holder(game_id, seat))}" in body
        assert "The opening deal waits for your salt" in body and "`salt: ANY TEXT`" in body
        assert "The salts have no deadline yet: the game's clock is stopped (it starts once every seat is taken" in body  # seat 4 is open
        assert "So far:" in body and "Holly Oak started for 5 players" in body
        assert mail["Reply-To"] == f"pbm+{tokens[seat]}@pbm.test"  # a reply with `salt: ...` gives the salt
        for other in (0, 1, 2):
            if other != seat:
                assert tokens[other] not in body and tokens[other] not in mail.as_string()

    # Run again (a retried job, recovery queuing it anew once the first has gone): sent once.
    for seat in (0, 1):
        assert dispatching.store.redis.hexists(keys.sent(game_id), f"0:{seat}:invite")
        Queue(NOTIFY_QUEUE, connection=queue_client).finished_job_registry.remove(notify_job_id(game_id, 0, seat, "invite"), delete_job=True)
        assert Dispatcher(queue_client, log=dispatching.store.redis).enqueue(notify_work(game_id, 0, seat, "invite"))
    work_in_process(queue_client, dispatching.store)
    assert len(smtp_sink.to(ann, invitations=True)) == 1 and len(smtp_sink.to(bob, invitations=True)) == 1
    assert notify.tell(dispatching, game_id, 2, "invite", 0) is False  # Cy has no address: nothing to send


def test_the_invitation_says_until_when_the_deal_waits_for_the_salt(dispatching: Games, smtp_sink, queue_client):
    ann = address("ann")
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app) as client:  # no clock: the salts' deadline is two days from the creation (events.clock)
        game_id = new_game(client, [{"name": "Ann", "email": ann}, {"name": "Bo", "bot": "random"}, {"name": "Cy", "bot": "random"}])["game_id"]
    work_in_process(queue_client, dispatching.store)
    [mail] = smtp_sink.to(ann, invitations=True)
    due = datetime.fromtimestamp(dispatching.table_with_clock(game_id)[1].salts_due_ms(0) / 1000, UTC)
    said = f"The cards are dealt once every salt is in, or in (1 day|2 days), {due:%A %H:%M} UTC at the latest"
    assert re.search(said, text_of(mail)), text_of(mail)


def test_without_late_salts_the_invitation_says_nothing_of_a_salt_and_the_first_turn_mail_follows(dispatching: Games, smtp_sink, queue_client):
    ann = address("ann")
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app) as client:
        created = new_game(client, [{"name": "Ann", "email": ann}, {"name": "Bo", "bot": "random"}, {"name": "Cy", "bot": "random"}], late_salts=False)
    work_in_process(queue_client, dispatching.store)
    subjects = [mail["Subject"] for mail in smtp_sink.to(ann, invitations=True)]
    assert subjects[0] == f"Invitation: Holly Oak with Bo (bot) and Cy (bot) ({created['game_id']})"
    assert "waits for your salt" not in text_of(smtp_sink.to(ann, invitations=True)[0])
    assert subjects[1:] == [f"Your turn: Holly Oak with Bo (bot) and Cy (bot) ({created['game_id']})"]


def test_a_rematch_sends_its_own_notice_not_an_invitation(dispatching: Games, smtp_sink, queue_client):
    ann, bob = address("ann"), address("bob")
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app) as client:
        created = new_game(client, [{"name": "Ann", "email": ann}, {"name": "Bob", "email": bob}], game="tranquility", late_salts=False)
        game_id = created["game_id"]
        while (table := dispatching.table(game_id)).outcome is None:
            dispatching.submit(game_id, table.to_act[0], table.legal_moves(table.to_act[0])[0])
        client.post("/api/me/rematch", headers=bearer(created["seats"][0]["token"]))
        begun = client.post("/api/me/rematch", headers=bearer(created["seats"][1]["token"])).json()
    queued = Queue(NOTIFY_QUEUE, connection=queue_client).job_ids
    assert notify_job_id(begun["game_id"], 0, 0, "rematch") in queued
    assert not [job_id for job_id in queued if "-invite-" in job_id and begun["game_id"] in job_id]


def test_a_game_made_in_the_console_invites_as_one_made_through_the_api(dispatching: Games, smtp_sink, queue_client):
    from tests.web.test_console import created_id, signed_in

    bea = address("bea")
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app, base_url="https://pbm.test") as console:  # PBM_PUBLIC_URL: the session cookie is Secure
        form = {"csrf": signed_in(console), "game": "holly-oak", "players": "3", "kind0": "email", "name0": "Bea", "email0": bea,
                "kind1": "bot", "bot1": "random", "name1": "Robo", "kind2": "open", "late_salts": "on"}
        answer = console.post("/admin/new", data=form)
    assert answer.status_code == 201, answer.text
    game_id = created_id(answer)
    work_in_process(queue_client, dispatching.store)
    [mail] = smtp_sink.to(bea, invitations=True)
    assert mail["Subject"] == f"Invitation: Holly Oak with Robo (bot) and seat 2 ({game_id})"
    assert f"https://pbm.test/play/{app.state.pbm.seats.remade(game_id, 0)}" in text_of(mail)
