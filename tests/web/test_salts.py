"""Late salts through the API: a game created for people waits for their salts (POST
/api/me/salt), says so in every view and in the listing, deals on the last one, and refuses a bad,
second or late salt with a one-line 422 that changes nothing."""

from __future__ import annotations

from fastapi.testclient import TestClient

from events.store import Store
from tests.web.conftest import ADMIN, bearer, new_game


def test_the_deal_waits_for_each_persons_salt(client: TestClient, store: Store) -> None:
    seats = [{"name": "Ann"}, {"name": "Bob", "bot": "random"}, {"name": "Cy"}]
    created = new_game(client, seats=seats, late_salts=True)
    game_id, ann, cy = created["game_id"], created["seats"][0]["token"], created["seats"][2]["token"]
    me = client.get("/api/me", headers=bearer(ann)).json()["view"]
    assert me["to_act"] == [] and me["status"] == "waiting for salts" and me["waiting_for_salts"] == [0, 2]
    listed = {row["game_id"]: row for row in client.get("/api/games", headers=bearer(ADMIN)).json()["games"]}
    assert listed[game_id]["status"] == "waiting for salts" and listed[game_id]["waiting_for"] == []
    refused = client.post("/api/me/moves", json={"move": "PLAY 1Sp"}, headers=bearer(ann))
    assert refused.status_code == 422 and "waits for salts" in refused.json()["error"]

    given = client.post("/api/me/salt", json={"salt": "ann's dice"}, headers=bearer(ann))
    assert given.status_code == 200 and given.json()["dealt"] is False
    before = store.length(game_id)
    for body, reason in (
        ({"salt": "again"}, "given its salt already"),
        ({"salt": "x" * 201}, "salt"),
        ({"salt": ""}, "salt"),
        ({"salt": 7}, "salt"),
        ({"salt": "a", "more": 1}, "more"),
    ):
        answer = client.post("/api/me/salt", json=body, headers=bearer(ann))
        assert answer.status_code == 422 and reason in answer.json()["error"] and "\n" not in answer.json()["error"], answer.text
    assert store.length(game_id) == before

    dealt = client.post("/api/me/salt", json={"salt": "cy's"}, headers=bearer(cy)).json()
    assert dealt["dealt"] is True and "status" not in dealt["view"] and dealt["view"]["hand"]
    late = client.post("/api/me/salt", json={"salt": "late"}, headers=bearer(cy))
    assert late.status_code == 422 and "closed" in late.json()["error"]
    game = client.get(f"/api/games/{game_id}", headers=bearer(ADMIN)).json()
    assert "status" not in game and game["waiting_for"]


def test_late_salts_false_deals_at_once(client: TestClient) -> None:
    created = new_game(client, late_salts=False)
    token = created["seats"][0]["token"]
    assert client.get("/api/me", headers=bearer(token)).json()["view"]["to_act"]
    refused = client.post("/api/me/salt", json={"salt": "late"}, headers=bearer(token))
    assert refused.status_code == 422 and "takes no salts" in refused.json()["error"]


def test_the_seats_page_asks_for_its_salt_and_takes_it_once(client: TestClient, store: Store) -> None:
    import re

    from events.commands import Games

    created = new_game(client, late_salts=True, seats=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}])
    game_id = created["game_id"]
    pages = []
    for seat in created["seats"]:
        opened = client.get(f"/play/{seat['token']}", follow_redirects=False)
        pages.append(opened.headers["location"])
    first = client.get(pages[0]).text
    assert 'class="salt"' in first and 'name="salt"' in first
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', first).group(1)
    given = client.post(pages[0] + "/salt", data={"salt": "ann's own words", "csrf": csrf}, follow_redirects=False)
    assert given.status_code == 303 and "salt" not in given.headers["location"].split("?")[0].rsplit("/", 1)[1]
    assert "Your salt is in" in client.get(given.headers["location"]).text
    assert 'name="salt"' not in client.get(pages[0]).text  # asked once: the form is gone
    again = client.post(pages[0] + "/salt", data={"salt": "again", "csrf": csrf}, follow_redirects=False)
    assert "No salt given:" in client.get(again.headers["location"]).text
    assert Games(store).table(game_id).waiting_for_salts == (1, 2)  # the second salt changed nothing
    # A form from another site is refused like any of the page's forms.
    forged = client.post(pages[1] + "/salt", data={"salt": "x", "csrf": "0" * 64}, follow_redirects=False)
    assert "No salt given:" in client.get(forged.headers["location"]).text and Games(store).table(game_id).waiting_for_salts == (1, 2)
    for page in pages[1:]:
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get(page).text).group(1)
        assert client.post(page + "/salt", data={"salt": "a salt", "csrf": csrf}, follow_redirects=False).status_code == 303
    table = Games(store).table(game_id)
    assert table.waiting_for_salts == () and table.to_act
    assert 'name="salt"' not in client.get(pages[2]).text


def test_the_seats_read_that_the_server_salted_the_silent_ones_from_the_seed(client: TestClient, store: Store) -> None:
    from events.commands import Games

    created = new_game(client, late_salts=True, seats=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}])
    ann, bob = created["seats"][0]["token"], created["seats"][1]["token"]
    assert client.post("/api/me/salt", json={"salt": "ann's dice"}, headers=bearer(ann)).status_code == 200
    Games(store).close_salts(created["game_id"])  # the deadline's work (workers.deadlines.watch_salts)
    said = "the server salted the deal for {} from the committed seed, since {} sent none by the deadline; the cards are dealt"
    assert said.format("Bob and Cy", "Bob and Cy") in client.get("/api/me", headers=bearer(ann)).json()["report"]
    assert said.format("you and Cy", "you and Cy") in client.get("/api/me", headers=bearer(bob)).json()["report"]


def test_the_seats_page_says_when_the_salt_deadline_deals(client: TestClient, store: Store) -> None:
    import re

    from events import clock as clocks
    from events.commands import Games

    for extra, after_s in (({}, clocks.SALTS_WITHOUT_CLOCK_S), ({"deadline": "6h"}, 6 * 3600)):
        created = new_game(client, late_salts=True, seats=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], **extra)
        game_id, ann = created["game_id"], created["seats"][0]["token"]
        due = clocks.iso(store.read(game_id, 0)[0].time_ms + after_s * 1000)
        assert client.get("/api/me", headers=bearer(ann)).json()["salts_due"] == due
        page = client.get(client.get(f"/play/{ann}", follow_redirects=False).headers["location"]).text
        status = re.search(r'<p class="status" role="status">(.*?)</p>', page, re.S).group(1)
        assert "Waiting for salts from you, Bob and Cy: the cards are dealt once every salt is in, or" in " ".join(status.split())
        assert re.search(r'class="salts-due"><time datetime="([^"]+)"', status).group(1) == due
        Games(store).close_salts(game_id)
        assert client.get("/api/me", headers=bearer(ann)).json()["salts_due"] is None
        dealt = client.get(client.get(f"/play/{ann}", follow_redirects=False).headers["location"]).text
        assert "salts-due" not in dealt and "Waiting for salts" not in dealt
