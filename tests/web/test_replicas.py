"""Replicas of `pbm serve` on one Redis serve one set of games: real server processes, two apart
(as behind a proxy) and `--workers 2` on one address. A seat page's event stream on one replica
hears a move made through the other; a replica holding a game's table folded before another
replica's move answers a move made against it with a conflict, then the log as it is (never a
wrong view); a seat's move allowance counts the requests of every replica. The replicas of
`--workers 2` share out the connections to their address, and one that dies takes none."""

from __future__ import annotations

import collections
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from bench import serving
from events.commands import Games
from events.store import Store
from tests.web.conftest import ADMIN, bearer

STREAM_S = 15  # how long a stream may take to tell of a move (it polls the log once a second)


def start(env: dict[str, str], workers: int = 1) -> tuple[subprocess.Popen, str, Path]:
    """A real `pbm serve`, its output to a file (read by the test at the end, never a full pipe)."""
    log = tempfile.NamedTemporaryFile("w+", prefix="pbm-replica-", suffix=".log", delete=False)
    process, url = serving.start(env, stdout=log, stderr=subprocess.STDOUT, workers=workers)
    return process, url, Path(log.name)


@pytest.fixture
def env(cli_env) -> dict[str, str]:
    return {**os.environ, **cli_env, "PBM_ADMIN_TOKEN": ADMIN, "PYTHONUNBUFFERED": "1", "PBM_MOVES_PER_10S": "5"}


@pytest.fixture
def two(env) -> Iterator[list[str]]:
    """Two `pbm serve` processes on the test Redis, each on its own port."""
    started = [start(env), start(env)]
    try:
        yield [url for _process, url, _log in started]
    finally:
        for process, _url, log in started:
            serving.stop(process)
            log.unlink()


