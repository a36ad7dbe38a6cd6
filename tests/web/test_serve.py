"""`pbm serve` as a real process on a free port: it prints its URL, answers the API, and its log
lines never show a seat's token."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from urllib.parse import quote

import httpx2 as httpx
import pytest

from bench import serving
from tests.web.conftest import ADMIN, bearer


def serving_with(cli_env: dict[str, str], **settings: str) -> Iterator[tuple[str, subprocess.Popen]]:
    env = {**os.environ, **cli_env, "PBM_ADMIN_TOKEN": ADMIN, "PYTHONUNBUFFERED": "1", **settings}
    process, url = serving.start(env)  # both its outputs through pipes: the test reads its log
    try:
        assert url.startswith("http://127.0.0.1:"), url
        yield url, process
    finally:
        serving.stop(process)


def forget_loopback(redis_client) -> None:
    """Their tests spend 127.0.0.1's wrong tokens (the capped one on purpose, the look-alike one
    three): every other test's server on this Redis is reached from that address too, and would
    find them spent for the minute (test_proxy.py's count of wrong tokens did)."""
    for name in redis_client.scan_iter(match="*addr:127.0.0.1}:rate:*", count=1000):
        redis_client.delete(name)


@pytest.fixture
def served(cli_env, redis_client) -> Iterator[tuple[str, subprocess.Popen]]:
    try:
        yield from serving_with(cli_env)
    finally:
        forget_loopback(redis_client)


def test_pbm_serve_answers_and_never_logs_a_token(served):
    url, process = served
    with httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/openapi.json").json()["info"]["title"] == "pbm"
        body = {"game": "tranquility", "players": 2, "seats": [{"name": "Ann"}, {"name": "Bob", "bot": "random"}], "late_salts": False}
        created = http.post("/api/games", json=body, headers=bearer(ADMIN)).json()
        token = created["seats"][0]["token"]
        assert created["seats"][0]["url"] == f"{url}/play/{token}"
        assert http.get("/api/me", headers=bearer(token)).status_code == 200
        http.get(f"/play/{token}")  # the page's path carries the token
        http.get(f"/play/{token.upper()}")
    process.terminate()
    out, err = process.communicate(timeout=30)
    logged = (out + err).lower()
    assert "get /api/me" in logged  # the access log is on
    assert f"/play/{created['game_id']}.0.<token>" in logged  # the game and seat stay readable
    assert token not in logged and token.rsplit(".", 1)[1] not in logged


@pytest.fixture
def served_capped(cli_env, redis_client) -> Iterator[tuple[str, subprocess.Popen]]:
    try:
        yield from serving_with(cli_env, PBM_STREAMS_PER_SEAT="2")
    finally:
        forget_loopback(redis_client)


def test_pbm_serve_keeps_tokens_and_moves_out_of_urls_and_limits_its_doors(served_capped):
    url, process = served_capped
    with httpx.Client(base_url=url, timeout=30) as http:
        body = {"game": "holly-oak", "players": 3, "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], "forced_moves": "ask", "late_salts": False}
        created = http.post("/api/games", json=body, headers=bearer(ADMIN)).json()
        seat = next(s for s in created["seats"] if http.get("/api/me", headers=bearer(s["token"])).json()["view"]["legal_moves"])
        hand = http.get("/api/me", headers=bearer(seat["token"])).json()["view"]["hand"]
        opened = http.get(f"/play/{seat['token']}", follow_redirects=False)  # the link, as a mail carries it
        here = opened.headers["location"]
        assert opened.status_code == 303 and seat["token"] not in here
        page = http.get(here).text  # by the cookie the link left
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
        seq = re.search(r'name="expected_seq" value="([0-9]+)"', page).group(1)
        hidden = next(card for card in hand if card != "1Sp")
        refused = http.post(f"{here}/move", data={"move": f"play {hidden}", "csrf": csrf, "expected_seq": seq}, follow_redirects=False)
        assert refused.status_code == 303 and hidden not in refused.headers["location"]
        assert f"play {hidden}" in http.get(refused.headers["location"]).text
        played = http.post(f"{here}/move", data={"move": "play 1Sp", "csrf": csrf, "expected_seq": seq}, follow_redirects=True)
        assert "You played 1Sp." in played.text
        # At most two event streams of one seat at once; a closed one frees its slot.
        with http.stream("GET", f"{here}/events") as one, http.stream("GET", f"{here}/events") as two:
            assert one.status_code == two.status_code == 200
            third = http.get(f"{here}/events")
            assert third.status_code == 429 and "at most 2 at once" in third.json()["error"]
        deadline = time.monotonic() + 10
        while True:  # the server sees the two go within a poll (a second)
            with http.stream("GET", f"{here}/events") as again:
                if again.status_code == 200:
                    break
            assert time.monotonic() < deadline, "a closed stream kept its slot"
            time.sleep(0.2)
        assert http.get("/api/me", headers={"X-Padding": "a" * 9000}).status_code == 431
        # Wrong admin tokens from one address: answered 401 twenty times a minute, then 429 for all.
        said = [http.get("/api/games", headers=bearer("w" * 40)).status_code for _ in range(25)]
        assert said[:20] == [401] * 20 and said[-1] == 429
        assert http.get("/api/games", headers=bearer(ADMIN)).status_code == 429
    process.terminate()
    out, err = process.communicate(timeout=30)
    logged = (out + err).lower()
    assert re.search(r"/play/[a-z0-9-]+\.[0-9]+\.<token>", logged) and f"{here} http/1.1" in logged  # the link's secret hidden, the page's path as it is
    assert seat["token"] not in logged and seat["token"].rsplit(".", 1)[1] not in logged
    assert hidden.lower() not in logged and "1sp" not in logged and "refused" not in logged and "played" not in logged


def test_serve_says_what_it_serves_and_warns_when_the_operators_api_is_off() -> None:
    from pbm.cli.serve import serving_lines

    on = serving_lines("http://h:1", operator_on=True)
    assert any("/play/<seat token>" in line for line in on) and any("/api/me" in line for line in on)
    assert any("/admin" in line for line in on) and not any(line.startswith("warning") for line in on)
    off = serving_lines("http://h:1", operator_on=False)
    assert off[-1].startswith("warning: PBM_ADMIN_TOKEN is not set")


def test_pbm_serve_without_an_admin_token_warns_on_start(cli_env) -> None:
    env = {key: value for key, value in {**os.environ, **cli_env, "PYTHONUNBUFFERED": "1"}.items() if key != "PBM_ADMIN_TOKEN"}
    process = subprocess.Popen([sys.executable, "-m", "pbm", "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().startswith("pbm serving on http://")
        assert "PBM_ADMIN_TOKEN is not set" in process.stderr.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_look_alike_token_is_refused_and_no_form_of_a_secret_reaches_the_log(served):
    """A token is ASCII: with the Kelvin sign (U+212A) for a 'k' of its secret it was accepted, as
    str.lower() reads it as 'k'. Refused now (401), and logged by game and seat only; and the log
    hides the secret in every form the server reads a token in: either case, percent-encoded, or
    as the look-alike (raw or percent-encoded), in a path or a query."""
    url, process = served
    with httpx.Client(base_url=url, timeout=30) as http:
        body = {"game": "tranquility", "players": 2, "seats": [{"name": "Ann"}, {"name": "Bob"}]}
        created = http.post("/api/games", json=body, headers=bearer(ADMIN)).json()
        game_id = created["game_id"]
        token = created["seats"][1]["token"]
        while "k" not in token.rsplit(".", 1)[1]:  # a secret with a 'k' to stand in for
            token = http.post(f"/api/games/{game_id}/seats/1/token", headers=bearer(ADMIN)).json()["token"]
        head, _, secret = token.rpartition(".")
        near = head + "." + secret.replace("k", "\u212a", 1)
        encoded = "".join(f"%{ord(char):02X}" for char in token)
        assert http.get(f"/play/{quote(near)}").status_code == 401
        assert http.get("/api/me", headers={"Authorization": b"Bearer " + near.encode()}).status_code == 401
        assert http.post("/api/me/moves", json={"move": "discard"}, headers={"Authorization": b"Bearer " + near.encode()}).status_code == 401
        assert http.get(f"/play/{token.upper()}").status_code == 303  # ASCII case does not matter: on to the page
        assert http.get(f"/play/{encoded}").status_code == 303  # the path, as the server decodes it
        http.get(f"/api/games/{game_id}/public?link={encoded}&near={quote(near)}")  # a query is logged as sent
    process.terminate()
    out, err = process.communicate(timeout=30)
    logged = out + err
    assert f"refused a seat token for game {game_id}, seat 1: not ASCII" in logged
    for shown in (secret, secret.upper(), quote(near.rsplit(".", 1)[1]), near.rsplit(".", 1)[1]):
        for start in range(0, len(shown) - 12, 4):
            assert shown[start : start + 12] not in logged, shown[start : start + 12]
    assert "".join(f"%{ord(char):02X}" for char in secret[:12]) not in logged
