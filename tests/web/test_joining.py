"""Open seats and join links on the real (test) Redis: a game created with open seats answers a
join link; a visitor claims a seat under a name and gets its seat link and person link; a seat is
claimed once (threads racing against Redis: one wins, the other is told); the link stops working
when every seat is taken or the operator revokes it; the clock starts with the last claim, and
until then the game shows as waiting for players."""

from __future__ import annotations

import json
import threading

import pytest

from events import keys
from events.joining import JoinRefused, Joins
from events.people import People
from events.seats import Seats
from pbm import joining
from tests.web.conftest import ADMIN, TestClient, bearer, new_game

OPERATOR = bearer(ADMIN)


def join_token(created: dict) -> str:
    return created["join_url"].rsplit("/", 1)[1]


def test_a_visitor_claims_an_open_seat_and_gets_its_links(client: TestClient, store):
    created = new_game(client, game="tranquility", seats=[{"name": "Ann"}, {"open": True}])
    assert created["seats"][1] == {"seat": 1, "open": True} and "/join/" in created["join_url"]
    token = join_token(created)
    page = client.get(f"/join/{token}")
    assert page.status_code == 200 and 'name="seat" value="1"' in page.text and page.headers["Cache-Control"] == "no-store"
    joined = client.post("/api/join", json={"name": "Bob"}, headers=bearer(token))
    assert joined.status_code == 201, joined.text
    body = joined.json()
    assert body["seat"] == 1 and body["open_seats_left"] == 0
    assert client.get("/api/me", headers=bearer(body["token"])).json()["seat"] == 1
    me = client.get("/api/people/me", headers=bearer(body["person_token"])).json()
    assert me["person"]["name"] == "Bob" and [row["game_id"] for row in me["seats"]] == [created["game_id"]]
    assert Seats(store.redis).contact(created["game_id"], 1)["name"] == "Bob"
    # Every seat is taken: the link stops working.
    assert client.post("/api/join", json={"name": "Cy"}, headers=bearer(token)).status_code == 401
    assert client.get(f"/join/{token}").status_code == 404


def test_the_join_link_leaves_its_token_in_a_cookie_and_its_form_works_without_javascript(client: TestClient, app):
    created = new_game(client, game="tranquility", seats=[{"open": True}, {"open": True}])
    token = join_token(created)
    opened = client.get(f"/join/{token}", follow_redirects=False)
    path = f"/join/g/{created['game_id']}"
    assert opened.status_code == 303 and opened.headers["location"] == path  # no token in it
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith(f"pbm_join={token};") and "HttpOnly" in cookie and f"Path={path};" in cookie and "SameSite=lax" in cookie
    page = client.get(path)
    assert page.status_code == 200 and token not in page.text and f'action="{path}"' in page.text
    refused = client.post(path, data={"name": "\u200b", "seat": "1"})
    assert refused.status_code == 422 and "Not joined: name: " in refused.text
    taken = client.post(path, data={"name": "Ann", "email": "", "seat": "1"})
    assert taken.status_code == 201 and "You hold seat 1, Ann" in taken.text and "/me/" in taken.text and "/play/" in taken.text
    assert taken.headers["set-cookie"].startswith("pbm_person=")  # her page opens at /me from here
    assert "you are Ann" in client.get("/me").text
    again = client.post(path, data={"name": "Bob", "seat": "1"})
    assert again.status_code == 409 and "seat 1 is not open" in again.text
    assert client.post(f"/join/{token}", data={"name": "Bob"}).status_code == 201  # a form drawn before the cookie: the first open seat
    assert client.post(path, data={"name": "Cy"}).status_code == 404  # full: the link is spent
    with TestClient(app) as stranger:  # no cookie: nothing but the way to the link
        assert "open the link you were sent again" in stranger.get(path).text
        assert stranger.post(path, data={"name": "Dee"}).status_code == 404


def test_two_visitors_racing_for_the_last_seat_one_wins_the_other_is_told(games, store):
    game_id = games.create("tranquility", 2, seed=1)
    joins, seats, people = Joins(store.redis), Seats(store.redis), People(store.redis)
    token = joining.open_up(games, joins, game_id, [1])
    for _round in range(5):
        results: list[object] = []
        start = threading.Barrier(2)

        def visit(name: str) -> None:
            start.wait()
            try:
                results.append(joining.claim(games, seats, people, joins, token, name, seat=1))
            except JoinRefused as refused:
                results.append(refused)

        threads = [threading.Thread(target=visit, args=(name,)) for name in ("Ann", "Bob")]
        [thread.start() for thread in threads]
        [thread.join() for thread in threads]
        won = [r for r in results if isinstance(r, joining.Joined)]
        lost = [r for r in results if isinstance(r, JoinRefused)]
        assert len(won) == 1 and len(lost) == 1
        assert lost[0].taken or "does not work" in str(lost[0])
        holder = people.holder(game_id, 1)
        assert holder == won[0].person.id and seats.resolve(won[0].claimed.token) == (game_id, 1)
        assert people.seats(holder) == [(game_id, 1)]
        # Open it again for the next round (as a fresh game would be).
        store.redis.hdel(keys.seat_people(game_id), "1")
        token = joining.open_up(games, joins, game_id, [1])