def new_game(http: httpx.Client) -> dict:
    body = {"game": "holly-oak", "players": 3, "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], "forced_moves": "ask", "late_salts": False}
    created = http.post("/api/games", json=body, headers=bearer(ADMIN))
    assert created.status_code == 201, created.text
    return created.json()


def to_act(http: httpx.Client, created: dict) -> tuple[str, dict]:
    """The token of the seat whose turn it is, and its GET /api/me."""
    for seat in created["seats"]:
        me = http.get("/api/me", headers=bearer(seat["token"])).json()
        if me["view"]["legal_moves"]:
            return seat["token"], me
    raise AssertionError("no seat to act")


def move(http: httpx.Client, token: str, text: str, expected_seq: int) -> httpx.Response:
    return http.post("/api/me/moves", json={"move": text, "expected_seq": expected_seq}, headers=bearer(token))


def seq_events(lines: Iterator[str]) -> Iterator[int]:
    """The log lengths an event stream tells, as it tells them."""
    for line in lines:
        if line.startswith("data: "):
            yield int(line.removeprefix("data: "))


def test_a_page_stream_on_one_replica_hears_a_move_made_through_the_other(two):
    one, other = two
    with httpx.Client(base_url=one, timeout=30) as first, httpx.Client(base_url=other, timeout=30) as second:
        created = new_game(first)
        token, me = to_act(first, created)
        watcher = next(seat["token"] for seat in created["seats"] if seat["token"] != token)
        opened = second.get(f"/play/{watcher}", follow_redirects=False)  # the link leaves the seat's cookie
        assert opened.status_code == 303, opened.text
        with second.stream("GET", f"{opened.headers['location']}/events") as stream:
            assert stream.status_code == 200
            told = seq_events(stream.iter_lines())
            before = next(told)
            assert before == me["view"]["seq"]
            played = move(first, token, me["view"]["legal_moves"][0], before)
            assert played.status_code == 200, played.text
            began = time.monotonic()
            after = next(told)  # the other replica learns of it from Redis, not from its own memory
            assert after == before + 1 and time.monotonic() - began < STREAM_S


def test_a_stale_table_in_one_replica_is_a_conflict_then_the_log_as_it_is(two, store):
    one, other = two
    with httpx.Client(base_url=one, timeout=30) as first, httpx.Client(base_url=other, timeout=30) as second:
        created = new_game(first)
        ann, me = to_act(first, created)
        held = move(first, ann, me["view"]["legal_moves"][0], me["view"]["seq"])  # the first replica folds the game to here
        assert held.status_code == 200, held.text
        seq = held.json()["view"]["seq"]
        bob, bob_me = to_act(second, created)
        card = bob_me["view"]["legal_moves"][0]
        assert move(second, bob, card, seq).status_code == 200  # the log moves on through the other replica
        # The first replica still holds the game at `seq`: a move expected there is refused by the
        # append, not played on the old table.
        again = move(first, bob, bob_me["view"]["legal_moves"][-1], seq)
        assert again.status_code == 409, again.text
        assert f"is at seq {seq + 1}, not {seq}" in again.json()["error"]
        # Read again, it is the log as it is: the same as a table folded here from Redis.
        cy, cy_me = to_act(first, created)
        log = Games(store).table(created["game_id"])
        assert cy_me["view"] == log.view(cy_me["seat"]) and cy_me["view"]["seq"] == seq + 1
        played = move(first, cy, cy_me["view"]["legal_moves"][0], seq + 1)
        assert played.status_code == 200, played.text
        assert played.json()["view"] == Games(store).table(created["game_id"]).view(cy_me["seat"])
        assert second.get("/api/me", headers=bearer(bob)).json()["view"] == Games(store).table(created["game_id"]).view(bob_me["seat"])


def test_a_seats_move_allowance_counts_across_replicas(two):
    one, other = two
    with httpx.Client(base_url=one, timeout=30) as first, httpx.Client(base_url=other, timeout=30) as second:
        for _attempt in range(3):
            created = new_game(first)
            token, me = to_act(first, created)
            # The allowance is counted in fixed windows of 10 s: the six requests start at a
            # window's beginning, and count only if they all fell in it (a busy machine may not).
            time.sleep(10 - time.time() % 10)
            window = int(time.time()) // 10
            # Refused moves spend the allowance too (5 in 10 s here): three through one replica,
            # two through the other, and the sixth is over it wherever it goes.
            said = [move(http, token, "play XX", me["view"]["seq"]).status_code for http in (first, second, first, second, first)]
            over = move(second, token, me["view"]["legal_moves"][0], me["view"]["seq"])
            if int(time.time()) // 10 == window:
                break
        else:
            pytest.skip("no six requests in one window of 10 s: the machine is too busy to tell")
        assert said == [422] * 5
        assert over.status_code == 429 and "too many moves: at most 5 every 10 s per seat" in over.json()["error"], over.text


def test_serve_with_two_workers_runs_two_replicas_on_one_address_and_stops_them(env, store):
    process, url, log = start(env, workers=2)
    try:
        deadline = time.monotonic() + serving.START_S
        while log.read_text().count("Application startup complete") < 2:
            assert time.monotonic() < deadline and process.poll() is None, log.read_text()[-2000:]
            time.sleep(0.2)
        replicas = [int(pid) for pid in Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()]
        serving_pids = {int(pid) for pid in re.findall(r"Started server process \[(\d+)\]", log.read_text())}
        assert len(serving_pids) == 2 and serving_pids <= set(replicas)
        # Each of several connections is accepted by one replica or the other: all play one game.
        with httpx.Client(base_url=url, timeout=30) as http:
            created = new_game(http)
        for _ in range(4):
            with httpx.Client(base_url=url, timeout=30) as http:
                token, me = to_act(http, created)
                played = move(http, token, me["view"]["legal_moves"][0], me["view"]["seq"])
                assert played.status_code == 200, played.text
        assert Games(store).table(created["game_id"]).seq == me["view"]["seq"] + 1
    finally:
        serving.stop(process)
    for pid in serving_pids:
        assert not Path(f"/proc/{pid}").exists(), f"replica {pid} outlived pbm serve"
    logged = log.read_text()
    log.unlink()
    assert 'POST /api/me/moves HTTP/1.1" 200' in logged  # the replicas' access log, through the one filter
    assert all(seat["token"].rsplit(".", 1)[1] not in logged for seat in created["seats"])


def replica_pids(process: subprocess.Popen, log: Path, count: int) -> list[int]:
    """The live replicas of `pbm serve --workers N`, once `count` of them (in all, restarts
    included) have said they serve."""
    deadline = time.monotonic() + serving.START_S
    while log.read_text().count("Application startup complete") < count:
        assert time.monotonic() < deadline and process.poll() is None, log.read_text()[-2000:]
        time.sleep(0.2)
    started = {int(pid) for pid in re.findall(r"Started server process \[(\d+)\]", log.read_text())}
    return sorted(pid for pid in started if Path(f"/proc/{pid}").exists())


def connections_held(pids: list[int], port: int) -> collections.Counter:
    """How many established TCP connections to `port` each process holds (Linux /proc)."""
    inodes = {}
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = os.readlink(fd) if fd.is_symlink() else ""
            if target.startswith("socket:["):
                inodes[target[8:-1]] = pid
    held = collections.Counter()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01" and fields[9] in inodes:
                held[inodes[fields[9]]] += 1
    return held


def answered(url: str) -> int:
    """The status of GET /openapi.json on a connection of its own (a refused or hung one raises)."""
    with httpx.Client(base_url=url, timeout=10) as http:
        return http.get("/openapi.json").status_code


def test_workers_spread_connections_over_their_replicas_and_one_that_dies_takes_none(env):
    # Each replica listens on a socket of its own (SO_REUSEPORT): the kernel spreads connections
    # over them; with one socket shared, 40 opened at once went 40 to 0, 37 to 3, 37 to 3, 31 to 9.
    process, url, log = start(env, workers=2)
    port = int(url.rsplit(":", 1)[1])
    try:
        replicas = replica_pids(process, log, 2)
        opened = [socket.create_connection(("127.0.0.1", port)) for _ in range(60)]
        time.sleep(1)  # accepted
        held = connections_held(replicas, port)
        for connection in opened:
            connection.close()
        assert sum(held.values()) == 60 and min(held[pid] for pid in replicas) >= 18, held  # 30 each, give or take (fewer: 1 in 1,000 runs)
        # A replica killed: the supervisor starts another, and no connection goes to the dead one's
        # socket (the parent keeps none of the sockets it handed out).
        os.kill(replicas[0], signal.SIGKILL)
        replica_pids(process, log, 3)
        assert [answered(url) for _ in range(30)] == [200] * 30
    finally:
        serving.stop(process)
        logged = log.read_text()
        log.unlink()
    assert "died" in logged


def test_workers_refuse_an_address_another_server_holds(env):
    # Sharing the address among the replicas must not let a second server in beside the first.
    process, url, log = start(env, workers=2)
    try:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        second = subprocess.run([*serving.SERVE[:-2], "--port", port, "--workers", "2"], env=env, capture_output=True, text=True, timeout=120)
        assert second.returncode != 0
        assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in second.stderr
    finally:
        serving.stop(process)
        log.unlink()
