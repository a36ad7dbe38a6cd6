"""A finished game's rematch through the real app and Redis: asked for by one seat, accepted by the
other, made once (the same people, game and settings, seats rotated, a fresh seed); every request,
repeated, from any seat or racing another, answers the same game; it appears on each person's page.
From the seat's page too, without JavaScript: the button, the page that says whom it waits for, and
the link that opens the seat's new seat by its cookie."""

from __future__ import annotations

import threading
import uuid

import pytest

from events import keys
from events.people import People
from tests.web.conftest import ADMIN, TestClient, bearer, finish, new_game

OPERATOR = bearer(ADMIN)


def person(client: TestClient, name: str) -> dict:
    response = client.post("/api/people", json={"name": name, "email": f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.org"}, headers=OPERATOR)
    assert response.status_code == 201, response.text
    return response.json()


@pytest.fixture
def over(client: TestClient, app) -> dict:
    """Ann (seat 0) and Bob (seat 1) finished a game of tranquility with a clock and forced moves asked."""
    ann, bob = person(client, "Ann"), person(client, "Bob")
    created = new_game(client, game="tranquility", seats=[{"person": ann["id"]}, {"person": bob["id"]}], seed=5,
                       deadline="2d", reminders="2h", vacation_days=3, forced_moves="ask")
    finish(app.state.pbm.games, created["game_id"])
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    return {"game_id": created["game_id"], "ann": ann, "bob": bob, "tokens": tokens}


def rematch(client: TestClient, token: str):
    return client.post("/api/me/rematch", headers=bearer(token))


def test_one_asks_the_other_accepts_and_the_rematch_is_the_same_game_one_seat_on(client: TestClient, app, over):
    games, store = app.state.pbm.games, app.state.pbm.games.store
    asked = rematch(client, over["tokens"][0])
    assert asked.status_code == 200, asked.text
    body = asked.json()
    assert body["of"] == over["game_id"] and body["started"] is False and body["accepted"] is True
    assert body["waiting_for"] == [{"seat": 1, "name": "Bob"}]
    assert "token" not in body and store.info(body["game_id"]) is None  # nothing made until every seat accepts
    again = rematch(client, over["tokens"][0]).json()
    assert again["game_id"] == body["game_id"] and again["started"] is False

    accepted = rematch(client, over["tokens"][1]).json()
    assert accepted["game_id"] == body["game_id"] and accepted["started"] is True and accepted["waiting_for"] == []
    new_id = body["game_id"]
    # Bob played seat 1: he plays seat 0 now, Ann seat 1. Each answer carries its own new seat only.
    assert accepted["seat"] == 0 and accepted["token"].startswith(f"{new_id}.0.")
    assert client.get("/api/me", headers=bearer(accepted["token"])).json()["seat"] == 0
    ann_state = client.get("/api/me/rematch", headers=bearer(over["tokens"][0])).json()
    assert ann_state["started"] is True and ann_state["seat"] == 1 and ann_state["token"].startswith(f"{new_id}.1.")
    assert People(store.redis).holders(new_id) == {0: over["bob"]["id"], 1: over["ann"]["id"]}

    old, new = games.table(over["game_id"]), games.table(new_id)
    assert new.game.slug == "tranquility" and new.players == 2 and new.outcome is None
    assert new.started.options == old.started.options
    assert new.clock == old.clock and store.forced_moves(new_id) == "ask"
    assert new.started.seed_commitment != old.started.seed_commitment  # a fresh seed
    for who in ("ann", "bob"):
        page = client.get("/api/people/me", headers=bearer(over[who]["token"])).json()
        assert new_id in [row["game_id"] for row in page["seats"]]
        [finished] = [row for row in page["seats"] if row["game_id"] == over["game_id"]]
        assert finished["rematch"] == {"game_id": new_id, "waiting_for": []}


def test_the_person_page_says_whom_an_asked_rematch_waits_for(client: TestClient, app, over):
    rematch(client, over["tokens"][1])
    page = client.get(f"/me/{over['ann']['token']}").text  # the link, then the page
    assert "a rematch is asked for, waiting for you" in page  # the reader is "you", as in the result
    with TestClient(app) as bob:  # a browser of his own
        assert "a rematch is asked for, waiting for Ann" in bob.get(f"/me/{over['bob']['token']}").text


def test_a_second_request_after_the_rematch_began_answers_the_same_game_and_makes_none(client: TestClient, app, over):
    store = app.state.pbm.games.store
    first = rematch(client, over["tokens"][1]).json()
    rematch(client, over["tokens"][0])
    before = len(store.games())
    for token in (over["tokens"][0], over["tokens"][1], over["tokens"][0]):
        again = rematch(client, token).json()
        assert again["game_id"] == first["game_id"] and again["started"] is True
    assert len(store.games()) == before


def test_two_seats_racing_to_accept_make_one_game(app, over):
    store = app.state.pbm.games.store
    before = {info.game_id for info in store.games()}
    answers: list[dict] = []
    start = threading.Barrier(2)

    def accept(token: str) -> None:
        with TestClient(app) as own:
            start.wait()
            answers.append(rematch(own, token).json())

    racers = [threading.Thread(target=accept, args=(over["tokens"][seat],)) for seat in (0, 1)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(30)
    made = {info.game_id for info in store.games()} - before
    assert len(answers) == 2 and len({answer["game_id"] for answer in answers}) == 1
    assert made == {answers[0]["game_id"]}
    assert any(answer["started"] for answer in answers)  # the one that came second made it


def test_the_last_seat_clicking_four_times_at_once_makes_one_game(app, over):
    """Each of the four finds every seat accepted and goes on to make the game: one does, the
    others find it made (Games.create refuses a second game of one id before writing anything)."""
    store = app.state.pbm.games.store
    with TestClient(app) as ann:
        rematch(ann, over["tokens"][0])
    before = {info.game_id for info in store.games()}
    answers: list[dict] = []
    start = threading.Barrier(4)

    def click() -> None:
        with TestClient(app) as own:
            start.wait()
            answers.append(rematch(own, over["tokens"][1]).json())

    clicks = [threading.Thread(target=click) for _ in range(4)]
    for each in clicks:
        each.start()
    for each in clicks:
        each.join(30)
    made = {info.game_id for info in store.games()} - before
    assert len(answers) == 4 and {answer["game_id"] for answer in answers} == made and len(made) == 1
    assert all(answer["started"] for answer in answers)
    assert len(app.state.pbm.seats.issued(made.pop())) == 2


def test_a_rematch_of_a_game_not_over_is_refused_and_writes_nothing(client: TestClient, app):
    created = new_game(client, game="tranquility", seats=[{"name": "Ann"}, {"name": "Bob"}], seed=5)
    refused = rematch(client, created["seats"][0]["token"])
    assert refused.status_code == 422
    assert refused.json()["error"] == "this game is not over: a rematch is offered once it is"
    assert not app.state.pbm.games.store.redis.exists(keys.rematch(created["game_id"]))


def test_bots_accept_and_move_one_seat_on_with_the_rest(client: TestClient, app):
    games = app.state.pbm.games
    created = new_game(client, seats=[{"name": "Ann"}, {"name": "Robo", "bot": "random"}, {"name": "Cy"}], seed=3)
    finish(games, created["game_id"])
    tokens = {seat["seat"]: seat.get("token") for seat in created["seats"]}
    assert rematch(client, tokens[0]).json()["waiting_for"] == [{"seat": 2, "name": "Cy"}]
    done = rematch(client, tokens[2]).json()
    assert done["started"] is True and done["seat"] == 0
    new = games.table(done["game_id"])
    assert new.bots == {2: "random"}
    names = app.state.pbm.seats.names([(done["game_id"], 3)])[done["game_id"]]
    assert names == ["Cy", "Ann", "Robo"]


def test_no_seat_token_no_rematch(client: TestClient, over):
    assert client.post("/api/me/rematch").status_code == 401
    assert client.post("/api/me/rematch", headers=bearer(over["ann"]["token"])).status_code == 401  # a person's token opens no seat


def page_of(client: TestClient, token: str) -> tuple[str, str]:
    """The seat's page by its link (the cookie, then the page): its path and its HTML."""
    opened = client.get(f"/play/{token}")
    assert opened.status_code == 200, opened.text
    return opened.url.path, opened.text


def csrf_of(html: str) -> str:
    return html.split('name="csrf" value="', 1)[1].split('"', 1)[0]


def test_from_the_seats_pages_without_javascript(app, over):
    with TestClient(app) as ann, TestClient(app) as bob:
        path, html = page_of(ann, over["tokens"][0])
        assert "Ask for a rematch" in html
        posted = ann.post(path + "/rematch", data={"csrf": csrf_of(html)}, follow_redirects=False)
        assert posted.status_code == 303 and over["tokens"][0] not in posted.headers["location"]
        html = ann.get(posted.headers["location"]).text
        assert "You are in for the rematch" in html and "waiting for Bob" in html and "Ask for a rematch" not in html

        bob_path, bob_html = page_of(bob, over["tokens"][1])
        assert "Accept the rematch" in bob_html
        posted = bob.post(bob_path + "/rematch", data={"csrf": csrf_of(bob_html)}, follow_redirects=False)
        html = bob.get(posted.headers["location"]).text
        assert "Everyone is in: the rematch has begun." in html and "Open your seat in the rematch" in html
        assert "You are in for the rematch" not in html

        new_id = rematch(bob, over["tokens"][1]).json()["game_id"]
        opened = bob.get(bob_path + "/rematch", follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"] == f"/play/g/{new_id}/0"
        assert "pbm_seat" in opened.headers["set-cookie"] and "HttpOnly" in opened.headers["set-cookie"]
        assert bob.get(opened.headers["location"]).status_code == 200


def test_a_rematch_form_from_another_site_is_refused(app, over):
    with TestClient(app) as ann:
        path, html = page_of(ann, over["tokens"][0])
        posted = ann.post(path + "/rematch", data={"csrf": csrf_of(html)}, headers={"Sec-Fetch-Site": "cross-site"}, follow_redirects=False)
        assert posted.status_code == 303
        assert "a form must come from your own page" in ann.get(posted.headers["location"]).text
        assert not app.state.pbm.games.store.redis.exists(keys.rematch(over["game_id"]))
