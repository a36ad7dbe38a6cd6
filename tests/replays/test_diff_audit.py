"""`replay diff` finds where two logs part; `replay audit` writes a referee's report."""

from __future__ import annotations

import json
from pathlib import Path

from events.commands import Games
from events.store import Store
from replays.diff import first_divergence
from replays.log import from_store
from tests.replays.conftest import play_random


def twins(games: Games, game_id: str, moves: int) -> tuple[str, str, int]:
    """Two games from one seed and the same first moves; then, at the first turn with a choice,
    A takes the first legal move and B the last. Returns both ids and the seq where they part."""
    a, b = game_id + "-a", game_id + "-b"
    for gid in (a, b):
        games.create("holly-oak", 3, seed=21, game_id=gid)
        play_random(games, gid, chooser_seed=1, moves=moves)
    while True:
        table = games.table(a)
        seat = table.to_act[0]
        legal = table.legal_moves(seat)
        if len(legal) > 1:
            break
        for gid in (a, b):
            games.submit(gid, seat, legal[0])
    games.submit(a, seat, legal[0])
    games.submit(b, seat, legal[-1])
    return a, b, table.seq


def test_diff_names_the_first_differing_event_and_both_states(pbm, games: Games, store: Store, game_id: str) -> None:
    a, b, parted = twins(games, game_id, moves=6)
    found = first_divergence(from_store(store, a), from_store(store, b))
    assert found.seq == parted and "different commands" in found.reason
    assert found.a_after["seq"] == parted + 1 and found.a_after != found.b_after
    assert found.before["seq"] == parted
    assert [seq for seq, _line in found.context] == [parted - 3, parted - 2, parted - 1]
    out = json.loads(pbm("replay", "diff", a, b, "--json", ok=False).stdout)
    assert out["seq"] == parted and out["a"] != out["b"]
    text = pbm("replay", "diff", a, b, ok=False).stdout
    assert f"first difference at seq {parted}" in text
    assert pbm("replay", "diff", a, a).stdout.startswith("the same")


def test_diff_of_a_log_and_its_prefix_says_which_goes_on(games: Games, store: Store, finished: str) -> None:
    log = from_store(store, finished)
    short = from_store(store, finished)
    short.envelopes = short.envelopes[:20]
    short.events = short.events[:20]
    found = first_divergence(log, short)
    assert found.seq == 20 and found.b_line is None and "A goes on" in found.reason


def test_audit_reports_who_did_what_legality_views_and_verification(pbm, store: Store, finished: str, tmp_path: Path) -> None:
    log = from_store(store, finished)
    first, _count = log.commands()[5]
    path = tmp_path / "audit.md"
    pbm("replay", "audit", finished, "--seq", str(first + 1), "-o", str(path))
    text = path.read_text()
    assert f"# Audit of game {finished}" in text and "verified" in text
    assert f"## The disputed point: seq {first + 1}" in text
    assert f"`{log.envelopes[first].command}`" in text and "Legal: yes" in text
    for seat in range(3):
        assert f"**seat {seat}**" in text
    assert text.count("| yes |") == len(log.commands())
    shown = pbm("replay", "audit", finished).stdout
    assert "Audit of game" in shown and "Verification" in shown


def test_diff_shows_where_two_files_part_when_one_fails_its_hash_chain(pbm, store: Store, finished: str, tmp_path: Path) -> None:
    from replays import archive
    from replays.log import Log

    log = from_store(store, finished)
    first, _count = log.commands()[4]
    env = log.envelopes[first]
    # A changed command text, not sealed again: B's chain breaks at that seq, and only there.
    changed = [e.replace(command=env.command + " ") if e.seq == first else e for e in log.envelopes]
    good, bad = tmp_path / "good.pbmlog", tmp_path / "bad.pbmlog"
    good.write_bytes(archive.dumps(log))
    bad.write_bytes(archive.dumps(Log("bad", changed)))
    result = pbm("replay", "diff", str(good), str(bad), ok=False)
    assert result.exit_code == 1
    assert f"B ({bad}) fails its hash chain at seq {first}: hash does not match" in result.stdout
    assert "A (" not in result.stdout.split("first difference")[0]
    assert f"first difference at seq {first}" in result.stdout
    out = json.loads(pbm("replay", "diff", str(good), str(bad), "--json", ok=False).stdout)
    assert out["seq"] == first and out["integrity"]["A"] == [] and out["integrity"]["B"][0]["seq"] == first
    # Both files alike but one broken: no difference in the story, still exit 1, still said.
    same = pbm("replay", "diff", str(bad), str(bad), ok=False)
    assert same.exit_code == 1 and "the same" in same.stdout and same.stdout.count("fails its hash chain") == 2
    assert pbm("replay", "diff", str(good), str(good)).stdout.startswith("the same")
