"""The operator's API over people (/api/people) and invitations (POST /api/games seats naming a
person, or an address that finds or makes one), on the real (test) Redis."""

from __future__ import annotations

import json
import uuid

from events import keys
from events.people import FORMER_PLAYER, People
from events.seats import Seats
from replays.log import from_store
from replays.verify import verify
from events.commands import Games
from pbm.web import create_app
from pbm.web.limits import Allowance, Limits
from tests.web.conftest import ADMIN, TestClient, bearer, new_game

OPERATOR = bearer(ADMIN)


def mail(name: str = "ann") -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}@example.org"


def add(client: TestClient, name: str = "Ann", **fields) -> dict:
    response = client.post("/api/people", json={"name": name, **fields}, headers=OPERATOR)
    assert response.status_code == 201, response.text
    return response.json()


def test_the_operator_adds_edits_and_erases_a_person(client: TestClient, store):
    address = mail()
    ann = add(client, "Ann", email=address, tz="Europe/Paris")
    assert ann["url"].endswith("/me/" + ann["token"]) and ann["tz"] == "Europe/Paris"
    person_id = ann["id"]
    got = client.get(f"/api/people/{person_id}", headers=OPERATOR).json()
    assert got["person"] == {"id": person_id, "name": "Ann", "email": address, "tz": "Europe/Paris"} and got["seats"] == []
    assert ann["token"] not in json.dumps(got)
    patched = client.patch(f"/api/people/{person_id}", json={"name": "Annie", "tz": None}, headers=OPERATOR).json()
    assert patched == {"id": person_id, "name": "Annie", "email": address, "tz": None}
    listed = client.get("/api/people", headers=OPERATOR).json()["people"]
    assert any(row["id"] == person_id for row in listed)
    fresh = client.post(f"/api/people/{person_id}/token", headers=OPERATOR).json()
    assert People(store.redis).resolve(fresh["token"]) == person_id and People(store.redis).resolve(ann["token"]) is None
    erased = client.delete(f"/api/people/{person_id}", headers=OPERATOR).json()
    assert erased["erased"] is True
    assert client.get(f"/api/people/{person_id}", headers=OPERATOR).status_code == 404


def test_bad_input_gets_one_line_naming_what_is_wrong_and_changes_nothing(client: TestClient, store):
    ann = add(client)
    before = store.redis.zcard(keys.PEOPLE)
    for body, said in (
        ({"name": "   "}, "name: empty"),
        ({"name": "x" * 101}, "name: 101 characters, at most 100"),
        ({"name": "\u200b"}, "name: holds a control or invisible formatting character"),
        ({"name": "Bo", "email": "bo@example.org, cy@example.org"}, "email: not one mail address"),
        ({"name": "Bo", "tz": "Atlantis/Capital"}, "tz: no time zone"),
        ({"name": "Bo", "colour": "red"}, "colour: Extra inputs are not permitted"),
    ):
        response = client.post("/api/people", json=body, headers=OPERATOR)
        assert response.status_code == 422 and response.json()["error"].startswith(said), response.text
    assert store.redis.zcard(keys.PEOPLE) == before
    response = client.patch(f"/api/people/{ann['id']}", json={"name": "Bo", "email": "nope"}, headers=OPERATOR)
    assert response.status_code == 422 and response.json()["error"].startswith("email: ")
    assert client.get(f"/api/people/{ann['id']}", headers=OPERATOR).json()["person"]["name"] == "Ann"
    assert client.get("/api/people/not-an-id", headers=OPERATOR).status_code == 422
    assert client.get("/api/people/p-000000000000", headers=OPERATOR).status_code == 404


def test_only_the_operator_reaches_the_people_api(store):
    # Some 30 wrong credentials from one address: past the wrong-token limit (test_hardening.py's),
    # which would answer 429 before the 401 this test is about.
    limits = Limits(wrong_tokens=Allowance(10**6, 60))
    with TestClient(create_app(store.redis, games=Games(store), admin_token=ADMIN, limits=limits)) as client:
        only_the_operator(client)


