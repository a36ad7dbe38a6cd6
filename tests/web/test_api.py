"""The player's and the operator's JSON API through the real ASGI app on the real (test) Redis."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys

import pytest
import redis

from events.commands import Games
from pbm.names import Names
from events.seats import Seats
from events.store import Store
from replays import archive
from pbm.web import auth, create_app
from pbm.web.app import MAX_BODY_BYTES, Shortcut
from tests.conftest import forged, written
from tests.web.conftest import ADMIN, TestClient, bearer, new_game


def test_creating_a_game_answers_each_human_seats_link_once(client: TestClient, store: Store):
    created = new_game(client, seats=[
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Bob", "webhook": "https://93.184.215.14/hook"},
        {"name": "Robo", "bot": "random"},
    ])
    game_id = created["game_id"]
    ann, bob, robo = created["seats"]
    assert ann["url"].endswith(f"/play/{ann['token']}") and ann["token"].startswith(f"{game_id}.0.")
    assert "token" not in robo and robo["bot"] == "random"
    assert len(bob["webhook_secret"]) == 64
    seats = Seats(store.redis)
    assert seats.resolve(ann["token"]) == (game_id, 0)
    assert seats.contact(game_id, 0) == {"name": "Ann", "email": "ann@example.org"}
    raw_log = b"".join(raw for _seq, raw in store.read_raw(game_id))
    for secret in ("ann@example.org", "93.184.215.14/hook", ann["token"], bob["token"], bob["webhook_secret"]):
        assert secret.encode() not in raw_log


@pytest.mark.parametrize(
    "body, reason",
    [
        ({"game": "chess", "players": 2, "seats": [{"name": "a"}, {"name": "b"}]}, "unknown game"),
        ({"game": "holly-oak", "players": 3, "seats": [{"name": "a"}]}, "1 given for 3 players"),
        ({"game": "holly-oak", "players": 2, "seats": [{"name": "a"}, {"name": "b"}]}, "players"),
        ({"game": "holly-oak", "players": 3, "seats": [{"name": "a"}, {"name": "b"}, {"name": "c", "bot": "genius"}]}, "unknown bot kind"),
        ({"game": "holly-oak", "players": 3, "seats": [{"name": "a"}] * 3, "options": {"nope": 1}}, "no option"),
        ({"game": "holly-oak", "players": 3, "seats": [{"name": "a"}] * 3, "colour": "red"}, "colour"),
    ],
)
def test_a_bad_new_game_is_refused_with_the_reason(client: TestClient, store: Store, body, reason):
    before = store.redis.zcard("pbm:games")
    response = client.post("/api/games", json=body, headers=bearer(ADMIN))
    assert response.status_code == 422 and reason in response.json()["error"], response.text
    assert "\n" not in response.json()["error"]
    assert store.redis.zcard("pbm:games") == before


def test_the_operators_api_wants_the_admin_token(client: TestClient, store: Store):
    body = {"game": "tranquility", "players": 2, "seats": [{"name": "a"}, {"name": "b"}]}
    for headers in ({}, bearer("wrong"), {"Authorization": ADMIN}):
        response = client.post("/api/games", json=body, headers=headers)
        assert response.status_code == 401 and response.json()["error"]
    off = TestClient(create_app(store.redis, games=Games(store), admin_token=""))
    response = off.post("/api/games", json=body, headers=bearer(""))
    assert response.status_code == 401 and "PBM_ADMIN_TOKEN" in response.json()["error"]


def test_me_is_the_seats_view_and_its_report(client: TestClient, app):
    created = new_game(client)
    games = app.state.pbm.games
    for seat in created["seats"]:
        response = client.get("/api/me", headers=bearer(seat["token"]))
        assert response.status_code == 200
        me = response.json()
        table = games.table(created["game_id"])
        assert me["game_id"] == created["game_id"] and me["seat"] == seat["seat"]
        assert me["view"] == json.loads(json.dumps(table.view(seat["seat"])))
        name = Names(tuple(s["name"] for s in created["seats"]), viewer=seat["seat"], bots=frozenset(table.bots))
        # The opening lead (1Sp) is its holder's only legal move: played for them, and their
        # report (theirs alone) says so.
        forced = {env.seq for env in games.store.read(created["game_id"]) if env.origin == "forced" and env.actor == seat["seat"]}
        note = " (played for you: it was your only legal move)"
        assert me["report"] == [name.text(line) + (note if s in forced else "") for s, line in table.narrate(seat["seat"])]  # named, for a person
    assert any(env.origin == "forced" for env in games.store.read(created["game_id"]))
    log = client.get("/api/me/log", headers=bearer(created["seats"][1]["token"])).json()
    assert [entry["seq"] for entry in log["log"]] == list(range(table.seq))


def first_to_act(client: TestClient, created: dict) -> tuple[dict, dict]:
    for seat in created["seats"]:
        me = client.get("/api/me", headers=bearer(seat["token"])).json()
        if me["view"]["legal_moves"]:
            return seat, me
    raise AssertionError("nobody to act")


def test_a_move_is_played_once_and_refusals_change_nothing(client: TestClient, store: Store):
    created = new_game(client)
    game_id = created["game_id"]
    seat, me = first_to_act(client, created)
    headers = bearer(seat["token"])
    seq = me["view"]["seq"]

    refused = client.post("/api/me/moves", json={"move": "play 99Xx"}, headers=headers)
    assert refused.status_code == 422 and refused.json()["error"]
    stale = client.post("/api/me/moves", json={"move": me["view"]["legal_moves"][0], "expected_seq": seq - 1}, headers=headers)
    assert stale.status_code == 409 and f"seq {seq}" in stale.json()["error"]
    assert store.length(game_id) == seq

    move = {"move": me["view"]["legal_moves"][0], "expected_seq": seq}
    played = client.post("/api/me/moves", json=move, headers=headers | {"Idempotency-Key": "k1"})
    assert played.status_code == 200, played.text
    answer = played.json()
    assert answer["seq"] == seq and not answer["duplicate"] and answer["report"]
    assert answer["view"]["seq"] == store.length(game_id) > seq
    again = client.post("/api/me/moves", json=move, headers=headers | {"Idempotency-Key": "k1"})
    assert again.status_code == 200 and again.json()["duplicate"] and again.json()["seq"] == seq
    assert store.length(game_id) == answer["view"]["seq"]
    envelopes = store.read(game_id)
    assert envelopes[seq].command == move["move"] and envelopes[seq].actor == seat["seat"]


def test_one_seats_idempotency_key_is_not_another_seats(client: TestClient, store: Store):
    created = new_game(client, game="tranquility", seats=[{"name": "a"}, {"name": "b"}], seed=8)
    seat, me = first_to_act(client, created)
    client.post("/api/me/moves", json={"move": me["view"]["legal_moves"][0]}, headers=bearer(seat["token"]) | {"Idempotency-Key": "same"})
    other, other_me = first_to_act(client, created)
    while other["seat"] == seat["seat"]:  # a seat may act twice in a row
        client.post("/api/me/moves", json={"move": other_me["view"]["legal_moves"][0]}, headers=bearer(seat["token"]))
        other, other_me = first_to_act(client, created)
    response = client.post("/api/me/moves", json={"move": other_me["view"]["legal_moves"][0]}, headers=bearer(other["token"]) | {"Idempotency-Key": "same"})
    assert response.status_code == 200 and not response.json()["duplicate"]
    assert store.read(created["game_id"])[response.json()["seq"]].actor == other["seat"]


def test_bad_reissued_and_other_games_tokens_get_the_same_401(client: TestClient, store: Store):
    one, two = new_game(client), new_game(client)
    old = one["seats"][0]["token"]
    Seats(store.redis).issue(one["game_id"], 0)
    secret = old.rsplit(".", 1)[1]
    guesses = [
        old,  # re-issued
        f"{two['game_id']}.0.{secret}",  # another game's
        forged(two["seats"][1]["token"]),  # a wrong secret
        "garbage",
        "",
    ]
    answers = set()
    for guess in guesses:
        for method, path, body in (("GET", "/api/me", None), ("GET", "/api/me/log", None), ("POST", "/api/me/moves", {"move": "x"})):
            response = client.request(method, path, json=body, headers=bearer(guess) if guess else {})
            assert response.status_code == 401
            answers.add(response.text)
            assert secret not in response.text
    assert len(answers) == 1


def test_a_move_with_a_token_not_the_seats_is_a_401_whatever_the_move_and_writes_nothing(client: TestClient, store: Store):
    # The token's check rides on the move's append (one round trip): every other way a request
    # can end (a refusal, a conflict, a repeated command, a seat on autopilot) checks it first.
    # No move is played for a seat (forced_moves "ask"): a deal's forced moves could otherwise give
    # the turn back to the first seat, whose token is then renewed, or play the seat's one card.
    created = new_game(client, forced_moves="ask")
    game_id = created["game_id"]
    first, me = first_to_act(client, created)
    first_move = {"move": me["view"]["legal_moves"][0], "expected_seq": me["view"]["seq"]}
    played = client.post("/api/me/moves", json=first_move, headers=bearer(first["token"]) | {"Idempotency-Key": "k"})
    assert played.status_code == 200
    seat, me = first_to_act(client, created)
    legal, seq = me["view"]["legal_moves"][0], me["view"]["seq"]
    replaced = seat["token"]
    renewed = Seats(store.redis).issue(game_id, seat["seat"])
    other_secret = forged(renewed)
    client.app.state.pbm.games.seat_bots(game_id, {(seat["seat"] + 1) % 3: "autopilot"})  # another seat on autopilot
    before = written(store.redis, game_id)
    asks = [
        ({"move": legal, "expected_seq": seq + 1}, {}),  # legal (after the handover's event)
        ({"move": legal}, {}),
        ({"move": "play 99Xx"}, {}),  # refused by the rules
        ({"move": legal, "expected_seq": seq - 1}, {}),  # stale
        ({"move": legal}, {"Idempotency-Key": "k"}),
    ]
    for token in (other_secret, replaced):
        for body, headers in asks:
            response = client.post("/api/me/moves", json=body, headers=bearer(token) | headers)
            assert (response.status_code, response.json()) == (401, {"error": auth.NOT_A_SEAT}), body
    # The first seat's command again, with a forged token: its answer is the first seat's alone.
    response = client.post("/api/me/moves", json=first_move, headers=bearer(forged(first["token"])) | {"Idempotency-Key": "k"})
    assert response.status_code == 401
    autopiloted = created["seats"][(seat["seat"] + 1) % 3]
    response = client.post("/api/me/moves", json={"move": "play 99Xx"}, headers=bearer(forged(autopiloted["token"])))
    assert response.status_code == 401
    assert written(store.redis, game_id) == before  # no event, no hand-back, no counter, no index entry
    assert client.post("/api/me/moves", json=first_move, headers=bearer(first["token"]) | {"Idempotency-Key": "k"}).json()["duplicate"]
    assert client.post("/api/me/moves", json={"move": legal, "expected_seq": seq + 1}, headers=bearer(renewed)).status_code == 200


def test_a_legal_move_past_the_seats_allowance_is_a_429_and_plays_nothing(store: Store):
    client = TestClient(create_app(store.redis, games=Games(store), admin_token=ADMIN, moves_per_window=2, move_window_s=600))
    created = new_game(client)
    seat, me = first_to_act(client, created)
    headers = bearer(seat["token"])
    assert [client.post("/api/me/moves", json={"move": "nonsense"}, headers=headers).status_code for _ in range(2)] == [422, 422]
    length = store.length(created["game_id"])
    response = client.post("/api/me/moves", json={"move": me["view"]["legal_moves"][0]}, headers=headers)
    assert response.status_code == 429 and response.headers["Retry-After"] == "600"
    assert store.length(created["game_id"]) == length


def test_a_body_over_the_limit_is_refused(client: TestClient):
    created = new_game(client)
    headers = bearer(created["seats"][0]["token"]) | {"Content-Type": "application/json"}
    response = client.post("/api/me/moves", content=json.dumps({"move": "x" * 20_000}), headers=headers)
    assert response.status_code == 413 and "bytes" in response.json()["error"]

    def chunks():  # no Content-Length: counted as it streams
        yield b'{"move": "'
        for _ in range(40):
            yield b"x" * 1000
        yield b'"}'

    streamed = client.post("/api/me/moves", content=chunks(), headers=headers)
    assert streamed.status_code == 413


def test_a_content_length_of_thousands_of_digits_is_refused_not_parsed(client: TestClient):
    # Sent to the ASGI app as a server would pass it: int() of 5,000 digits would raise.
    answer: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        answer.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/me/moves", "raw_path": b"/api/me/moves", "query_string": b"",
        "root_path": "", "headers": [(b"content-length", b"9" * 5000), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
    }
    asyncio.run(client.app(scope, receive, send))
    assert answer[0]["status"] == 413
    assert b"bytes" in b"".join(m.get("body", b"") for m in answer[1:])


def test_a_flooding_seat_gets_429(store: Store):
    client = TestClient(create_app(store.redis, games=Games(store), admin_token=ADMIN, moves_per_window=3, move_window_s=600))
    created = new_game(client)
    token = created["seats"][0]["token"]
    codes = [client.post("/api/me/moves", json={"move": "nonsense"}, headers=bearer(token)).status_code for _ in range(5)]
    assert codes == [422, 422, 422, 429, 429]
    response = client.post("/api/me/moves", json={"move": "nonsense"}, headers=bearer(token))
    assert response.headers["Retry-After"] == "600"
    # Another seat's allowance is its own.
    other = client.post("/api/me/moves", json={"move": "nonsense"}, headers=bearer(created["seats"][1]["token"]))
    assert other.status_code == 422


def test_malformed_requests_get_one_line_json_errors(client: TestClient):
    created = new_game(client)
    headers = bearer(created["seats"][0]["token"])
    for content in (b"{", b"[]", b'{"move": 3}', b'{"move": "a", "extra": 1}', b'{"move": "a", "expected_seq": -1}'):
        response = client.post("/api/me/moves", content=content, headers=headers | {"Content-Type": "application/json"})
        assert response.status_code == 422, content
        assert "\n" not in response.json()["error"]
    response = client.post("/api/me/moves", json={"move": "a"}, headers=headers | {"Idempotency-Key": "x" * 300})
    assert response.status_code == 422
    # The move route reads its request itself (MoveRoute): it answers as FastAPI's own reading would.
    for content, kind, said in (
        (b'{"move": "a"}', "text/plain", "body: send the move as JSON (Content-Type: application/json)"),
        (b'{"move": "a"}', None, "body: send the move as JSON (Content-Type: application/json)"),
        (b"", "application/json", "body: Input should be an object"),
        (b'{"expected_seq": 1}', "application/json", "move: Field required"),
        (b'{"move": ""}', "application/json; charset=utf-8", "move: String should have at least 1 character"),
        (b'{"move": "a", "extra": 1, "more": 2}', "application/json", "extra: Extra inputs are not permitted (and 1 more)"),
    ):
        response = client.post("/api/me/moves", content=content, headers=headers | ({"Content-Type": kind} if kind else {}))
        assert (response.status_code, response.json()) == (422, {"error": said}), content
    assert client.post("/api/me/moves", json={"move": "a"}).status_code == 401  # a good body, no token
    assert client.post("/api/me/moves", json={"move": "a"}, headers={"Authorization": "Basic abc"}).status_code == 401


# A valid body for each endpoint that takes one, by (method, path) as the spec names them: the
# test below sets each integer field the spec lists to what is not an integer. An endpoint whose
# body gains an integer field and is missing here fails the test until it is added.
VALID_BODIES = {
    ("post", "/api/games"): {
        "game": "holly-oak", "players": 3, "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
        "seed": 1, "deadline": "48h", "vacation_days": 1, "autopilot_after": 1,
    },
    ("post", "/api/me/moves"): {"move": "x", "expected_seq": 0},
    ("post", "/api/me/vacation"): {"days": 1},
    ("post", "/api/me/disputes"): {"seq": 0, "reason": "x"},
    ("post", "/api/games/{game_id}/clock"): {"action": "extend", "by": "1h", "seat": 0},
    ("post", "/api/join"): {"name": "Zed", "seat": 0},
}


def integer_fields(spec: dict, schema: dict, where: tuple = ()) -> list[tuple]:
    """Where each integer field of a request body's schema is (through nested objects and lists of
    them: a list's first item), read from the app's own OpenAPI spec."""
    if "$ref" in schema:
        return integer_fields(spec, spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]], where)
    if schema.get("type") == "integer":
        return [where]
    found = []
    for each in schema.get("anyOf", []):
        found += [path for path in integer_fields(spec, each, where) if path not in found]
    if schema.get("type") == "array" and "items" in schema:
        found += integer_fields(spec, schema["items"], (*where, 0))
    for name, field in schema.get("properties", {}).items():
        found += integer_fields(spec, field, (*where, name))
    return found


def with_value(body: dict, where: tuple, value) -> dict:
    body = json.loads(json.dumps(body))
    *into, last = where
    target = body
    for step in into:
        target = target[step]
    target[last] = value
    return body


@pytest.mark.parametrize("wrong", [True, False, "1", 1.0], ids=["true", "false", "a string", "a float"])
def test_no_integer_field_of_any_body_takes_what_is_not_an_integer(client: TestClient, store: Store, wrong):
    """JSON's true is not 1 (pydantic's lax mode read `expected_seq: true` as 1), nor "1", nor 1.0."""
    created = new_game(client)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    spec = client.get("/openapi.json").json()
    checked = []
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            fields = integer_fields(spec, body) if body else []
            if not fields:
                continue
            assert (method, path) in VALID_BODIES, f"{method.upper()} {path} takes integers: add a valid body to VALID_BODIES"
            url = path.format(game_id=game_id, seat=0)
            headers = bearer(token if path.startswith("/api/me") else ADMIN)
            before = written(store.redis, game_id)
            for where in fields:
                answer = client.request(method, url, json=with_value(VALID_BODIES[method, path], where, wrong), headers=headers)
                named = ".".join(map(str, where))
                assert answer.status_code == 422, (method, path, named, answer.text)
                error = answer.json()["error"]
                assert error.startswith(f"{named}: ") and "integer" in error and "\n" not in error, (named, error)
                checked.append(named)
            assert written(store.redis, game_id) == before, f"{method.upper()} {path} wrote something"
    assert {"expected_seq", "days", "players", "seed", "vacation_days", "autopilot_after", "seat"} <= set(checked)


def test_a_forms_whole_numbers_are_ascii_digits(client: TestClient, store: Store):
    """str.isdigit() takes '²' (which int() then refused: a 500) and other scripts' digits."""
    created = new_game(client)
    me = client.get("/api/me", headers=bearer(created["seats"][0]["token"])).json()
    token = created["seats"][me["view"]["to_act"][0]]["token"]  # the seat to move: its page has forms
    opened = client.get(f"/play/{token}")  # on to the page, by the cookie the link left
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', opened.text).group(1)
    length = store.length(created["game_id"])
    for expected in ("²", "٣", "１"):
        answer = client.post(f"{opened.url.path}/move", data={"move": "no such move", "expected_seq": expected, "csrf": csrf}, headers={"Accept": "application/json"})
        assert answer.status_code == 422 and "\n" not in answer.json()["error"], (expected, answer.text)
    assert store.length(created["game_id"]) == length


