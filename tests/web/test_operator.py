"""The operator's API and CLI on the real (test) Redis: the listing with whom each game waits for
and since when, one game's public view, export, verify, a fresh link, a seat handed to a bot and
back; and the spectators' view only where the creator allowed it."""

from __future__ import annotations

import re

import json

from events import keys
from events.seats import Seats
from events.store import Store
from replays import archive
from tests.web.conftest import ADMIN, TestClient, bearer, new_game

OPERATOR = bearer(ADMIN)


def test_the_listing_says_whom_each_game_waits_for_and_since_when(client: TestClient, store: Store):
    created = new_game(client, seats=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], seed=3)
    listing = client.get("/api/games", headers=OPERATOR).json()["games"]
    row = next(row for row in listing if row["game_id"] == created["game_id"])
    envelopes = store.read(created["game_id"])
    assert row["since_ms"] == envelopes[-1].time_ms and row["seq"] == len(envelopes)
    names = ["Ann", "Bob", "Cy"]
    assert row["waiting_for"] and all(entry["name"] == names[entry["seat"]] for entry in row["waiting_for"])
    assert row["outcome"] is None
    assert client.get("/api/games").status_code == 401


def test_a_damaged_log_is_listed_with_its_problem_and_hides_no_other_game(client: TestClient, store: Store, game_id: str):
    created = new_game(client)
    store.redis.zadd(keys.GAMES, {game_id: 1})
    store.redis.hset(keys.meta(game_id), mapping={"slug": "holly-oak", "players": 3, "created": 1})
    store.redis.xadd(keys.log(game_id), {"e": b"not an envelope"}, id="0-1")
    listing = client.get("/api/games", headers=OPERATOR)
    assert listing.status_code == 200
    rows = {row["game_id"]: row for row in listing.json()["games"]}
    assert rows[game_id]["error"] and "waiting_for" in rows[created["game_id"]]


