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
