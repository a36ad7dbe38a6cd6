"""Whole games through a real `pbm serve` process and a real `pbm worker`, over HTTP only: two
human seats and bots in each of the four games; and two clients racing one seat through two
server replicas on the same Redis (one move lands, the other gets 409 or the idempotent answer)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx2 as httpx
import pytest

import core
from bench import serving
from tests.web.conftest import ADMIN, bearer

GAME_TIMEOUT_S = 240


def start_server(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    process, url = serving.start(env, stderr=subprocess.DEVNULL)
    # The access log goes on to stdout: read it away, or the server blocks on a full pipe.
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return process, url


@pytest.fixture
def env(cli_env) -> dict[str, str]:
    # Clients that read and move as fast as they can, from one address: no limit may slow them.
    loose = {name: "100000" for name in ("PBM_MOVES_PER_10S", "PBM_READS_PER_10S", "PBM_REQUESTS_PER_10S")}
    return {**os.environ, **cli_env, "PBM_ADMIN_TOKEN": ADMIN, **loose}


@pytest.fixture
def servers(env) -> Iterator[list[str]]:
    """Two `pbm serve` replicas and one `pbm worker`, on the test Redis."""
    started = [start_server(env), start_server(env)]
    worker = subprocess.Popen([sys.executable, "-m", "pbm", "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield [url for _process, url in started]
    finally:
        serving.stop(worker)
        for process, _url in started:
            serving.stop(process)


def play_through_http(url: str, slug: str, seed: int) -> dict:
    game = core.get_game(slug)
    players = min(max(game.min_players, 3), game.max_players)
    seats = [{"name": "Ann"}, {"name": "Bob"}] + [{"name": f"Bot {n}", "bot": "random"} for n in range(players - 2)]
    chooser = random.Random(seed)
    with httpx.Client(base_url=url, timeout=30) as http:
        created = http.post("/api/games", json={"game": slug, "players": players, "seats": seats, "late_salts": False}, headers=bearer(ADMIN))
        assert created.status_code == 201, created.text
        people = [bearer(seat["token"]) for seat in created.json()["seats"] if "token" in seat]
        deadline = time.monotonic() + GAME_TIMEOUT_S
        while time.monotonic() < deadline:
            acted = False
            for headers in people:
                view = http.get("/api/me", headers=headers).json()["view"]
                if view["outcome"] is not None:
                    return view
                if view["legal_moves"]:
                    move = chooser.choice(view["legal_moves"])
                    answer = http.post("/api/me/moves", json={"move": move, "expected_seq": view["seq"]}, headers=headers)
                    assert answer.status_code in (200, 409), answer.text  # 409: a bot moved first
                    acted = True
            if not acted:
                time.sleep(0.02)  # the bots' turn: the worker plays it
        raise AssertionError(f"{slug} did not finish in {GAME_TIMEOUT_S} s")


def test_a_whole_game_of_each_game_through_http_with_two_people_and_bots(servers):
    for index, slug in enumerate(sorted(core.GAMES)):
        view = play_through_http(servers[index % 2], slug, seed=index)
        assert view["outcome"]["scores"] and view["to_act"] == []


def test_two_clients_racing_one_seat_play_one_move(servers):
    with httpx.Client(timeout=30) as admin_http:
        body = {"game": "holly-oak", "players": 3, "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "late_salts": False}
        created = admin_http.post(f"{servers[0]}/api/games", json=body, headers=bearer(ADMIN)).json()

        def to_act() -> tuple[dict, dict]:
            views = {s["seat"]: admin_http.get(f"{servers[0]}/api/me", headers=bearer(s["token"])).json()["view"] for s in created["seats"]}
            seat = next(s for s in created["seats"] if views[s["seat"]]["legal_moves"])
            return seat, views[seat["seat"]]

        # Two different moves race: a seat with one legal move (the lead of 1Sp that opens a round)
        # plays it first. (The same move sent twice in the same millisecond is the same append's
        # bytes, answered as a repeated command: the idempotent answer, raced below on purpose.)
        seat, view = to_act()
        while len(view["legal_moves"]) < 2:
            moved = admin_http.post(f"{servers[0]}/api/me/moves", json={"move": view["legal_moves"][0]}, headers=bearer(seat["token"]))
            assert moved.status_code == 200, moved.text
            seat, view = to_act()
    headers = bearer(seat["token"])

    def race(bodies_and_headers: list[tuple[str, dict, dict]]) -> list[httpx.Response]:
        answers: list = [None] * len(bodies_and_headers)
        barrier = threading.Barrier(len(bodies_and_headers))

        def send(i: int, url: str, body: dict, extra: dict) -> None:
            with httpx.Client(timeout=30) as http:
                barrier.wait()
                answers[i] = http.post(f"{url}/api/me/moves", json=body, headers=headers | extra)

        threads = [threading.Thread(target=send, args=(i, *args)) for i, args in enumerate(bodies_and_headers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return answers

    first, second = view["legal_moves"][0], view["legal_moves"][-1]
    assert first != second
    answers = race([(servers[0], {"move": first, "expected_seq": view["seq"]}, {}), (servers[1], {"move": second, "expected_seq": view["seq"]}, {})])
    assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    with httpx.Client(timeout=30) as http:
        log = http.get(f"{servers[0]}/api/games/{created['game_id']}/verify", headers=bearer(ADMIN)).json()
        assert log["ok"]
        me = http.get(f"{servers[1]}/api/me", headers=headers).json()
    winner = next(a for a in answers if a.status_code == 200)
    assert me["view"]["seq"] == winner.json()["view"]["seq"]  # one move, and only one, landed

    # The same command (one Idempotency-Key) sent through both replicas: played once.
    nxt = next(s for s in created["seats"] if httpx.get(f"{servers[0]}/api/me", headers=bearer(s["token"])).json()["view"]["legal_moves"])
    headers = bearer(nxt["token"])
    view = httpx.get(f"{servers[0]}/api/me", headers=headers).json()["view"]
    move = {"move": view["legal_moves"][0]}
    answers = race([(url, move, {"Idempotency-Key": "once"}) for url in servers])
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert sorted(a.json()["duplicate"] for a in answers) == [False, True]
    assert answers[0].json()["seq"] == answers[1].json()["seq"] == view["seq"]
