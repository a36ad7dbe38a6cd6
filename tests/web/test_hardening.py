"""A public deployment's hardening, through the real ASGI app on the real (test) Redis and a real
`pbm serve`: the settings it refuses to start with, links made only from PBM_PUBLIC_URL (or for a
loopback request), the limits on every door, the seat's cookie that takes tokens out of URLs, form
posts that put no secret into a URL, and /docs without a CDN."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from events.commands import Games
from events.limits import Slots
from events.store import Store
from pbm.web import create_app
from pbm.web.limits import Allowance, Limits
from pbm.web.settings import SettingError
from tests.web.conftest import ADMIN, TestClient, bearer, new_game

NEW_GAME = {"game": "holly-oak", "players": 3, "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]}


# ---- settings refused at start ------------------------------------------------------------------


@pytest.mark.parametrize("token", ["short", "x" * 31, " " * 40, "a b" * 20])
def test_a_weak_admin_token_is_refused_in_one_line(store: Store, token: str):
    with pytest.raises(SettingError) as refused:
        create_app(store.redis, games=Games(store), admin_token=token)
    assert "\n" not in str(refused.value.message) and "PBM_ADMIN_TOKEN" in refused.value.message
    assert token.strip() == "" or token not in refused.value.message  # the value itself is never said
    create_app(store.redis, games=Games(store), admin_token="y" * 32)  # 32 will do
    create_app(store.redis, games=Games(store), admin_token="")  # off: the operator's API answers 401


def test_pbm_serve_refuses_a_short_admin_token_before_it_listens(cli_env):
    env = {**os.environ, **cli_env, "PBM_ADMIN_TOKEN": "hunter2-hunter2"}
    served = subprocess.run([sys.executable, "-m", "pbm", "serve", "--port", "0"], env=env, capture_output=True, text=True, timeout=120)
    assert served.returncode == 1 and "pbm serving" not in served.stdout
    said = served.stderr.strip().splitlines()
    assert len(said) == 1 and "PBM_ADMIN_TOKEN must be at least 32" in said[0], served.stderr
    assert "hunter2" not in served.stderr


def test_a_public_url_that_is_not_one_is_refused(store: Store):
    for bad in ("pbm.example.org", "ftp://pbm.example.org", "https://pbm.example.org/?x=1", "https://"):
        with pytest.raises(SettingError):
            create_app(store.redis, games=Games(store), admin_token=ADMIN, public_url=bad)


# ---- links only from PBM_PUBLIC_URL or for a loopback request --------------------------------


def test_links_are_made_from_public_url_whatever_the_host_says(store: Store):
    app = create_app(store.redis, games=Games(store), admin_token=ADMIN, public_url="https://pbm.example.org/")
    with TestClient(app) as client:
        created = client.post("/api/games", json=NEW_GAME, headers=bearer(ADMIN) | {"Host": "evil.example"}).json()
        assert all(seat["url"] == f"https://pbm.example.org/play/{seat['token']}" for seat in created["seats"])


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "[::1]:8123"])
def test_without_public_url_a_loopback_request_gets_links_of_its_own_address(client: TestClient, host: str):
    created = client.post("/api/games", json=NEW_GAME, headers=bearer(ADMIN) | {"Host": host}).json()
    assert created["seats"][0]["url"] == f"http://{host}/play/{created['seats'][0]['token']}"


def test_without_public_url_no_link_is_made_from_a_host_it_does_not_know(client: TestClient, store: Store):
    before = store.redis.zcard("pbm:games")
    evil = bearer(ADMIN) | {"Host": "evil.example"}
    refused = client.post("/api/games", json=NEW_GAME, headers=evil)
    assert refused.status_code == 421 and "PBM_PUBLIC_URL" in refused.json()["error"]
    assert "evil.example/play" not in refused.text and store.redis.zcard("pbm:games") == before  # no game made
    created = new_game(client)
    token = created["seats"][1]["token"]
    again = client.post(f"/api/games/{created['game_id']}/seats/1/token", headers=evil)
    assert again.status_code == 421
    assert client.get("/api/me", headers=bearer(token)).status_code == 200  # the old link still works


# ---- /docs without a CDN ------------------------------------------------------------------------


def test_docs_are_drawn_here_with_no_script_and_both_send_a_csp(client: TestClient):
    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and spec.json()["info"]["title"] == "pbm"
    assert "default-src 'none'" in spec.headers["content-security-policy"]
    page = client.get("/docs")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp and "unsafe-inline" not in csp
    assert "<script" not in page.text and "http://" not in page.text and "https://" not in page.text  # nothing from elsewhere
    for path, item in spec.json()["paths"].items():
        for method in item:
            assert f"<code>{method.upper()} {path}</code>" in page.text
    assert 'id="schema-NewGame"' in page.text and "string (1 to 200 characters)" in page.text
    assert client.get("/redoc").status_code == 404  # FastAPI's CDN pages are off
    stylesheet = re.search(r'href="(/static/pbm/[0-9a-f]+/page.css)"', page.text).group(1)
    assert client.get(stylesheet).status_code == 200


# ---- the seat's cookie: tokens leave URL paths after the link is opened -------------------------


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)


def seq_of(page: str) -> str:
    return re.search(r'name="expected_seq" value="([0-9]+)"', page).group(1)


def test_a_link_leaves_its_token_in_the_seats_cookie_and_redirects_to_a_url_without_it(client: TestClient):
    created = new_game(client)
    game_id, seat = created["game_id"], created["seats"][1]
    here = f"/play/g/{game_id}/1"
    opened = client.get(f"/play/{seat['token']}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == here
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith(f"pbm_seat={seat['token']};")
    said = {part.strip().lower() for part in cookie.split(";")}
    assert {"httponly", "samesite=lax", f"path={here}", "max-age=2592000"} <= said and "secure" not in said  # http://127.0.0.1
    page = client.get(here)
    assert page.status_code == 200 and "you are Bob (seat 1)" in page.text
    assert seat["token"] not in page.text and seat["token"].rsplit(".", 1)[1] not in page.text  # forms, stream, script
    assert f'data-events="{here}/events"' in page.text
    assert client.get(f"/play/{seat['token'].upper()}").url.path == here  # a link as a mail system may write it
    # Without the cookie (another browser), or with another seat's, the page does not open.
    with TestClient(client.app) as stranger:
        refused = stranger.get(here)
        assert refused.status_code == 401 and "open the link in your invitation" in refused.text
        stranger.cookies.set("pbm_seat", created["seats"][0]["token"], domain="127.0.0.1", path=here)
        assert stranger.get(here).status_code == 401
    # A page drawn before seats had cookies posted to /play/<token>/move: taken as its link.
    old = client.post(f"/play/{seat['token']}/move", data={"move": "play 1Sp"}, follow_redirects=False)
    assert old.status_code == 303 and old.headers["location"] == here


def test_https_makes_the_cookie_secure(store: Store):
    app = create_app(store.redis, games=Games(store), admin_token=ADMIN, public_url="https://pbm.example.org")
    with TestClient(app) as client:
        token = new_game(client)["seats"][0]["token"]
        opened = client.get(f"/play/{token}", follow_redirects=False)
        assert "secure" in {part.strip().lower() for part in opened.headers["set-cookie"].split(";")}


def test_one_browser_holds_seats_of_several_games_each_on_its_own_page(client: TestClient):
    first, second = new_game(client), new_game(client, game="tranquility", seats=[{"name": "Dee"}, {"name": "Eve"}])
    for created in (first, second):
        for seat in created["seats"]:
            client.get(f"/play/{seat['token']}")  # one cookie jar: one browser
    for created in (first, second):
        for seat in created["seats"]:
            page = client.get(f"/play/g/{created['game_id']}/{seat['seat']}")
            assert page.status_code == 200 and f"you are {seat['name']} (seat {seat['seat']})" in page.text
    assert len(client.cookies.jar) == 10  # two per seat (its page, its replay), each sent to its own pages only


def test_a_form_from_another_site_plays_nothing(client: TestClient, store: Store):
    created = new_game(client, forced_moves="ask")
    seat = next(s for s in created["seats"] if client.get("/api/me", headers=bearer(s["token"])).json()["view"]["legal_moves"])
    here = client.get(f"/play/{seat['token']}").url.path
    drawn = client.get(here).text
    form = {"move": "play 1Sp", "csrf": csrf_of(drawn), "expected_seq": seq_of(drawn)}
    length = store.length(created["game_id"])
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "http://127.0.0.1.evil.example"}):
        forged = client.post(f"{here}/move", data=form, headers=headers | {"Accept": "application/json"})
        assert forged.status_code == 403 and "your own page" in forged.json()["error"], headers
    without = client.post(f"{here}/move", data=form | {"csrf": ""}, headers={"Accept": "application/json"})
    assert without.status_code == 403
    assert store.length(created["game_id"]) == length
    # The page's own post: same origin, or `null` (its Referrer-Policy makes browsers send that).
    played = client.post(f"{here}/move", data=form, headers={"Origin": "null", "Sec-Fetch-Site": "same-origin", "Accept": "application/json"})
    assert played.status_code == 200, played.text


# ---- no secret in a URL: a form post's outcome waits in a note --------------------------------


def test_a_form_post_without_javascript_puts_neither_the_move_nor_its_refusal_into_a_url(client: TestClient, store: Store):
    created = new_game(client, forced_moves="ask")
    seat = next(s for s in created["seats"] if client.get("/api/me", headers=bearer(s["token"])).json()["view"]["legal_moves"])
    hand = client.get("/api/me", headers=bearer(seat["token"])).json()["view"]["hand"]
    here = client.get(f"/play/{seat['token']}").url.path
    drawn = client.get(here).text
    csrf, seq = csrf_of(drawn), seq_of(drawn)
    hidden = next(card for card in hand if card != "1Sp")  # one of the seat's own cards: not to be led
    refused = client.post(f"{here}/move", data={"move": f"play {hidden}", "csrf": csrf, "expected_seq": seq}, follow_redirects=False)
    location = refused.headers["location"]
    assert refused.status_code == 303 and re.fullmatch(rf"{here}\?note=[A-Za-z0-9_-]{{16}}#refusal", location), location
    shown = client.get(location).text
    assert f"Not played: <code>play {hidden}</code>" in shown
    assert "Not played" not in client.get(location).text  # read once: a reload draws the table as it is
    played = client.post(f"{here}/move", data={"move": "play 1Sp", "csrf": csrf, "expected_seq": seq}, follow_redirects=False)
    assert played.status_code == 303 and "1Sp" not in played.headers["location"]
    note = played.headers["location"].split("note=")[1]
    other = next(s for s in created["seats"] if s["seat"] != seat["seat"])
    there = client.get(f"/play/{other['token']}").url.path
    assert "You played" not in client.get(f"{there}?note={note}").text  # another seat cannot read it
    assert "You played 1Sp." in client.get(played.headers["location"]).text
    assert not list(store.redis.scan_iter(match=f"pbm:{{{created['game_id']}}}:note:*"))  # read, and gone


# ---- limits on every door -------------------------------------------------------------------------


def limited(store: Store, **given) -> TestClient:
    return TestClient(create_app(store.redis, games=Games(store), admin_token=ADMIN, limits=Limits(**given)))


def test_a_seats_reads_are_limited_per_token_with_the_move_allowances_answer(store: Store):
    client = limited(store, reads=Allowance(3, 600))
    token = new_game(client)["seats"][0]["token"]
    assert [client.get("/api/me", headers=bearer(token)).status_code for _ in range(3)] == [200] * 3
    over = client.get("/api/me/log", headers=bearer(token))
    assert over.status_code == 429 and over.headers["Retry-After"] == "600"
    assert over.json()["error"] == "too many requests: at most 3 every 600 s per seat"
    assert client.get(f"/play/{token}").status_code == 429  # the link and the page count too
    other = new_game(client)["seats"][0]["token"]
    assert client.get("/api/me", headers=bearer(other)).status_code == 200  # per seat


def test_a_client_address_is_limited_on_every_door_but_the_api_moves(store: Store):
    client = limited(store, address=Allowance(6, 600))
    created = new_game(client, forced_moves="ask")
    seat = next(s for s in created["seats"] if client.get("/api/me", headers=bearer(s["token"])).json()["view"]["legal_moves"])
    while client.get("/openapi.json").status_code == 200:
        pass
    refused = client.get("/api/me", headers=bearer(seat["token"]))
    assert refused.status_code == 429 and refused.json()["error"] == "too many requests: at most 6 every 600 s per client address"
    assert client.get("/docs").status_code == 429 and client.get(f"/api/games/{created['game_id']}", headers=bearer(ADMIN)).status_code == 429
    assert client.post("/api/me/moves", json={"move": "play 1Sp"}, headers=bearer(seat["token"])).status_code == 200
    with TestClient(client.app) as elsewhere:  # another address
        assert elsewhere.get("/api/me", headers=bearer(seat["token"])).status_code == 200


def test_wrong_admin_tokens_are_throttled_per_address_across_replicas(store: Store):
    first = limited(store, wrong_tokens=Allowance(4, 600))
    wrong = bearer("w" * 40)
    assert [first.get("/api/games", headers=wrong).status_code for _ in range(5)] == [401] * 5
    refused = first.get("/api/games", headers=bearer(ADMIN))  # even the right one: a guess learns nothing
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 600
    assert "wrong tokens" in refused.json()["error"]
    assert first.get("/api/me", headers=bearer("nope")).status_code == 429  # every door, from there
    # A second replica on the same Redis, the same address: one more wrong guess, then refused.
    second = TestClient(create_app(store.redis, games=Games(store), admin_token=ADMIN, limits=Limits(wrong_tokens=Allowance(4, 600))), client=first.address)
    assert second.get("/api/games", headers=wrong).status_code == 401
    assert second.get("/api/games", headers=bearer(ADMIN)).status_code == 429
    with TestClient(first.app) as elsewhere:
        assert elsewhere.get("/api/games", headers=bearer(ADMIN)).status_code == 200


def test_headers_over_the_limit_are_refused_431(client: TestClient):
    refused = client.get("/api/me", headers={"X-Padding": "a" * 9000})
    assert refused.status_code == 431 and refused.json()["error"] == "request headers over 8192 bytes"
    assert client.get("/openapi.json", headers={"X-Padding": "a" * 1000}).status_code == 200


def test_a_stream_slot_frees_itself_when_its_server_died(store: Store):
    slots = Slots(store.redis, lease_s=1)
    key = "pbm:{test-slots}:streams:0"
    held = [slots.take(key, 2), slots.take(key, 2)]
    assert all(held) and slots.take(key, 2) is None
    slots.give_back(key, held[0])
    assert slots.take(key, 2) is not None
    time.sleep(1.1)  # nobody renewed: their server is gone
    assert not slots.renew(key, held[1]) and slots.take(key, 2) is not None