def test_racing_visitors_for_any_seat_each_get_one_until_none_is_left(games, store):
    game_id = games.create("holly-oak", 4, seed=1)
    joins, seats, people = Joins(store.redis), Seats(store.redis), People(store.redis)
    token = joining.open_up(games, joins, game_id, [0, 1, 2, 3])
    results: list[object] = []
    start = threading.Barrier(6)

    def visit(n: int) -> None:
        start.wait()
        try:
            results.append(joining.claim(games, seats, people, joins, token, f"Visitor {n}"))
        except JoinRefused as refused:
            results.append(refused)

    threads = [threading.Thread(target=visit, args=(n,)) for n in range(6)]
    [thread.start() for thread in threads]
    [thread.join() for thread in threads]
    won = [r for r in results if isinstance(r, joining.Joined)]
    assert sorted(r.claimed.seat for r in won) == [0, 1, 2, 3] and len(results) == 6
    assert len(set(people.holders(game_id).values())) == 4


def test_the_operator_revokes_the_link_and_may_make_a_new_one(client: TestClient, pbm):
    created = new_game(client, game="tranquility", seats=[{"name": "Ann"}, {"open": True}])
    game_id, token = created["game_id"], join_token(created)
    again = client.post(f"/api/games/{game_id}/join-link", headers=OPERATOR).json()
    assert again["join_url"] == created["join_url"] and again["open_seats"] == [1]
    assert pbm("invite", game_id, "--open").output.strip().endswith(token)
    assert client.delete(f"/api/games/{game_id}/join-link", headers=OPERATOR).status_code == 200
    assert client.post("/api/join", json={"name": "Bob"}, headers=bearer(token)).status_code == 401
    assert client.get(f"/join/{token}").status_code == 404
    fresh = pbm("invite", game_id, "--open", "--json").output
    new_token = json.loads(fresh)["join_url"].rsplit("/", 1)[1]
    assert new_token != token and client.post("/api/join", json={"name": "Bob"}, headers=bearer(new_token)).status_code == 201
    assert "no open seat" in pbm("invite", game_id, "--open", ok=False).output
    assert client.post(f"/api/games/{game_id}/join-link").status_code == 401  # the operator's only


def test_the_clock_starts_when_the_last_seat_is_claimed_and_until_then_the_game_waits_for_players(client: TestClient, app, pbm):
    created = new_game(client, game="tranquility", seats=[{"open": True}, {"open": True}], deadline="1h")
    game_id, token = created["game_id"], join_token(created)
    games = app.state.pbm.games
    _table, clock = games.table_with_clock(game_id)
    assert clock.paused_since_ms is not None and created["clock"]["paused"]
    listing = {row["game_id"]: row for row in client.get("/api/games", headers=OPERATOR).json()["games"]}
    assert listing[game_id]["waiting_for_players"] == [0, 1]
    assert client.get(f"/api/games/{game_id}", headers=OPERATOR).json()["waiting_for_players"] == [0, 1]
    [line] = [line for line in pbm("list").output.splitlines() if line.startswith(game_id)]
    assert line.endswith("waiting for players: seat 0, seat 1 open")
    first = client.post("/api/join", json={"name": "Ann", "seat": 0}, headers=bearer(token)).json()
    page = client.get(f"/play/{first['token']}").text
    assert "Waiting for players: seat 1 is open." in page
    assert games.table_with_clock(game_id)[1].paused_since_ms is not None  # still waiting
    client.post("/api/join", json={"name": "Bob"}, headers=bearer(token))
    table, clock = games.table_with_clock(game_id)
    assert clock.paused_since_ms is None and clock.due_ms(table.to_act[0]) is not None
    listing = {row["game_id"]: row for row in client.get("/api/games", headers=OPERATOR).json()["games"]}
    assert "waiting_for_players" not in listing[game_id]
    assert "Waiting for players" not in client.get(f"/play/{first['token']}").text


def test_open_seats_are_checked_before_anything_is_written(client: TestClient, store, pbm):
    before = store.redis.zcard(keys.GAMES)
    response = client.post("/api/games", json={"game": "tranquility", "players": 2, "seats": [{"name": "R", "bot": "random", "open": True}, {"name": "A"}]}, headers=OPERATOR)
    assert response.status_code == 422 and "seat 0 is a bot's" in response.json()["error"]
    assert "open seat 5" in pbm("new", "tranquility", "--players", "2", "--open", "5", ok=False).output
    assert store.redis.zcard(keys.GAMES) == before
    made = pbm("new", "tranquility", "--players", "2", "--open", "1").output.splitlines()
    assert made[1].startswith("join link: ") and "/join/" in made[1]


@pytest.mark.parametrize("body, said", [({"name": ""}, "name: empty"), ({"name": "Bo", "email": "a@b.org, c@d.org"}, "email: not one mail address")])
def test_a_bad_name_or_address_claims_nothing(client: TestClient, store, body, said):
    created = new_game(client, game="tranquility", seats=[{"name": "Ann"}, {"open": True}])
    response = client.post("/api/join", json=body, headers=bearer(join_token(created)))
    assert response.status_code == 422 and response.json()["error"].startswith(said)
    assert Joins(store.redis).open_seats(created["game_id"]) == [1]
