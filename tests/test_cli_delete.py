"""Games removed on purpose: `pbm delete`, `pbm archive` (the file brings it back), `pbm list`'s
filters, and a simulation that stops before the end deleting the games it created."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from events import index, keys
from events.seats import Seats
from events.store import Store
from workers import analytics


def finished_game(pbm, seed: str = "2") -> str:
    out = json.loads(pbm("demo", "--seed", seed, "--json").stdout)
    return out["game_id"]


def keys_of(redis_client, game_id: str) -> list[bytes]:
    return list(redis_client.scan_iter(match=f"{keys.PREFIX}:{{{game_id}}}:*", count=1000))


def test_delete_removes_every_key_of_a_game_and_refuses_a_running_one(pbm, redis_client) -> None:
    done = finished_game(pbm)
    analytics.store_summary(Store(redis_client), done)  # a summary, as a worker writes it
    seats = Seats(redis_client)
    seats.issue(done, 1)
    seats.set_contact(done, 1, name="Ann", email="ann@example.org")
    seats.open_to_spectators(done)
    assert keys_of(redis_client, done)
    running = pbm("new", "holly-oak", "--players", "3").stdout.strip()
    refused = pbm("delete", done, running, ok=False)
    assert "still running" in refused.stderr and "--force" in refused.stderr
    assert keys_of(redis_client, done)  # all or nothing: the finished one was not deleted either
    assert "deleted " + done in pbm("delete", done).stdout
    assert keys_of(redis_client, done) == []
    assert all(done.encode() not in redis_client.zrange(key, 0, -1) for key in index.ALL)
    assert done.encode() not in redis_client.zrange(keys.summaries("holly-oak"), 0, -1)
    assert "no game" in pbm("show", done, ok=False).stderr
    pbm("delete", running, "--force")
    assert keys_of(redis_client, running) == []
    assert "no game" in pbm("delete", "no-such-game", ok=False).stderr


def test_archive_writes_the_replay_file_then_deletes_and_import_brings_it_back(pbm, redis_client, tmp_path: Path) -> None:
    game_id = finished_game(pbm, "3")
    story = pbm("log", game_id, "--json").stdout
    path = tmp_path / "game.pbmlog"
    assert "pbm replay import" in pbm("archive", game_id, "-o", str(path)).stdout
    assert keys_of(redis_client, game_id) == [] and path.stat().st_size > 0
    pbm("replay", "import", str(path))
    assert pbm("log", game_id, "--json").stdout == story
    unwritable = pbm("archive", game_id, "-o", str(tmp_path / "no" / "such" / "dir.pbmlog"), ok=False)
    assert "nothing deleted" in unwritable.stderr and keys_of(redis_client, game_id)


def test_archive_of_a_running_game_names_the_flag_that_archives_it(pbm, redis_client, tmp_path: Path) -> None:
    running = pbm("new", "holly-oak", "--players", "3").stdout.strip()
    refused = pbm("archive", running, "-o", str(tmp_path / "g.pbmlog"), ok=False)
    assert "still running" in refused.stderr and "--force archives it anyway" in refused.stderr
    assert keys_of(redis_client, running) and not (tmp_path / "g.pbmlog").exists()
    assert "--force deletes it anyway" in pbm("delete", running, ok=False).stderr


def test_list_says_plainly_when_its_filters_match_nothing(pbm) -> None:
    pbm("new", "holly-oak", "--players", "3", "--seed", "5")  # seat 1 leads
    assert pbm("list", "--running", "--waiting-for", "4").stdout.strip() == "no game matches --running --waiting-for 4"


def test_list_filters_running_finished_and_waiting_for(pbm) -> None:
    done = finished_game(pbm, "4")
    waiting_1 = pbm("new", "holly-oak", "--players", "3", "--seed", "5", "--forced-moves", "ask").stdout.strip()  # seat 1 leads, by hand
    ids = lambda *flags: {row["game_id"] for row in json.loads(pbm("list", *flags, "--json").stdout)}  # noqa: E731
    assert done in ids("--finished") and done not in ids("--running")
    assert waiting_1 in ids("--running") and waiting_1 not in ids("--finished")
    assert waiting_1 in ids("--waiting-for", "1") and waiting_1 not in ids("--waiting-for", "0")
    assert all(1 in row["to_act"] for row in json.loads(pbm("list", "--waiting-for", "1", "--json").stdout))
    assert "exclude each other" in pbm("list", "--running", "--finished", ok=False).stderr


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_simulation_whose_workers_die_stops_and_deletes_its_games(cli_env, redis_client, tmp_path: Path) -> None:
    before = set(redis_client.zrange(keys.GAMES, 0, -1))
    simulate = subprocess.Popen(
        [sys.executable, "-m", "pbm", "simulate", "holly-oak", "--games", "3", "--bots", "ismcts:2s",
         "--workers", "1", "--out", str(tmp_path / "out")],
        env={**os.environ, **cli_env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (workers := children(simulate.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        while set(redis_client.zrange(keys.GAMES, 0, -1)) - before == set() and time.monotonic() < deadline:
            time.sleep(0.1)  # its games are created
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        _out, err = simulate.communicate(timeout=120)
    finally:
        simulate.kill()
    assert simulate.returncode == 1, err
    last = err.strip().splitlines()[-1]
    assert "have died" in last and "deleted the 3 game(s)" in last and "Traceback" not in err
    assert set(redis_client.zrange(keys.GAMES, 0, -1)) == before
    assert not (tmp_path / "out").exists()
