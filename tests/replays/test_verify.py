"""`replay verify`: an honest log passes every check; each kind of forgery fails, naming its seq."""

from __future__ import annotations

from pathlib import Path


from core.rng import seed_hex
from events.commands import Games
from events.store import Store
from replays import archive
from replays.log import Log, from_store
from replays.verify import FAIL, NOTE, OK, verify
from tests.replays.conftest import forge, play_random


def forged(log: Log, changes: dict) -> Log:
    return Log("forged", forge(log.envelopes, changes))


def failures(log: Log) -> list[tuple[str, int | None]]:
    return [(f.check, f.seq) for f in verify(log).findings if f.status == FAIL]


def test_an_honest_finished_game_passes_every_check(store: Store, finished: str) -> None:
    report = verify(from_store(store, finished))
    assert report.ok and {f.status for f in report.findings} == {OK}
    assert {f.check for f in report.findings} >= {"seqs", "hash chain", "seed", "opening", "re-adjudication"}
    assert all(r.status == OK for r in report.rulings) and len(report.rulings) > 50


def test_a_running_game_passes_and_says_what_waits_for_the_seed(games: Games, store: Store, game_id: str) -> None:
    games.create("holly-oak", 3, seed=9, game_id=game_id)
    play_random(games, game_id, moves=10)
    report = verify(from_store(store, game_id))
    assert report.ok
    assert {f.check: f.status for f in report.findings}["seed"] == NOTE
    with_secret = verify(from_store(store, game_id), seed=store.seed(game_id))
    assert with_secret.ok and {f.check: f.status for f in with_secret.findings}["opening"] == OK


def test_a_forged_deal_fails_the_opening(store: Store, finished: str) -> None:
    log = from_store(store, finished)
    dealt = log.envelopes[1].data
    hands = [list(h) for h in dealt["hands"]]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    bad = forged(log, {1: {"data": dict(dealt, hands=hands)}})
    assert ("opening", 1) in failures(bad)


def test_a_changed_card_is_caught_by_re_adjudication(store: Store, finished: str) -> None:
    log = from_store(store, finished)
    first, _count = log.commands()[3]
    env = log.envelopes[first]
    others = [m for m in log.table_before(first).legal_moves(env.actor) if m != env.command]
    # The command text says one card, the event another: replayed, the rules give other events.
    card = others[0].split()[1] if others else "SR"
    bad = forged(log, {first: {"data": dict(env.data, card=card)}})
    assert ("re-adjudication", first) in failures(bad)


def test_an_illegal_move_is_named(store: Store, finished: str) -> None:
    log = from_store(store, finished)
    first, _count = log.commands()[2]
    bad = forged(log, {first: {"command": "play 99Zz"}})
    report = verify(bad)
    assert not report.ok and report.first_bad_seq == first
    assert any("illegal" in f.text for f in report.findings if f.status == FAIL)


def test_a_broken_chain_a_gap_and_a_wrong_seed(store: Store, finished: str) -> None:
    log = from_store(store, finished)
    envelopes = list(log.envelopes)
    envelopes[7] = envelopes[7].replace(time_ms=envelopes[7].time_ms + 1)  # not resealed
    assert ("hash chain", 7) in failures(Log("x", envelopes))
    gap = forge(log.envelopes[:5] + log.envelopes[6:], {})
    assert ("seqs", 5) in failures(Log("x", gap))
    wrong = forged(log, {log.last_seq: {"data": {"seed": seed_hex(12345)}}})
    assert ("seed", log.last_seq) in failures(wrong)


def test_verify_cli_prints_one_line_per_finding_and_fails_with_the_first_bad_seq(pbm, store: Store, finished: str, tmp_path: Path) -> None:
    good = pbm("replay", "verify", finished).stdout.strip().splitlines()
    assert all(line.startswith("ok ") for line in good[:-1]) and good[-1].startswith("verified")
    log = from_store(store, finished)
    first, _count = log.commands()[4]
    bad = forged(log, {first: {"command": "play 99Zz"}})
    path = tmp_path / "bad.pbmlog"
    path.write_bytes(archive.dumps(Log(str(path), bad.envelopes)))
    result = pbm("replay", "verify", str(path), ok=False)
    lines = result.stdout.strip().splitlines()
    assert lines[-1].endswith(f"first bad seq {first}") and str(path) in lines[-1]
    assert [line.split()[0] for line in lines[:-1]].count("FAIL") == 1


def test_a_game_from_a_fixed_deal_is_verified_from_that_deal(games: Games, store: Store, game_id: str) -> None:
    import core

    hands = [core.new_table("holly-oak", 3, seed=4).view(seat)["hand"] for seat in range(3)]
    games.create("holly-oak", 3, seed=5, deal={"hands": hands}, game_id=game_id)
    play_random(games, game_id)
    report = verify(from_store(store, game_id))
    statuses = {f.check: f.status for f in report.findings}
    assert report.ok and statuses["opening"] == NOTE and statuses["re-adjudication"] == OK
    assert "a deal given at creation" in next(f.text for f in report.findings if f.check == "opening")


def test_a_salted_game_verifies_and_a_changed_salt_does_not(games: Games, store: Store, game_id: str) -> None:
    games.create("holly-oak", 3, seed=5, salts=["alice's", "bob's"], game_id=game_id)
    play_random(games, game_id)
    log = from_store(store, game_id)
    assert log.started.salts == ("alice's", "bob's")
    assert verify(log).ok
    started = log.envelopes[0]
    bad = forged(log, {0: {"data": dict(started.data, salts=["alice's", "mallory's"])}})
    assert ("opening", 1) in failures(bad)