def only_the_operator(client: TestClient) -> None:
    ann = add(client)
    seat_token = new_game(client)["seats"][0]["token"]
    for headers in ({}, bearer(ann["token"]), bearer(seat_token), bearer("wrong")):
        assert client.post("/api/people", json={"name": "Bo"}, headers=headers).status_code == 401
        assert client.get("/api/people", headers=headers).status_code == 401
        for method in ("get", "patch", "delete"):
            kwargs = {"json": {"name": "Bo"}} if method == "patch" else {}
            assert getattr(client, method)(f"/api/people/{ann['id']}", headers=headers, **kwargs).status_code == 401
        assert client.post(f"/api/people/{ann['id']}/token", headers=headers).status_code == 401
        # an unknown person answers as a known one does: 401 before anything is looked up
        assert client.get("/api/people/p-000000000000", headers=headers).status_code == 401


def test_a_new_games_seats_may_name_a_person_or_an_address_that_finds_or_makes_one(client: TestClient, store):
    ann = add(client, "Ann", email=mail())
    address = mail("bob")
    created = new_game(client, seats=[{"person": ann["id"]}, {"name": "Bob", "email": address, "tz": "Asia/Tokyo"}, {"name": "Robo", "bot": "random"}])
    people, seats = People(store.redis), Seats(store.redis)
    game_id = created["game_id"]
    first, second, robot = created["seats"]
    assert first["person"] == ann["id"] and first["name"] == "Ann" and first["person_url"].endswith(ann["token"])
    bob = people.by_email(address)
    assert second["person"] == bob and people.get(bob).tz == "Asia/Tokyo" and second["person_url"]
    assert "person" not in robot
    assert people.holders(game_id) == {0: ann["id"], 1: bob}
    assert seats.contact(game_id, 0)["name"] == "Ann" and seats.contact(game_id, 1)["email"] == address
    again = new_game(client, seats=[{"name": "Robert", "email": address.upper()}, {"name": "Cy"}, {"name": "Di"}])
    assert again["seats"][0]["person"] == bob and again["seats"][0]["name"] == "Bob"  # found, not made again
    assert sorted(people.seats(bob)) == sorted([(game_id, 1), (again["game_id"], 0)])


def test_a_bad_invitation_creates_no_game_and_no_person(client: TestClient, store):
    games_before, people_before = store.redis.zcard(keys.GAMES), store.redis.zcard(keys.PEOPLE)
    for seats, said in (
        ([{"person": "p-000000000000"}, {"name": "Bo"}], "seats.0: no person"),
        ([{"name": "Bo"}, {"email": mail("cy")}], "seats.1: name: a seat whose address"),
        ([{"name": "Bo"}, {"name": "Cy", "email": "cy@example.org, di@example.org"}], "seats[1].email: exactly one mail address"),  # events.channels, before anything else
        ([{"name": "Bo"}, {}], "seats.1: name: a seat needs a name"),
    ):
        response = client.post("/api/games", json={"game": "tranquility", "players": 2, "seats": seats}, headers=OPERATOR)
        assert response.status_code == 422 and response.json()["error"].startswith(said), response.text
    assert (store.redis.zcard(keys.GAMES), store.redis.zcard(keys.PEOPLE)) == (games_before, people_before)


def test_an_erased_players_finished_game_names_a_former_player_and_still_verifies(client: TestClient, store, app):
    ann = add(client, "Ann", email=mail())
    created = new_game(client, game="tranquility", seats=[{"person": ann["id"]}, {"name": "Bob"}])
    game_id = created["game_id"]
    games = app.state.pbm.games
    table = games.table(game_id)
    while table.outcome is None:
        seat = table.to_act[0]
        games.submit(game_id, seat, table.legal_moves(seat)[0])
        table = games.table(game_id)
    before = [raw for _seq, raw in store.read_raw(game_id)]
    client.delete(f"/api/people/{ann['id']}", headers=OPERATOR)
    game = client.get(f"/api/games/{game_id}", headers=OPERATOR).json()
    assert [seat["name"] for seat in game["seats"]] == [FORMER_PLAYER, "Bob"]
    assert [raw for _seq, raw in store.read_raw(game_id)] == before
    assert client.get(f"/api/games/{game_id}/verify", headers=OPERATOR).json()["ok"]
    assert verify(from_store(store, game_id)).ok
