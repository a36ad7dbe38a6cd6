"""A person's page (/me/{person token}, HTML without JavaScript) and GET /api/people/me: every seat
they hold, their turns first with each deadline, then waiting, then finished with results; each
opens its seat's page through a check that they hold it. And who may reach what: for every one of
these endpoints, a person's own token, another person's, a seat token, the operator's and none."""

from __future__ import annotations

import re
import uuid

import pytest

from events.people import People
from tests.web.conftest import ADMIN, TestClient, bearer, finish, new_game

OPERATOR = bearer(ADMIN)


def add(client: TestClient, name: str, **fields) -> dict:
    response = client.post("/api/people", json={"name": name, **fields}, headers=OPERATOR)
    assert response.status_code == 201, response.text
    return response.json()


@pytest.fixture
def tables(client: TestClient, app):
    """Ann holds seats in three games: one waiting on her (with a deadline), one on Bob, one over."""
    ann = add(client, "Ann", tz="Asia/Tokyo", email=f"ann-{uuid.uuid4().hex[:8]}@example.org")
    bob = add(client, "Bob")
    games = app.state.pbm.games
    turn = new_game(client, game="tranquility", seats=[{"person": ann["id"]}, {"person": bob["id"]}], deadline="2d", seed=1)
    first = games.table(turn["game_id"]).to_act[0]
    if first != 0:  # make it Ann's turn: the other seat moves
        games.submit(turn["game_id"], first, games.table(turn["game_id"]).legal_moves(first)[0])
    assert games.table(turn["game_id"]).to_act == (0,)
    waiting = new_game(client, game="tranquility", seats=[{"person": bob["id"]}, {"person": ann["id"]}], seed=1)
    if games.table(waiting["game_id"]).to_act == (1,):
        games.submit(waiting["game_id"], 1, games.table(waiting["game_id"]).legal_moves(1)[0])
    over = new_game(client, game="tranquility", seats=[{"person": ann["id"]}, {"name": "Cy"}], seed=2)
    finish(games, over["game_id"])
    return {"ann": ann, "bob": bob, "turn": turn, "waiting": waiting, "over": over}


def test_the_api_lists_every_seat_your_turns_first_then_waiting_then_finished(client: TestClient, tables):
    me = client.get("/api/people/me", headers=bearer(tables["ann"]["token"]))
    assert me.status_code == 200, me.text
    body = me.json()
    assert body["person"]["name"] == "Ann"
    rows = body["seats"]
    assert [(row["game_id"], row["state"]) for row in rows] == [
        (tables["turn"]["game_id"], "your turn"),
        (tables["waiting"]["game_id"], "waiting"),
        (tables["over"]["game_id"], "finished"),
    ]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rows[0]["deadline"])
    assert rows[1]["waiting_for"] == ["Bob"] and rows[1]["deadline"] is None
    assert rows[2]["result"].startswith(("you won", "won by Cy", "nobody won"))
    assert all(row["url"].endswith(f"/seat/{row['game_id']}/{row['seat']}") for row in rows)


def test_a_game_whose_deal_waits_for_salts_says_so(client: TestClient):
    """Nobody is to act while the opening deal waits for the players' salts: the page says what it
    waits for, not "waiting for" nobody."""
    ann, bob = add(client, "Ann"), add(client, "Bob")
    game = new_game(client, game="tranquility", seats=[{"person": ann["id"]}, {"person": bob["id"]}], late_salts=True)
    [row] = client.get("/api/people/me", headers=bearer(ann["token"])).json()["seats"]
    assert (row["game_id"], row["state"]) == (game["game_id"], "waiting for salts")
    client.get(f"/me/{ann['token']}")
    assert f"({game['game_id']}), seat 0</a>: the deal waits for the players' salts" in client.get("/me").text