def test_a_lost_redis_is_a_503_with_one_line(store: Store, caplog):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gone = redis.Redis(port=port, socket_connect_timeout=0.5)
    client = TestClient(create_app(gone, games=Games(Store(gone)), admin_token=ADMIN))
    response = client.get("/api/me", headers=bearer(f"some-game.0.{'a' * 52}"))
    assert response.status_code == 503 and response.headers["retry-after"]
    assert response.json() == {"error": "the service is unavailable for a moment: try again shortly"}
    [line] = [record.getMessage() for record in caplog.records if record.name == "pbm.web"]
    assert line.startswith("cannot reach ") and "\n" not in line  # what failed: for the server's log


def test_the_cli_does_not_load_the_web_stack():
    probe = "import sys, pbm.cli; print(sorted(m for m in ('fastapi', 'uvicorn', 'starlette', 'jinja2') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_redis_refusing_work_is_a_503_and_the_servers_log_names_the_failure(tmp_path, caplog):
    """Out of memory, a read-only replica, a password wanted: a real server set up so each time.
    The caller is told the service is unavailable; the server's log says what failed, in one line."""
    from events.server import EmbeddedRedis
    from pbm.web.errors import UNAVAILABLE

    embedded = EmbeddedRedis(tmp_path / "redis")
    client = embedded.client()
    try:
        body = {"game": "tranquility", "players": 2, "seats": [{"name": "a"}, {"name": "b"}]}

        def refused(expected: str, on: redis.Redis = client) -> None:
            caplog.clear()
            http = TestClient(create_app(on, games=Games(Store(on)), admin_token=ADMIN))
            response = http.post("/api/games", json=body, headers=bearer(ADMIN))
            assert response.status_code == 503, response.text
            assert response.json() == {"error": UNAVAILABLE}
            [line] = [record.getMessage() for record in caplog.records if record.name == "pbm.web"]
            assert expected in line and "\n" not in line

        client.config_set("maxmemory-policy", "noeviction")
        client.config_set("maxmemory", 1)
        refused("out of memory")
        client.config_set("maxmemory", 0)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client.replicaof("127.0.0.1", port)
        refused("read-only replica")
        client.replicaof("NO", "ONE")
        client.config_set("requirepass", "sesame")
        refused("requires a password", on=redis.Redis(unix_socket_path=str(embedded.socket)))
        client.execute_command("AUTH", "sesame")
        client.config_set("requirepass", "")
    finally:
        embedded.stop()


