"""The pbm command line against the test Redis: the tour of the README, JSON output, and one-line
errors that write nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

import core
from core.games import holiday_board
from events.server import EmbeddedRedis


def new_game(pbm, *args: str) -> str:
    return pbm("new", "holly-oak", "--players", "3", "--forced-moves", "ask", *args).stdout.strip()  # the opening lead (1Sp) is played by hand here


def test_games_lists_every_registered_game(pbm) -> None:
    rows = json.loads(pbm("games", "--json").stdout)
    assert [row["slug"] for row in rows] == list(core.GAMES)
    assert all(slug in pbm("games").stdout for slug in core.GAMES)


def test_the_tour_new_show_play_log(pbm) -> None:
    game_id = new_game(pbm, "--seed", "5")
    assert game_id in pbm("list").stdout
    view = json.loads(pbm("show", game_id, "--as", "1", "--json").stdout)
    assert view["seat"] == 1 and view["to_act"] == [1] and view["legal_moves"] == ["play 1Sp"]
    shown = pbm("show", game_id, "--as", "1").stdout
    assert "your hand:" in shown and "play 1Sp" in shown
    played = pbm("play", game_id, "--as", "1", "PLAY 1sp").stdout
    assert "you led 1Sp" in played and "waiting for seat 2" in played  # the reader is "you"
    assert json.loads(pbm("show", game_id, "--json").stdout)["seq"] == 3
    story = pbm("log", game_id, "--as", "0").stdout
    assert "started for 3 players" in story and "seat 1 led 1Sp" in story
    assert [row["seq"] for row in json.loads(pbm("log", game_id, "--json").stdout)] == [0, 1, 2]


def test_a_spectator_sees_no_hand(pbm) -> None:
    game_id = new_game(pbm, "--seed", "5")
    view = json.loads(pbm("show", game_id, "--json").stdout)
    assert view["seat"] is None and view["legal_moves"] == [] and not view.get("hand")


def test_a_deal_file_fixes_the_start(pbm, tmp_path: Path) -> None:
    deck = core.new_table("holly-oak", 3, seed=1).view(0)["hand"]
    table = core.new_table("holly-oak", 3, seed=1)
    hands = [table.view(seat)["hand"] for seat in range(3)]
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps({"hands": hands}))
    game_id = new_game(pbm, "--deal", str(deal))
    assert json.loads(pbm("show", game_id, "--as", "0", "--json").stdout)["hand"] == deck


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["new", "chess", "--players", "2"], "unknown game 'chess'"),
        (["new", "holly-oak", "--players", "9"], "3 to 5 players, not 9"),
        (["new", "holly-oak", "--players", "3", "--option", "x=1"], "no option 'x'"),
        (["new", "holly-oak", "--players", "3", "--deal", "/no/such/file"], "/no/such/file"),
        (["show", "no-such-game"], "no game 'no-such-game'"),
        (["log", "no-such-game"], "no game 'no-such-game'"),
        (["show", "x", "--as", "abc"], "'abc' is not a valid integer"),
        (["no-such-command"], "No such command"),
        (["new", "holly-oak"], "Missing option '--players'"),
        (["new", "holly-oak", "--players", "3", "--salt", ""], "a salt is 1 to 200 printable characters"),
    ],
)
def test_errors_are_one_line_and_write_nothing(pbm, args: list[str], message: str) -> None:
    before = pbm("list", "--json").stdout
    result = pbm(*args, ok=False)
    assert result.exit_code != 0
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert pbm("list", "--json").stdout == before


@pytest.mark.parametrize(
    ("seat", "move", "message"),
    [
        ("1", "play 7 Su", "malformed"),
        ("0", "play 1Sp", "not seat 0's turn"),
        ("7", "play 1Sp", "no seat 7"),
        ("1", "play 0Wi", "you do not hold 0Wi"),
    ],
)
def test_bad_moves_are_one_line_and_write_nothing(pbm, seat: str, move: str, message: str) -> None:
    game_id = new_game(pbm, "--seed", "5")
    before = pbm("log", game_id, "--json").stdout
    result = pbm("play", game_id, "--as", seat, move, ok=False)
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert pbm("log", game_id, "--json").stdout == before


def test_a_bad_deal_names_the_problem(pbm, tmp_path: Path) -> None:
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps({"hands": [["1Sp"], ["2Sp"], ["3Sp"]]}))
    result = pbm("new", "holly-oak", "--players", "3", "--deal", str(deal), ok=False)
    assert "Traceback" not in result.output and len(result.stderr.strip().splitlines()) == 1


def test_salts_are_logged_and_change_the_deal(pbm) -> None:
    plain = new_game(pbm, "--seed", "5")
    salted = new_game(pbm, "--seed", "5", "--salt", "alice", "--salt", "bob")
    hands = [json.loads(pbm("show", g, "--as", "0", "--json").stdout)["hand"] for g in (plain, salted)]
    assert hands[0] != hands[1]
    assert hands[1] == core.new_table("holly-oak", 3, seed=5, salts=["alice", "bob"]).view(0)["hand"]


def test_a_repeated_command_id_plays_once(pbm) -> None:
    game_id = new_game(pbm, "--seed", "5")
    pbm("play", game_id, "--as", "1", "play 1Sp", "--command-id", "abc")
    again = pbm("play", game_id, "--as", "1", "play 1Sp", "--command-id", "abc")
    assert "already played" in again.stdout
    assert len(json.loads(pbm("log", game_id, "--json").stdout)) == 3


def test_demo_plays_a_whole_game(pbm) -> None:
    out = pbm("demo", "--seed", "2", "--quiet").stdout
    assert "game over after" in out and (" wins with " in out or " share the win with " in out)  # seed 2's game ends in a tie


def test_the_installed_command_runs_a_demo_on_a_fresh_embedded_redis() -> None:
    """What a new user does: no REDIS_URL, a fresh data directory, `pbm demo`, then `pbm server stop`."""
    home = tempfile.mkdtemp(prefix="pbm-fresh-")
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | {"PBM_HOME": home}
    pbm_cmd = [sys.executable, "-m", "pbm"]
    try:
        demo = subprocess.run([*pbm_cmd, "demo", "--quiet"], env=env, capture_output=True, text=True, timeout=300)
        assert demo.returncode == 0, demo.stderr
        assert "game over after" in demo.stdout
        listed = subprocess.run([*pbm_cmd, "list", "--json"], env=env, capture_output=True, text=True, timeout=60)
        assert len(json.loads(listed.stdout)) == 1  # the game persisted between invocations
        stopped = subprocess.run([*pbm_cmd, "server", "stop"], env=env, capture_output=True, text=True, timeout=60)
        assert "stopped" in stopped.stdout
        assert not EmbeddedRedis(Path(home)).running()
        assert (Path(home) / "pbm.aof").stat().st_size > 0
    finally:
        EmbeddedRedis(Path(home)).stop()  # even when an assertion failed: leave no server behind
        shutil.rmtree(home, ignore_errors=True)


def test_a_board_file_is_read_by_the_shell_and_checked_by_the_game(pbm, tmp_path: Path) -> None:
    shipped = json.loads((Path(holiday_board.__file__).parent / "holiday-board.json").read_text())
    good = tmp_path / "board.json"
    good.write_text(json.dumps(shipped))
    game_id = pbm("new", "holiday-board", "--players", "3", "--option", f"board=@{good}").stdout.strip()
    assert json.loads(pbm("show", game_id, "--json").stdout)["game"] == "holiday-board"
    shipped["cities"][0]["links"] = shipped["cities"][0]["links"][1:]  # now a one-way link
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(shipped))
    result = pbm("new", "holiday-board", "--players", "3", "--option", f"board=@{bad}", ok=False)
    assert "board" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    missing = pbm("new", "holiday-board", "--players", "3", "--option", "board=@/no/such.json", ok=False)
    assert "cannot read /no/such.json" in missing.stderr


def test_a_damaged_log_is_listed_as_such_and_hides_no_other_game(pbm, redis_client) -> None:
    from events.envelope import GENESIS, seal
    from events.store import Store

    good = new_game(pbm, "--seed", "3")
    damaged = f"damaged-{uuid.uuid4().hex[:8]}"
    not_a_start = seal(damaged, 0, core.SeedRevealed("00" * 32), GENESIS, actor=None, command=None, command_id=None, time_ms=0)
    Store(redis_client).create(damaged, "holly-oak", 3, 0, seed=1, envelopes=[not_a_start.encode()])
    rows = {row["game_id"]: row for row in json.loads(pbm("list", "--json").stdout)}
    assert "outcome" in rows[good] and "not a game's start" in rows[damaged]["error"]
    assert "unreadable" in pbm("list").stdout
    shown = pbm("show", damaged, ok=False)
    assert "not a game's start" in shown.stderr and len(shown.stderr.strip().splitlines()) == 1
