"""`replay show` and `replay step`: any seq rebuilds to the table the live game had then."""

from __future__ import annotations

import json
import re

import core
from events.commands import Games
from events.store import Store
from replays.log import from_store
from tests.replays.conftest import play_random


def test_every_seq_rebuilds_to_the_live_tables_state(games: Games, store: Store, game_id: str) -> None:
    games.create("holly-oak", 4, seed=5, game_id=game_id)
    lives = {}
    chooser_moves = 0
    while chooser_moves < 30:
        live = games.table(game_id)
        lives[live.seq - 1] = live
        play_random(games, game_id, chooser_seed=chooser_moves, moves=1)
        chooser_moves += 1
    log = from_store(store, game_id)
    for seq, live in lives.items():
        rebuilt = log.table(seq)
        assert rebuilt.state == live.state and rebuilt.seq == live.seq
        for seat in (None, 0, 1, 2, 3):
            assert rebuilt.view(seat) == live.view(seat)


def test_show_at_a_seq_as_a_seat_and_the_whole_state(pbm, games: Games, finished: str) -> None:
    events = games.table(finished).events
    expected = core.replay_table("holly-oak", events[:11]).view(2)
    shown = json.loads(pbm("replay", "show", finished, "--at", "10", "--as", "2", "--json").stdout)
    assert shown == expected and shown["seq"] == 11
    whole = json.loads(pbm("replay", "show", finished, "--at", "10", "--json").stdout)
    hands = whole["state"]["hands"]
    assert len(hands) == 3 and sorted(hands[2]) == sorted(expected["hand"])
    last = json.loads(pbm("replay", "show", finished, "--public", "--json").stdout)
    assert last["outcome"] == games.table(finished).outcome.to_dict()
    assert last["seat"] is None and last.get("hand", []) == []
    text = pbm("replay", "show", finished, "--at", "-1", "--as", "0").stdout
    assert "game over" in text


def test_show_refuses_a_seq_or_seat_outside_the_game(pbm, finished: str) -> None:
    for args, message in ((["--at", "100000"], "no seq 100000"), (["--as", "7"], "no seat 7")):
        result = pbm("replay", "show", finished, *args, ok=False)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    result = pbm("replay", "show", "no-such-game", ok=False)
    assert "no such game" in result.stderr


def test_step_walks_forward_and_back_from_a_script_or_piped_keys(pbm, store: Store, finished: str) -> None:
    log = from_store(store, finished)
    lines = [log.narrate(seq, 1) for seq in range(6)]
    out = pbm("replay", "step", finished, "--as", "1", "--script", "nnnpq").stdout
    # Shown in order: 0, 1, 2, 3, then back to 2; the quit ends it.
    order = [out.index(f"seq {seq} of {log.last_seq}") for seq in (0, 1, 2, 3)]
    assert order == sorted(order) and out.count(f"seq 2 of {log.last_seq}") == 2
    assert lines[1].split(";")[0] in out.replace("\n", " ")
    piped = pbm("replay", "step", finished, "--as", "1", input="n\nn\np\n").stdout
    assert piped.count("seq 1 of") == 2 and "seq 2 of" in piped and "seq 3 of" not in piped
    ended = pbm("replay", "step", finished, "--script", "Gnn").stdout
    assert f"seq {log.last_seq} of {log.last_seq}" in ended and "the seed is revealed" in ended


def test_step_and_show_name_the_seats_as_every_story_does_and_json_keeps_numbers(pbm, store: Store, finished: str, tmp_path) -> None:
    from events.seats import Seats

    for seat, name in enumerate(("Ann", "Bob", "Cy")):
        Seats(store.redis).set_contact(finished, seat, name=name)
    log = from_store(store, finished)
    stepped = pbm("replay", "step", finished, "--as", "1", "--script", "nnq").stdout
    assert "you hold" in stepped and re.search(r"\b(Ann|Cy)\b", stepped)
    assert not re.search(r"\bseat \d\b", stepped.replace(", as Bob (seat 1)", "")), stepped  # the reader's own seat: by number too
    whole = pbm("replay", "step", finished, "--at", "2", "--script", "q").stdout  # a referee's: no "you"
    assert "you " not in whole and re.search(r"\((Ann|Bob|Cy): play \S+\)", whole) and not re.search(r"\bseat \d\b", whole)
    shown = pbm("replay", "show", finished, "--as", "2").stdout
    assert ", as Cy (seat 2)" in shown and not re.search(r"\bseat \d\b", shown.replace(", as Cy (seat 2)", "")) and "Ann" in shown
    stepped_json = [json.loads(line) for line in pbm("replay", "step", finished, "--as", "1", "--script", "nq", "--json").stdout.splitlines()]
    assert stepped_json[1]["event"] == log.narrate(1, 1)  # a machine's form, seats by number
    exported = tmp_path / f"{finished}.pbmlog"
    pbm("replay", "export", finished, "-o", str(exported))
    assert "seat 0" in pbm("replay", "step", str(exported), "--at", "2", "--script", "q").stdout  # a file holds no names