def test_the_move_routes_shortcut_answers_as_the_whole_stack_would(store: Store):
    # pbm/web/app.py's Shortcut sends POST /api/me/moves past FastAPI's stack, straight to its
    # route: the same requests, to two games of one seed, answer alike with it and without it.
    def answers(shortcut: bool) -> list:
        app = create_app(store.redis, games=Games(store), admin_token=ADMIN, moves_per_window=5)
        assert Shortcut in [layer.cls for layer in app.user_middleware]
        if not shortcut:
            app.user_middleware = [layer for layer in app.user_middleware if layer.cls is not Shortcut]
        client = TestClient(app)
        created = new_game(client, seed=11)
        seat, me = first_to_act(client, created)
        token, legal, seq = seat["token"], me["view"]["legal_moves"][0], me["view"]["seq"]
        json_body = {"Content-Type": "application/json"}
        asks = [
            ("POST", "/api/me/moves", {"move": legal, "expected_seq": seq}, bearer(token) | {"Idempotency-Key": "a"}),
            ("POST", "/api/me/moves", {"move": legal, "expected_seq": seq}, bearer(token) | {"Idempotency-Key": "a"}),
            ("POST", "/api/me/moves", {"move": "play 99Xx"}, bearer(token)),
            ("POST", "/api/me/moves", {"move": legal, "expected_seq": seq}, bearer(token)),
            ("POST", "/api/me/moves", b"{", bearer(token) | json_body),
            ("POST", "/api/me/moves", {"move": legal}, bearer(token) | {"Idempotency-Key": "x" * 300}),
            ("POST", "/api/me/moves", {"move": legal}, {}),
            ("POST", "/api/me/moves", b"x" * (MAX_BODY_BYTES + 1), bearer(token) | json_body),
            ("POST", "/api/me/moves", {"move": legal}, bearer(token)),  # the sixth: past the allowance
            ("GET", "/api/me/moves", None, bearer(token)),
            ("POST", "/api/me/moves/", {"move": legal}, bearer(token)),
        ]
        said = []
        for method, path, body, headers in asks:
            content = body if isinstance(body, bytes) else None
            response = client.request(method, path, json=None if content else body, content=content, headers=headers, follow_redirects=False)
            text = response.text.replace(created["game_id"], "GAME")
            said.append((response.status_code, text, response.headers.get("retry-after"), response.headers.get("www-authenticate")))
        return said

    assert answers(shortcut=True) == answers(shortcut=False)


