"""Input bounds before parsing: move texts, deal and board files, options, salts and command ids
have length and depth limits with one-line refusals, through the command path (every front end)
and the CLI; no integer parse can reach Python's 4,300-digit limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core
from core import bounds
from events.commands import Games

HUGE = "9" * 5000  # past Python's int() limit of 4,300 digits
DEEP = "[" * 100_000 + "]" * 100_000  # past the recursion limit of json


def one_line(result, *words: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize(
    ("game", "move"),
    [
        ("holiday-board", f"bid {HUGE}"),
        ("holiday-board", f"bid {HUGE} to paris"),
        ("tranquility", f"play {HUGE} a1"),
        ("holidays", "play " + "x" * 100_000),
    ],
)
def test_an_overlong_move_is_refused_before_it_is_parsed(games: Games, game: str, move: str) -> None:
    spec = core.get_game(game)
    game_id = games.create(game, spec.min_players, seed=3)
    seat = games.table(game_id).to_act[0]
    with pytest.raises(core.IllegalMove, match="a move is at most 200 characters"):
        games.submit(game_id, seat, move)
    assert games.store.length(game_id) == games.table(game_id).seq


def test_a_command_id_is_bounded(games: Games) -> None:
    game_id = games.create("holly-oak", 3, seed=5)
    with pytest.raises(core.IllegalMove, match="a command id is 1 to 200 characters"):
        games.submit(game_id, 1, "play 1Sp", command_id="c" * 201)


def test_the_tables_api_bounds_deals_options_and_salts() -> None:
    nested: list = []
    for _ in range(100):
        nested = [nested]
    with pytest.raises(core.SetupError, match="nested deeper than 16 levels"):
        core.new_table("holly-oak", 3, seed=1, deal={"hands": nested})
    with pytest.raises(core.SetupError, match="a number too large"):
        core.new_table("holly-oak", 3, seed=1, deal={"hands": [[10**5000]]})
    with pytest.raises(core.SetupError, match="nested deeper than 16"):
        core.new_table("holiday-board", 2, seed=1, options={"board": DEEP})
    with pytest.raises(core.SetupError, match="at most 16 salts"):
        core.new_table("holly-oak", 3, seed=1, salts=[f"s{i}" for i in range(17)])
    with pytest.raises(core.SetupError, match=r"a salt is 1 to 200 printable characters, not 'xxx.*… \(5000 characters\)"):
        core.new_table("holly-oak", 3, seed=1, salts=["x" * 5000])


def test_json_documents_are_bounded_before_parsing() -> None:
    assert bounds.parse_json(b'{"hands": [["1Sp"]], "round": 2}', "deal") == {"hands": [["1Sp"]], "round": 2}
    refusals = {
        DEEP: "nested deeper than 16 levels",
        '{"a": "[[[[[[[[[[[[[[[[[[[[[[[["}': None,  # brackets inside a string are text, not depth
        f'{{"n": {HUGE}}}': "a number of 5000 digits",
        '{"n": 1.5}': "'1.5' is not a whole number",
        '{"n": NaN}': "'NaN' is not a whole number",
        "x" * (bounds.MAX_DOCUMENT_BYTES + 1): "more than the 1000000 bytes allowed",
    }
    for text, message in refusals.items():
        if message is None:
            bounds.parse_json(text, "deal")
            continue
        with pytest.raises(core.SetupError, match=message):
            bounds.parse_json(text, "deal")
    with pytest.raises(core.SetupError, match=r"deal: not UTF-8 text \(byte 0xff at offset 2\)"):
        bounds.parse_json(b'{"\xff": 1}', "deal")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    contents = {
        "deep.json": DEEP.encode(),
        "huge-number.json": f'{{"hands": [[{HUGE}]]}}'.encode(),
        "latin1.json": '{"hands": "é"}'.encode("latin-1"),
        "big.json": b" " * (bounds.MAX_DOCUMENT_BYTES + 10),
    }
    paths = {}
    for name, data in contents.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(data)
    return paths


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("deep.json", "nested deeper than 16 levels"),
        ("huge-number.json", "a number of 5000 digits"),
        ("latin1.json", "not UTF-8 text (byte 0xe9 at offset 11)"),
        ("big.json", "more than the 1000000 bytes allowed"),
    ],
)
def test_bad_deal_and_board_files_are_one_line_and_write_nothing(pbm, files: dict[str, Path], name: str, message: str) -> None:
    before = pbm("list", "--json").stdout
    one_line(pbm("new", "holly-oak", "--players", "3", "--deal", str(files[name]), ok=False), f"--deal {files[name]}", message)
    one_line(pbm("new", "holiday-board", "--players", "2", "--option", f"board=@{files[name]}", ok=False), message)
    assert pbm("list", "--json").stdout == before


def test_numbers_on_the_command_line_cannot_reach_the_int_limit(pbm) -> None:
    game_id = pbm("new", "holiday-board", "--players", "2", "--seed", "3").stdout.strip()
    before = pbm("log", game_id, "--json").stdout
    seat = json.loads(pbm("show", game_id, "--json").stdout)["to_act"][0]
    one_line(pbm("play", game_id, "--as", str(seat), f"bid {HUGE}", ok=False), "a move is at most 200 characters")
    one_line(pbm("new", "holly-oak", "--players", "3", "--bot", f"{HUGE}=random", ok=False), "--bot's seat is a whole number of at most 30 digits")
    one_line(pbm("new", "holly-oak", "--players", "3", "--seed", HUGE, ok=False), "--seed")
    one_line(pbm("show", game_id, "--as", HUGE, ok=False), "--as")
    one_line(pbm("new", "holly-oak", "--players", "3", "--salt", "s" * 300, ok=False), "a salt is 1 to 200")
    assert pbm("log", game_id, "--json").stdout == before