def test_the_link_leaves_its_token_in_a_cookie_and_the_page_works_without_javascript(client: TestClient, tables):
    token = tables["ann"]["token"]
    opened = client.get(f"/me/{token}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == "/me"
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith(f"pbm_person={token};") and "HttpOnly" in cookie and "Path=/me;" in cookie and "SameSite=lax" in cookie
    page = client.get("/me")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert page.headers["Referrer-Policy"] == "no-referrer" and page.headers["Cache-Control"] == "no-store"
    html = page.text
    assert token not in html
    assert html.index("Your turn</h2>") < html.index("Waiting for others</h2>") < html.index("Finished</h2>")
    assert "JST" in html  # the deadline in Ann's time zone
    links = re.findall(r'href="(/me/seat/[^"]+)"', html)
    assert len(links) == 3
    for link, game in zip(links, ("turn", "waiting", "over")):
        opened = client.get(link, follow_redirects=False)
        assert opened.status_code == 303, opened.text
        seat = [s["seat"] for s in tables[game]["seats"] if s.get("person") == tables["ann"]["id"]][0]
        assert opened.headers["location"] == f"/play/g/{tables[game]['game_id']}/{seat}"  # no token in it
        assert opened.headers["set-cookie"].startswith("pbm_seat=")
        assert client.get(opened.headers["location"]).status_code == 200
    # no seat token on the page itself
    for game in ("turn", "waiting", "over"):
        for seat in tables[game]["seats"]:
            assert seat["token"] not in html


def test_a_persons_seat_page_links_to_their_page_and_a_seat_of_nobodys_does_not(client: TestClient, tables, app):
    client.get(f"/me/{tables['ann']['token']}")
    mine = client.get(f"/me/seat/{tables['turn']['game_id']}/0")  # on to the seat's page
    assert mine.status_code == 200 and '<a class="games" href="/me">All your games</a>' in mine.text
    with TestClient(app) as cy:  # Cy's seat is a name, nobody's person
        theirs = cy.get(tables["over"]["seats"][1]["url"])
        assert theirs.status_code == 200 and 'class="games"' not in theirs.text


def test_the_page_goes_live_through_server_sent_events(client: TestClient, tables, app):
    html = client.get(f"/me/{tables['ann']['token']}").text
    seq = int(re.search(r'data-seq="(\d+)"', html).group(1))
    assert 'data-events="/me/events"' in html
    with client.stream("GET", "/me/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        for line in stream.iter_lines():
            if line.startswith("data: "):
                assert int(line.removeprefix("data: ")) == seq
                break


def test_the_stream_tells_of_a_game_the_person_comes_to_hold(client: TestClient, tables, app, monkeypatch):
    """A game made for them while their page is open (a rematch begun, a seat claimed) grows
    what the stream counts, so the page redraws with it: the stream watches the games they hold
    now, not only those they held when it opened."""
    from pbm.web import people

    monkeypatch.setattr(people, "EVENTS_STREAM_S", 60)  # a stream that never tells ends, and the test fails
    html = client.get(f"/me/{tables['ann']['token']}").text
    seq = int(re.search(r'data-seq="(\d+)"', html).group(1))
    told = []
    with client.stream("GET", "/me/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                told.append(int(line.removeprefix("data: ")))
                if len(told) == 1:
                    with TestClient(app) as operator:
                        new_game(operator, game="tranquility", seats=[{"person": tables["ann"]["id"]}, {"name": "Dee"}], seed=3)
                else:
                    break
    page = client.get("/me").text
    assert told[0] == seq and told[1:] == [int(re.search(r'data-seq="(\d+)"', page).group(1))] and told[1] > seq
    assert page.count('href="/me/seat/') == 4  # the new game is on the page


def test_a_person_token_opens_only_that_persons_page_and_seats(app, tables):
    """Every person endpoint, with every kind of credential: only one's own person token opens
    anything, and never a seat of anyone else's (nor the operator's API: test_people_api)."""
    ann, bob = tables["ann"], tables["bob"]
    ann_seat = (tables["over"]["game_id"], 0)
    bob_seat = (tables["turn"]["game_id"], 1)
    cy_seat = (tables["over"]["game_id"], 1)  # nobody's person
    seat_token = tables["turn"]["seats"][0]["token"]  # Ann's own seat's token
    credentials = {"own": ann["token"], "other person": bob["token"], "seat": seat_token, "operator": ADMIN, "none": None}

    for kind, token in credentials.items():
        with TestClient(app) as client:  # a browser of its own: its cookies are this credential's only
            headers = bearer(token) if token else {}
            me = client.get("/api/people/me", headers=headers)
            if kind == "own":
                assert me.status_code == 200 and me.json()["person"]["id"] == ann["id"]
            elif kind == "other person":
                assert me.status_code == 200 and me.json()["person"]["id"] == bob["id"]  # Bob's own, never Ann's
                assert ann["token"] not in me.text
            else:
                assert me.status_code == 401, kind
            # The link takes the token in the path: a seat's, the operator's or an empty one open nothing.
            path_token = token or ""
            link = client.get(f"/me/{path_token}", follow_redirects=False)
            if token:  # and the same token as a cookie, as if a link had left it there
                client.cookies.set("pbm_person", token, path="/me")
            page = client.get("/me")
            with client.stream("GET", "/me/events") as events:  # a stream: read its head only
                status = events.status_code
            if kind in ("own", "other person"):
                assert link.status_code == 303 and page.status_code == 200 and status == 200, kind
            else:
                assert link.status_code in (307, 401, 404) and "set-cookie" not in link.headers, kind  # 307: /me/ to /me
                assert page.status_code == 401 and status == 401, kind
            for game_id, seat in (ann_seat, bob_seat, cy_seat):
                mine = {"own": ann_seat, "other person": bob_seat}.get(kind)
                for path in (f"/me/{path_token}/seat/{game_id}/{seat}", f"/me/seat/{game_id}/{seat}"):
                    opened = client.get(path, follow_redirects=False)
                    if (game_id, seat) == mine:
                        assert opened.status_code == 303, (kind, path)
                    else:
                        assert opened.status_code in (401, 404) and "location" not in opened.headers, (kind, path)
    with TestClient(app) as client:
        # Bob's page never lists Ann's seats, nor Ann's his.
        client.get(f"/me/{bob['token']}")
        assert tables["over"]["game_id"] not in client.get("/me").text
        # A replaced person token opens nothing: not as a link, not as the cookie a link left.
        client.get(f"/me/{ann['token']}")
        fresh = client.post(f"/api/people/{ann['id']}/token", headers=OPERATOR).json()["token"]
        assert client.get("/me").status_code == 401
        assert client.get(f"/me/{ann['token']}").status_code == 401
        assert client.get(f"/me/{ann['token']}/seat/{ann_seat[0]}/0", follow_redirects=False).status_code == 401
        assert client.get(f"/me/{fresh}/seat/{ann_seat[0]}/0", follow_redirects=False).status_code == 303


def test_a_seat_the_person_no_longer_holds_is_not_opened(client: TestClient, tables, store):
    ann = tables["ann"]
    game_id = tables["over"]["game_id"]
    People(store.redis).unseat(ann["id"], game_id, 0)
    assert client.get(f"/me/{ann['token']}/seat/{game_id}/0", follow_redirects=False).status_code == 404
    assert game_id not in client.get(f"/me/{ann['token']}").text  # the link, then the page it leads to