def test_a_seats_export_is_the_operators_file_once_the_game_is_over_and_verifies_anywhere(client: TestClient, store: Store, tmp_path):
    import random

    created = new_game(client, game="tranquility", seats=[{"name": "a"}, {"name": "b"}])
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    running = client.get("/api/me/export", headers=bearer(tokens[1]))
    assert running.status_code == 409 and "once the game is over" in running.json()["error"]
    raised = client.post("/api/me/disputes", json={"seq": 0, "reason": "was this seed drawn fairly?"}, headers=bearer(tokens[0]))
    assert raised.status_code == 201, raised.text
    chooser = random.Random(3)
    table = Games(store).table(game_id)
    while table.to_act:  # moves through the API, chosen from the log's table (reads are limited)
        seat = table.to_act[0]
        played = client.post("/api/me/moves", json={"move": chooser.choice(table.legal_moves(seat))}, headers=bearer(tokens[seat]))
        assert played.status_code == 200, played.text
        table = Games(store).table(game_id)
    mine = client.get("/api/me/export", headers=bearer(tokens[1]))
    operators = client.get(f"/api/games/{game_id}/export", headers=bearer(ADMIN))
    assert mine.status_code == 200 and mine.content == operators.content
    assert mine.headers["content-disposition"] == operators.headers["content-disposition"]
    # Seat 0's dispute, raised while the game ran, is in seat 1's file: the game is over, so every
    # reason may be read (the audit too shows a seat only its own while it runs).
    assert [d.to_json() for d in archive.loads(mine.content).disputes] == [raised.json()["dispute"]]
    assert client.get("/api/me/export", headers=bearer(tokens[1] + "x")).status_code == 401
    # Another machine: a fresh data directory and no Redis it could reach.
    path = tmp_path / "mine.pbmlog"
    path.write_bytes(mine.content)
    env = {"PATH": "/usr/bin:/bin", "PBM_HOME": str(tmp_path / "elsewhere"), "REDIS_URL": "redis://127.0.0.1:1/0"}
    checked = subprocess.run([sys.executable, "-m", "pbm", "replay", "verify", str(path)], env=env, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    assert "verified" in checked.stdout.lower()
    audited = subprocess.run([sys.executable, "-m", "pbm", "replay", "audit", str(path)], env=env, capture_output=True, text=True, timeout=60)
    assert audited.returncode == 0 and "was this seed drawn fairly?" in audited.stdout, audited.stderr
    assert not (tmp_path / "elsewhere").exists()


def test_a_new_game_takes_its_forced_moves_setting(client: TestClient, app):
    store = app.state.pbm.games.store
    asked = new_game(client, forced_moves="ask")
    assert store.forced_moves(asked["game_id"]) == "ask"
    assert store.forced_moves(new_game(client)["game_id"]) == "auto"
    body = {"game": "holly-oak", "players": 3, "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}], "forced_moves": "never"}
    assert client.post("/api/games", json=body, headers=bearer(ADMIN)).status_code == 422
