"""Standing orders through the JSON API: in process (GET/PUT/DELETE /api/me/orders, `orders` in
GET /api/me, 422 naming the bad order with nothing stored), and a whole game through a real `pbm
serve` in which the seats play mostly by orders."""

from __future__ import annotations

import time

import httpx2 as httpx

from events.store import Store
from tests.web.conftest import ADMIN, TestClient, bearer, new_game
from bench import serving
from tests.web.test_serve_games import env, start_server  # noqa: F401  (env: a fixture)

SEASONS = {"Sp": "Spring", "Su": "Summer", "Fa": "Fall", "Wi": "Winter"}


def waiting_seat(client: TestClient, created: dict) -> tuple[dict, dict]:
    """(headers, view) of a seat that is not to act now."""
    for seat in created["seats"]:
        headers = bearer(seat["token"])
        view = client.get("/api/me", headers=headers).json()["view"]
        if seat["seat"] not in view["to_act"]:
            return headers, view
    raise AssertionError("every seat is to act")


def test_orders_are_read_replaced_and_cleared_by_the_seat_alone(client: TestClient, store: Store):
    created = new_game(client)
    headers, view = waiting_seat(client, created)
    card = view["hand"][-1]
    assert client.get("/api/me/orders", headers=headers).json() == {"orders": []}
    put = client.put("/api/me/orders", headers=headers, json={"orders": [f"if Winter is led: play {card}", {"move": f"play {view['hand'][0]}", "when": "I lead"}]})
    assert put.status_code == 200, put.text
    stored = put.json()["orders"]
    assert [order["text"] for order in stored] == [f"if Winter is led: play {card}", f"if I lead: play {view['hand'][0]}"]
    assert stored[0]["move"] == f"play {card}" and stored[0]["when"] == "Winter is led" and stored[0]["id"]
    assert client.get("/api/me", headers=headers).json()["orders"] == stored
    assert client.get("/api/me/orders", headers=headers).json() == {"orders": stored}
    # Another seat sees none of them.
    others = [bearer(seat["token"]) for seat in created["seats"] if bearer(seat["token"]) != headers]
    assert all(client.get("/api/me", headers=h).json()["orders"] == [] for h in others)
    for body, named in [
        ({"orders": [f"next: play {card}", "if Snow falls: play 1Sp"]}, "order 2 (`if Snow falls: play 1Sp`): unknown condition"),
        ({"orders": ["next:"]}, "order 1 (`next:`)"),
        ({"orders": [{"move": f"play {card}", "after": [{"seat": 7, "move": "play 3Su"}]}]}, "order 1 (`play " + card + "`): `after` names seat 7"),
        ({"orders": [f"next: play {card}"] * 21}, "21 orders: a seat may leave at most 20"),
    ]:
        refused = client.put("/api/me/orders", headers=headers, json=body)
        assert refused.status_code == 422 and refused.json()["error"].startswith(named), refused.text
        assert client.get("/api/me/orders", headers=headers).json() == {"orders": stored}  # nothing changed
    assert client.delete("/api/me/orders", headers=headers).status_code == 204
    assert client.get("/api/me/orders", headers=headers).json() == {"orders": []}
    assert client.get("/api/me/orders").status_code == 401


def plan(view: dict) -> list[str]:
    """Orders for the seat's coming turns: per season, its lowest card of it; and a lead."""
    hand = view["hand"]
    orders = []
    for initial, season in SEASONS.items():
        cards = [card for card in hand if card.endswith(initial)]
        orders += [f"if {season} is led: play {card}" for card in cards[:3]]
    orders.append(f"if I lead: play {hand[-1]}")
    return orders[:20]


def test_a_whole_game_through_pbm_serve_played_mostly_by_orders(env):  # noqa: F811
    process, url = start_server(env)
    try:
        with httpx.Client(base_url=url, timeout=30) as http:
            created = http.post("/api/games", json={"game": "holly-oak", "players": 3, "seed": 11, "seats": [{"name": n} for n in ("Ann", "Bob", "Cy")], "late_salts": False}, headers=bearer(ADMIN))
            assert created.status_code == 201, created.text
            game_id = created.json()["game_id"]
            people = [bearer(seat["token"]) for seat in created.json()["seats"]]
            by_hand = 0
            deadline = time.monotonic() + 240
            over = None
            while over is None and time.monotonic() < deadline:
                for headers in people:
                    me = http.get("/api/me", headers=headers).json()
                    view = me["view"]
                    if view["outcome"] is not None:
                        over = view
                        break
                    if view["seat"] in view["to_act"]:
                        move = http.post("/api/me/moves", headers=headers, json={"move": view["legal_moves"][0], "expected_seq": view["seq"]})
                        assert move.status_code in (200, 409), move.text
                        by_hand += move.status_code == 200
                    if view["outcome"] is None and len(me["orders"]) < 8:
                        fresh = http.get("/api/me", headers=headers).json()["view"]
                        if fresh["outcome"] is None and fresh["hand"]:
                            put = http.put("/api/me/orders", headers=headers, json={"orders": plan(fresh)})
                            assert put.status_code in (200, 422), put.text
            assert over is not None, "the game did not end in time"
            exported = http.get(f"/api/games/{game_id}/export", headers=bearer(ADMIN))
            assert exported.status_code == 200
        from events import envelope
        from replays.archive import loads

        log = loads(exported.content)
        by_order = sum(env_.origin == "order" for env_ in log.envelopes)
        assert by_order > by_hand, (by_order, by_hand)
        from replays.verify import verify

        assert verify(log).ok
        assert all(env_.schema == envelope.SCHEMA_ORIGIN for env_ in log.envelopes if env_.origin == "order")
    finally:
        serving.stop(process)