def test_one_games_public_view_hides_every_hand(client: TestClient, app):
    created = new_game(client, seats=[{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob"}, {"name": "Robo", "bot": "random"}])
    game = client.get(f"/api/games/{created['game_id']}", headers=OPERATOR).json()
    table = app.state.pbm.games.table(created["game_id"])
    assert game["view"] == json.loads(json.dumps(table.view(None)))
    assert [s["name"] for s in game["seats"]] == ["Ann", "Bob", "Robo"]
    assert [s["bot"] for s in game["seats"]] == [None, None, "random"]
    assert [s["link"] for s in game["seats"]] == [True, True, False]
    text = json.dumps(game)
    assert "ann@example.org" not in text and created["seats"][0]["token"] not in text
    for seat in range(3):
        for card in table.view(seat)["hand"]:
            assert card not in game["view"].get("hand", [])
    assert client.get("/api/games/no-such-game", headers=OPERATOR).status_code == 404


def test_export_gives_the_replay_file_and_verify_checks_it(client: TestClient, store: Store):
    created = new_game(client, game="tranquility", seats=[{"name": "a"}, {"name": "b"}])
    game_id = created["game_id"]
    exported = client.get(f"/api/games/{game_id}/export", headers=OPERATOR)
    assert exported.status_code == 200 and exported.headers["content-type"] == "application/octet-stream"
    log = archive.loads(exported.content)
    assert [raw for _s, raw in store.read_raw(game_id)] == log.raw
    verified = client.get(f"/api/games/{game_id}/verify", headers=OPERATOR).json()
    assert verified["ok"] and verified["first_bad_seq"] is None and verified["findings"]
    with_seed = client.get(f"/api/games/{game_id}/verify?secret_seed=true", headers=OPERATOR).json()
    assert with_seed["ok"] and any("secret seed given matches" in f["text"] for f in with_seed["findings"])
    assert str(store.seed(game_id)) not in json.dumps(with_seed)


def test_a_reissued_link_replaces_the_old_one(client: TestClient):
    created = new_game(client)
    old = created["seats"][1]["token"]
    fresh = client.post(f"/api/games/{created['game_id']}/seats/1/token", headers=OPERATOR).json()
    assert fresh["url"].endswith(fresh["token"]) and fresh["token"] != old
    assert client.get("/api/me", headers=bearer(old)).status_code == 401
    assert client.get("/api/me", headers=bearer(fresh["token"])).json()["seat"] == 1
    assert client.post(f"/api/games/{created['game_id']}/seats/7/token", headers=OPERATOR).status_code == 422


def test_a_seat_handed_to_a_bot_plays_no_human_move_until_handed_back(client: TestClient, store: Store):
    created = new_game(client, seats=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Robo", "bot": "random"}])
    game_id = created["game_id"]
    handed = client.put(f"/api/games/{game_id}/seats/0", json={"bot": "heuristic"}, headers=OPERATOR)
    assert handed.status_code == 200 and handed.json()["bot"] == "heuristic"
    ann = bearer(created["seats"][0]["token"])
    assert client.get("/api/me", headers=ann).status_code == 200  # the link still shows the game
    refused = client.post("/api/me/moves", json={"move": "anything"}, headers=ann)
    assert refused.status_code == 409 and "bot" in refused.json()["error"]
    back = client.put(f"/api/games/{game_id}/seats/0", json={"bot": None}, headers=OPERATOR).json()
    assert back["bot"] is None and "token" not in back  # Ann keeps her link
    robo = client.put(f"/api/games/{game_id}/seats/2", json={"bot": None}, headers=OPERATOR).json()
    assert client.get("/api/me", headers=bearer(robo["token"])).json()["seat"] == 2  # a new person's link
    twice = client.put(f"/api/games/{game_id}/seats/2", json={"bot": None}, headers=OPERATOR)
    assert twice.status_code == 422 and "already" in twice.json()["error"]
    assert client.put(f"/api/games/{game_id}/seats/1", json={"bot": "genius"}, headers=OPERATOR).status_code == 422
    kinds = [env.kind for env in store.read(game_id)]
    assert kinds.count("pbm.bots_seated") == 4  # at creation, and one per handover


def test_spectators_see_only_games_opened_to_them(client: TestClient):
    closed = new_game(client)
    opened = new_game(client, spectators=True)
    assert client.get(f"/api/games/{closed['game_id']}/public").status_code == 404
    assert client.get("/api/games/no-such-game/public").status_code == 404
    public = client.get(f"/api/games/{opened['game_id']}/public").json()
    assert public["view"]["seat"] is None and not public["view"].get("hand")
    assert public["log"] and all("you hold" not in entry["text"] for entry in public["log"])
    # The spectators' story names the seats, as every story does; the view's fields keep numbers.
    assert any(re.search(r"\b(Ann|Bob|Cy)\b", entry["text"]) for entry in public["log"])
    assert not any(re.search(r"\b[Ss]eat \d", entry["text"]) for entry in public["log"])


def test_the_cli_invites_and_hands_seats_over(client: TestClient, pbm, store: Store):
    created = new_game(client, seats=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}])
    game_id = created["game_id"]
    printed = pbm("invite", game_id, "1", "--url", "https://pbm.example.org/").output.strip()
    assert printed.startswith("https://pbm.example.org/play/")
    token = printed.rsplit("/", 1)[1]
    seats = Seats(store.redis)
    assert seats.resolve(token) == (game_id, 1) and seats.resolve(created["seats"][1]["token"]) is None
    assert "a bot (random)" in pbm("seat", game_id, "2", "--bot", "random").output
    assert "bot" in pbm("invite", game_id, "2", ok=False).output
    back = pbm("seat", game_id, "2", "--person").output
    assert "a person" in back and "its link" not in back  # Cy kept the link made at creation
    assert "give --bot KIND or --person" in pbm("seat", game_id, "2", ok=False).output
    assert "no game" in pbm("invite", "nope", "0", ok=False).output
