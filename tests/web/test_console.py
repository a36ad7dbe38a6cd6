"""The operator's console (/admin, pbm/web/console.py) through the real app over the test Redis:
sign-in and out, a session's expiry, CSRF and cross-site refusals, wrong tokens throttled as the
API's are, and each action through the console compared with the same through the API."""

from __future__ import annotations

import json
import re
import secrets
import time
import uuid
from html import unescape

import pytest

from events import keys
from pbm.web import console_session
from replays.log import from_store
from tests.web.conftest import ADMIN, TestClient, bearer, finish, new_game

CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


def signed_in(client: TestClient) -> str:
    """Signs `client` in; the console's CSRF token."""
    answer = client.post("/admin/sign-in", data={"token": ADMIN})
    assert answer.status_code == 200 and "Sign out" in answer.text, answer.text
    return CSRF.search(answer.text).group(1)


def post(client: TestClient, path: str, csrf: str, **fields):
    return client.post(path, data={"csrf": csrf, **fields}, follow_redirects=False)


@pytest.fixture
def console(app):
    with TestClient(app) as client:
        client.csrf = signed_in(client)
        yield client


def test_sign_in_gives_a_strict_httponly_cookie_and_sign_out_ends_the_session(app, store) -> None:
    with TestClient(app) as client:
        assert "Sign in" in client.get("/admin").text
        answer = client.post("/admin/sign-in", data={"token": ADMIN}, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/admin"
        cookie = answer.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/admin" in cookie and "Max-Age=43200" in cookie
        assert "Secure" not in cookie  # plain http on loopback; over https it is (below)
        session_id = client.cookies.get(console_session.NAME)
        assert ADMIN not in cookie and session_id not in str(store.redis.keys("pbm:console:*"))  # only its hash is kept
        page = client.get("/admin")
        assert "Sign out" in page.text and page.headers["cache-control"] == "no-store"
        csrf = CSRF.search(page.text).group(1)
        out = post(client, "/admin/sign-out", csrf)
        assert out.status_code == 303 and console_session.NAME in out.headers["set-cookie"]
        # The session is gone from Redis: the old cookie opens nothing, even if a browser kept it.
        client.cookies.set(console_session.NAME, session_id, path="/admin")
        assert "Sign in" in client.get("/admin").text
        assert post(client, "/admin/sign-out", csrf).status_code == 401
    with TestClient(app, base_url="https://127.0.0.1") as client:
        answer = client.post("/admin/sign-in", data={"token": ADMIN}, follow_redirects=False)
        assert "Secure" in answer.headers["set-cookie"]


def test_a_session_expires(app, monkeypatch) -> None:
    monkeypatch.setattr(console_session, "MAX_AGE_S", 1)
    with TestClient(app) as client:
        signed_in(client)
        time.sleep(1.2)
        assert "Sign in" in client.get("/admin").text  # Redis let the session go


def test_a_wrong_token_is_refused_and_throttled_like_the_api(app) -> None:
    # An address of its own in this run: the test Redis keeps the count for a minute, and the
    # numbered addresses of the other tests come round again in the next run.
    address = f"2001:db8:{secrets.randbits(16):x}:{secrets.randbits(16):x}::1"
    with TestClient(app, client=(address, 50000)) as client:
        for _ in range(21):  # Limits.wrong_tokens: 20 a minute per address; the 21st blocks it
            answer = client.post("/admin/sign-in", data={"token": "x" * 40})
            assert answer.status_code == 401 and "not the operator's token" in unescape(answer.text)
        assert client.post("/admin/sign-in", data={"token": ADMIN}).status_code == 429  # even the right one now
        assert client.get("/api/games", headers=bearer(ADMIN)).status_code == 429  # one count for both doors


def test_a_form_without_the_csrf_token_or_from_another_site_changes_nothing(console, client) -> None:
    game = new_game(client, deadline="48h")
    path = f"/admin/games/{game['game_id']}/clock"
    assert post(console, path, "0" * 64, action="pause").status_code == 403
    assert console.post(path, data={"action": "pause"}, follow_redirects=False).status_code == 403
    cross = console.post(path, data={"csrf": console.csrf, "action": "pause"}, headers={"Origin": "https://evil.example"}, follow_redirects=False)
    assert cross.status_code == 403
    sites = console.post(path, data={"csrf": console.csrf, "action": "pause"}, headers={"Sec-Fetch-Site": "cross-site"}, follow_redirects=False)
    assert sites.status_code == 403
    assert client.get(f"/api/games/{game['game_id']}", headers=bearer(ADMIN)).json()["clock"]["paused"] is False
    assert post(console, path, console.csrf, action="pause").status_code == 303


def api_game(client: TestClient, game_id: str) -> dict:
    found = client.get(f"/api/games/{game_id}", headers=bearer(ADMIN)).json()
    return {key: found[key] for key in ("players", "seats", "waiting_for_players", "waiting_for", "seq", "view")} | {
        "clock": found["clock"] and {k: found["clock"][k] for k in ("paused", "deadline", "turn")}
    }


def created_id(answer) -> str:
    return re.search(r"<h1>Created <a href=\"/admin/games/([^\"]+)\"", answer.text).group(1)


def test_creating_a_game_in_the_console_is_creating_it_through_the_api(console, client) -> None:
    address = f"ann-{uuid.uuid4().hex[:8]}@example.org"  # people are not a game's: another test's Ann may hold ann@
    person = client.post("/api/people", json={"name": "Ann", "email": address}, headers=bearer(ADMIN)).json()
    form = {
        "game": "holly-oak", "players": "3", "kind0": "email", "name0": "Bea", "email0": "bea@example.org",
        "kind1": "person", "person1": person["id"], "kind2": "bot", "bot2": "heuristic", "name2": "Robo",
        "forced_moves": "ask", "deadline": "48h", "seed": "7",
    }
    answer = console.post("/admin/new", data={"csrf": console.csrf, **form})
    assert answer.status_code == 201, answer.text
    assert answer.text.count('href="http://127.0.0.1/play/') == 2 and "/me/" in answer.text and answer.headers["cache-control"] == "no-store"
    by_console = created_id(answer)
    by_api = new_game(client, seats=[{"name": "Bea", "email": "bea@example.org"}, {"person": person["id"]}, {"bot": "heuristic", "name": "Robo"}],
                      forced_moves="ask", deadline="48h", seed=7, late_salts=False)["game_id"]
    assert api_game(client, by_console) == api_game(client, by_api)
    assert "Robo" in console.get(f"/admin/games/{by_console}").text


def test_bad_input_is_one_line_in_the_form_and_nothing_is_made(console, client) -> None:
    before = len(client.get("/api/games", headers=bearer(ADMIN)).json()["games"])
    form = {"csrf": console.csrf, "game": "holly-oak", "players": "3", "kind0": "email", "name0": "Bea", "email0": "not-an-address", "kind1": "open", "kind2": "bot", "bot2": "heuristic"}
    answer = console.post("/admin/new", data=form)
    assert answer.status_code == 422 and 'class="refusal"' in answer.text and "Not created:" in answer.text
    assert 'value="not-an-address"' in answer.text  # the form comes back as it was filled
    late = console.post("/admin/new", data=form | {"email0": "bea@example.org", "deadline": "soon"})
    assert late.status_code == 422 and "Not created:" in late.text
    assert len(client.get("/api/games", headers=bearer(ADMIN)).json()["games"]) == before


def test_open_seats_are_listed_as_waiting_for_players_and_the_join_link_is_revoked(console, client) -> None:
    form = {"csrf": console.csrf, "game": "holly-oak", "players": "3", "kind0": "name", "name0": "Bea", "kind1": "open", "kind2": "bot", "bot2": "random", "name2": "Rand", "deadline": "48h"}
    answer = console.post("/admin/new", data=form)
    assert answer.status_code == 201 and "/join/" in answer.text
    game_id = created_id(answer)
    listing = console.get("/admin").text
    waiting = listing[listing.index("Waiting for players ("):listing.index("Running (")]
    assert game_id in waiting and "open seat 1" in waiting
    join_url = re.search(r"(http://127\.0\.0\.1/join/[0-9a-z]+)", answer.text).group(1)
    assert post(console, f"/admin/games/{game_id}/join-link", console.csrf, revoke="1").status_code == 303
    assert client.get(join_url.removeprefix("http://127.0.0.1")).status_code == 404
    shown = post(console, f"/admin/games/{game_id}/join-link", console.csrf)
    assert shown.status_code == 200 and "/join/" in shown.text  # anew, once, in the POST's answer


def test_seats_and_clock_through_the_console_are_as_through_the_api(console, client) -> None:
    # Asked, not played for them: a forced move counts a turn, and random deals force different many.
    games = [new_game(client, deadline="48h", forced_moves="ask")["game_id"] for _ in range(2)]
    by_console, by_api = games
    page = f"/admin/games/{by_console}"
    # A seat neither game waits on: a bot on move would play, on its worker's time, and the two
    # games' turns would differ by when it did (a deal is random, so who leads is too).
    waited_on = {entry["seat"] for game_id in games for entry in api_game(client, game_id)["waiting_for"]}
    seat = min({0, 1, 2} - waited_on)
    assert post(console, f"{page}/seats/{seat}/hand", console.csrf, bot="heuristic").headers["location"] == f"{page}?done=to-bot"
    client.put(f"/api/games/{by_api}/seats/{seat}", json={"bot": "heuristic"}, headers=bearer(ADMIN))
    assert api_game(client, by_console)["seats"] == api_game(client, by_api)["seats"]
    assert "The seat is a bot's now." in unescape(console.get(f"{page}?done=to-bot").text)
    assert post(console, f"{page}/seats/{seat}/hand", console.csrf, bot="").status_code == 303
    client.put(f"/api/games/{by_api}/seats/{seat}", json={"bot": None}, headers=bearer(ADMIN))
    assert api_game(client, by_console)["seats"] == api_game(client, by_api)["seats"]
    again = post(console, f"{page}/seats/{seat}/hand", console.csrf, bot="")
    assert again.status_code == 422 and "a person's already" in unescape(again.text)
    for action in ("pause", "resume"):
        assert post(console, f"{page}/clock", console.csrf, action=action).status_code == 303
        client.post(f"/api/games/{by_api}/clock", json={"action": action}, headers=bearer(ADMIN))
        assert api_game(client, by_console)["clock"] == api_game(client, by_api)["clock"]
    assert post(console, f"{page}/clock", console.csrf, action="extend", by="12h").status_code == 303
    bad = post(console, f"{page}/clock", console.csrf, action="extend", by="forever")
    assert bad.status_code == 422 and "Not done:" in bad.text
    reinvited = post(console, f"{page}/seats/0/reinvite", console.csrf)
    token = re.search(r"/play/([0-9a-z.:_-]+)\"", reinvited.text).group(1)
    assert reinvited.status_code == 200 and client.get(f"/api/me", headers=bearer(token)).status_code == 200


def test_export_verify_and_delete_are_the_apis_and_the_clis(console, client) -> None:
    game_id = new_game(client)["game_id"]
    page = f"/admin/games/{game_id}"
    assert console.get(f"{page}/export").content == client.get(f"/api/games/{game_id}/export", headers=bearer(ADMIN)).content
    report = client.get(f"/api/games/{game_id}/verify", headers=bearer(ADMIN)).json()
    shown = console.get(f"{page}/verify").text
    assert ("ok" if report["ok"] else "FAILED") in shown and all(f["text"] in unescape(shown) for f in report["findings"])
    running = post(console, f"{page}/delete", console.csrf, confirm=game_id)
    assert running.status_code == 422 and "still running" in running.text
    assert post(console, f"{page}/delete", console.csrf, confirm="another").status_code == 422
    assert post(console, f"{page}/delete", console.csrf, confirm=game_id, force="on").headers["location"] == "/admin?done=deleted"
    assert client.get(f"/api/games/{game_id}", headers=bearer(ADMIN)).status_code == 404
    assert console.get(page).status_code == 404


def test_people_through_the_console_are_as_through_the_api(console, client) -> None:
    added = post(console, "/admin/people", console.csrf, name="Cy", email="cy@example.org", tz="Europe/Berlin")
    assert added.status_code == 201 and "/me/" in added.text
    person_id = re.search(r"<code>(p-[0-9a-f]{12})</code>", added.text).group(1)
    assert post(console, f"/admin/people/{person_id}", console.csrf, name="Cyd", email="", tz="UTC").status_code == 303
    assert client.get(f"/api/people/{person_id}", headers=bearer(ADMIN)).json()["person"] == {"id": person_id, "name": "Cyd", "email": None, "tz": "UTC"}
    bad = post(console, f"/admin/people/{person_id}", console.csrf, name="Cyd", email="nope", tz="")
    assert bad.status_code == 422 and "Not done:" in bad.text
    assert post(console, f"/admin/people/{person_id}/erase", console.csrf).status_code == 303
    assert client.get(f"/api/people/{person_id}", headers=bearer(ADMIN)).status_code == 404


def test_a_persons_new_link_from_the_console_replaces_the_old_one(console, client) -> None:
    person = client.post("/api/people", json={"name": "Dee"}, headers=bearer(ADMIN)).json()
    old = person["token"]
    assert client.get("/api/people/me", headers=bearer(old)).status_code == 200
    refused = post(console, f"/admin/people/{person['id']}/link", "0" * 64)  # no session CSRF: nothing changes
    assert refused.status_code == 403 and client.get("/api/people/me", headers=bearer(old)).status_code == 200
    answer = post(console, f"/admin/people/{person['id']}/link", console.csrf)
    assert answer.status_code == 200 and "Dee's new link" in unescape(answer.text)
    fresh = re.search(r"http://127\.0\.0\.1/me/(p-[0-9a-f]{12}\.[a-z2-7]+)", answer.text).group(1)
    assert fresh != old
    assert client.get("/api/people/me", headers=bearer(old)).status_code == 401
    assert client.get("/api/people/me", headers=bearer(fresh)).json()["person"]["id"] == person["id"]
    gone = post(console, "/admin/people/p-000000000000/link", console.csrf)
    assert gone.status_code == 422 and "no person 'p-000000000000'" in unescape(gone.text)


# A seat's replay in the console (/admin/games/{game}/review/{seat}: pbm/web/review.py's page).

VIEW_JSON = re.compile(r'<pre id="view-json">(.*?)</pre>', re.S)
LINE = re.compile(r'<p class="line"><mark>(.*?)</mark>', re.S)
CLOCK_ROWS = re.compile(r'<table class="clock-turns">.*?<tbody>(.*?)</tbody>', re.S)


def shown(page) -> tuple[dict, str]:
    """The view and the story line a replay page shows."""
    return json.loads(unescape(VIEW_JSON.search(page.text).group(1))), unescape(LINE.search(page.text).group(1))


def played(client: TestClient, moves: int) -> tuple[dict, str]:
    """A game with a clock, `moves` first legal moves into it; its creation and its console path."""
    created = new_game(client, deadline="1h", forced_moves="ask")
    games = client.app.state.pbm.games
    for _ in range(moves):
        table = games.table(created["game_id"])
        games.submit(created["game_id"], table.to_act[0], table.legal_moves(table.to_act[0])[0])
    return created, f"/admin/games/{created['game_id']}"


def test_the_console_shows_a_running_games_step_as_the_seat_sees_it_with_the_clock(console, client) -> None:
    created, page = played(client, 5)
    assert f'href="{page}/review/1"' in console.get(page).text  # the game's page links each seat's replay
    opened = client.get(f"/review/{created['seats'][1]['token']}", follow_redirects=False)
    seats_own = opened.headers["location"]
    for seq in (0, 3, 5):
        by_console = console.get(f"{page}/review/1?seq={seq}")
        assert by_console.status_code == 200, by_console.text
        assert shown(by_console) == shown(client.get(f"{seats_own}?seq={seq}"))  # the same view, the same line
        assert shown(by_console)[0]["seat"] == 1
    text = unescape(by_console.text)
    assert "The clock (as the audit tells it)" in text and "1h a move" in text
    rows = CLOCK_ROWS.search(by_console.text).group(1).count("<tr>")
    assert rows == 5 and text.count("<td>in time</td>") == 5  # a row a person's move, each in time
    assert "The whole state at this step" not in text and "Raise a dispute" not in text
    assert all(seat["token"] not in by_console.text for seat in created["seats"])
    other = console.get(f"{page}/review/1?as=0")
    assert other.status_code == 403 and "only once the game is over" in unescape(other.text)


def test_the_console_shows_any_seats_view_and_the_whole_state_once_over(console, client) -> None:
    created, page = played(client, 0)
    finish(client.app.state.pbm.games, created["game_id"])
    log = from_store(client.app.state.pbm.games.store, created["game_id"])
    answer = console.get(f"{page}/review/0?seq=5&as=2")
    assert answer.status_code == 200
    assert shown(answer)[0] == json.loads(json.dumps(log.table(5).view(2)))
    text = unescape(answer.text)
    assert "The whole state at this step" in text and f'href="{page}/export"' in text and "The clock (as the audit tells it)" in text


@pytest.mark.parametrize("seat, status, said", [("3", 404, "no seat 3: this table has seats 0 to 2"), ("x", 422, "no seat 'x'")])
def test_a_seat_out_of_range_is_one_line(console, client, seat: str, status: int, said: str) -> None:
    _created, page = played(client, 0)
    answer = console.get(f"{page}/review/{seat}")
    assert answer.status_code == status and said in unescape(answer.text) and "view-json" not in answer.text
    assert console.get("/admin/games/no-such-game/review/0").status_code == 404
    assert console.get(f"{page}/review/0?seq=999").status_code == 400


def test_without_a_session_the_console_replay_is_the_sign_in_page(client) -> None:
    _created, page = played(client, 2)
    answer = client.get(f"{page}/review/0")
    assert "Sign in" in answer.text and "view-json" not in answer.text
