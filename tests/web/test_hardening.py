"""A public deployment's hardening, through the real ASGI app on the real (test) Redis and a real
`pbm serve`: the settings it refuses to start with, links made only from PBM_PUBLIC_URL (or for a
loopback request), the limits on every door, the seat's cookie that takes tokens out of URLs, form
posts that put no secret into a URL, and /docs without a CDN."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from events.commands import Games
from events.store import Store
from pbm.web import create_app
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
