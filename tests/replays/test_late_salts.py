"""A deal that waits for the players' salts: the order the log keeps (commitment, salts, deal),
verification, the stdlib re-derivation in docs/fairness.md, and a server that cheats after a salt."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import core
from core.games.holly_oak import rules
from core.rng import seed_hex, silent_salt
from core.salts import order_problems
from events import codec
from events.commands import Games
from replays import archive
from replays.log import from_events, from_store
from replays.verify import FAIL, OK, verify
from tests.replays.conftest import forge, play_random
from tests.replays.test_fairness_doc import doc_code

salt_text = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")), min_size=1, max_size=200).filter(str.isprintable)


def checks(report) -> dict[str, str]:
    return {f.check: f.status for f in report.findings}


def holly_oak_hands(stream, players: int) -> list[list[str]]:
    shuffled = stream.shuffle([str(card) for card in rules.deck(players)])
    size = len(shuffled) // players
    return [sorted(shuffled[s * size : (s + 1) * size]) for s in range(players)]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**256 - 1),
    players=st.integers(3, 5),
    data=st.data(),
)
def test_a_game_dealt_with_late_salts_replays_verifies_and_re_derives(games: Games, seed: int, players: int, data) -> None:
    awaited = data.draw(st.lists(st.integers(0, players - 1), min_size=1, unique=True), "awaited")
    salted = data.draw(st.lists(st.sampled_from(awaited), unique=True), "seats that salt, in arrival order")
    salts = {seat: data.draw(salt_text, f"salt of seat {seat}") for seat in salted}
    bots = {seat: "random" for seat in range(players) if seat not in awaited}
    game_id = f"late-{secrets.token_hex(4)}"
    games.create("holly-oak", players, seed=seed, game_id=game_id, bots=bots, salt_seats=awaited)
    assert games.table(game_id).to_act == () and games.store.info(game_id).status.waiting == "salts"
    for seat in salted:
        games.give_salt(game_id, seat, salts[seat])
    if set(salted) != set(awaited):  # the deadline: the rest stay silent
        games.close_salts(game_id)
    table = games.table(game_id)
    assert table.to_act and not table.waiting_for_salts and games.store.info(game_id).status.waiting == ""
    play_random(games, game_id, chooser_seed=seed % 1000)

    log = from_store(games.store, game_id)
    report = verify(log)
    assert report.ok, report.lines()
    assert checks(report)["salts"] == OK and checks(report)["opening"] == OK
    replayed = core.replay_table("holly-oak", log.events)
    # The seats that sent none take their silent salts, from the seed, in their places by seat.
    by_seat = salts | {seat: silent_salt(seed, seat) for seat in awaited if seat not in salts}
    assert replayed.state == games.table(game_id).state and replayed.salts == tuple(by_seat[s] for s in sorted(by_seat))
    closed = next(env for env in log.envelopes if env.kind == "pbm.salts_closed")
    assert closed.data.get("silent", []) == sorted(set(awaited) - set(salts))
    assert closed.data.get("from_seed", False) is (set(salted) != set(awaited))

    doc = doc_code()  # docs/fairness.md's stdlib block, from the exported events alone
    revealed = log.events[-1].seed
    key_salts, deal_at = doc["salts_and_deal"]([(env.kind, env.data) for env in log.envelopes], revealed)
    assert key_salts == [by_seat[s] for s in sorted(by_seat)]
    assert log.envelopes[deal_at - 1].kind == "pbm.salts_closed" and all(
        log.envelopes[seq].kind.startswith("pbm.") for seq in range(1, deal_at))  # salts, bots seated
    assert doc["commitment"](revealed) == log.started.seed_commitment
    assert holly_oak_hands(doc["Stream"](revealed, deal_at, key_salts), players) == [sorted(h) for h in log.events[deal_at].hands]


def test_the_salts_decide_the_deal(games: Games) -> None:
    dealt = []
    for salt in ("alice", "alicf"):
        game_id = games.create("holly-oak", 3, seed=5, salt_seats=[1])
        games.give_salt(game_id, 1, salt)
        dealt.append(games.table(game_id).events[4])
    assert dealt[0] != dealt[1]


@pytest.fixture
def salted_game(games: Games) -> str:
    game_id = games.create("holly-oak", 3, seed=21, salt_seats=[0, 1, 2])
    for seat, salt in ((2, "zed"), (0, "ann"), (1, "bob")):
        games.give_salt(game_id, seat, salt)
    play_random(games, game_id, chooser_seed=1)
    return game_id


def test_a_server_that_changes_its_seed_after_a_salt_fails_verify(games: Games, salted_game: str) -> None:
    honest = from_store(games.store, salted_game)
    assert verify(honest).ok
    # Committed to seed 99 at creation; once the salts were in, dealt and played on from 21 (what
    # the log holds), revealing 21 at the end: the reveal does not match the commitment.
    swapped = forge(honest.envelopes, {0: {"data": {**honest.envelopes[0].data, "seed_commitment": core.commitment(99)}}})
    report = verify(from_events(salted_game, swapped))
    assert not report.ok and checks(report)["seed"] == FAIL and report.first_bad_seq is not None
    # ... or it reveals the committed seed: then the deal is not the one that seed and the salts give.
    last = honest.envelopes[-1]
    revealed = forge(swapped, {last.seq: {"data": {"seed": seed_hex(99)}}})
    report = verify(from_events(salted_game, revealed))
    assert not report.ok and checks(report)["opening"] == FAIL


def test_verify_wants_the_salts_between_commitment_and_deal(games: Games, salted_game: str) -> None:
    honest = from_store(games.store, salted_game)
    envelopes = honest.envelopes
    # A salt moved after the deal: the deal came before every salt was in.
    moved = [envelopes[0], envelopes[1], envelopes[2], envelopes[3], envelopes[5], envelopes[6], envelopes[4], *envelopes[7:]]
    forged = forge([env.replace(seq=seq) for seq, env in enumerate(moved)], {})
    report = verify(from_events(salted_game, forged))
    assert checks(report)["salts"] == FAIL and not report.ok
    doc = doc_code()
    with pytest.raises(ValueError):
        doc["salts_and_deal"]([(env.kind, env.data) for env in forged])
    assert order_problems([env.event for env in forged])


def test_bad_salts_are_refused_in_one_line_and_change_nothing(games: Games) -> None:
    game_id = games.create("holly-oak", 3, seed=3, salt_seats=[0, 2])
    games.give_salt(game_id, 0, "first")
    before = games.store.read(game_id, 0)
    for seat, salt, reason in (
        (2, "x" * 201, "1 to 200 printable characters"),
        (2, "", "1 to 200 printable characters"),
        (2, 7, "a salt is a text"),
        (2, "tab\there", "printable"),
        (0, "again", "given its salt already"),
        (1, "not asked", "not asked for a salt"),
    ):
        with pytest.raises(core.IllegalMove, match=reason) as refused:
            games.give_salt(game_id, seat, salt)
        assert "\n" not in str(refused.value)
    with pytest.raises(core.IllegalMove, match="waits for salts"):
        games.submit(game_id, 0, "PLAY 1Sp")
    assert games.store.read(game_id, 0) == before
    games.give_salt(game_id, 2, "second")
    dealt = games.store.read(game_id, 0)
    for attempt in (lambda: games.give_salt(game_id, 2, "late"), lambda: games.close_salts(game_id)):
        with pytest.raises(core.IllegalMove, match="closed"):
            attempt()
    assert games.store.read(game_id, 0) == dealt


def test_a_game_dealt_at_creation_is_as_before(games: Games) -> None:
    game_id = games.create("holly-oak", 3, seed=8, salts=["given", "first"], forced_moves="ask")  # no 1Sp led for its holder
    table = games.table(game_id)
    assert table.salting is None and table.to_act and table.salts == ("given", "first")
    with pytest.raises(core.IllegalMove, match="takes no salts"):
        games.give_salt(game_id, 0, "late")
    assert core.new_table("holly-oak", 3, seed=8, salts=["given", "first"]).events == table.events


# Frozen by the pbm from before silent salts: seats 0 and 2 gave salts, seat 1 was silent at the
# deadline and added nothing to the key. Its deal must stay the deal it had.
UNSEEDED_LOG = Path(__file__).parent / "data" / "silent-salts-unseeded.pbmlog"


def test_an_old_log_whose_silent_seat_added_nothing_keeps_its_deal() -> None:
    log = archive.read(UNSEEDED_LOG)
    awaited, closed = log.envelopes[1], log.envelopes[4]
    assert awaited.data == {"seats": [0, 1, 2]} and closed.data == {"silent": [1]}  # the bytes of then
    assert [codec.unstructure(log.events[seq])[1] for seq in (1, 4)] == [awaited.data, closed.data]  # and of now
    report = verify(log)
    assert report.ok, report.lines()
    assert "seat 1 (an old log: they add nothing to the key)" in next(f.text for f in report.findings if f.check == "salts")
    table = core.replay_table("holly-oak", log.events)
    assert table.salts == ("ann's salt", "zed's salt")
    assert "sent none (they add nothing to the key)" in table.narrate(None, start=4)[0][1]
    doc = doc_code()
    revealed = log.events[-1].seed
    key_salts, deal_at = doc["salts_and_deal"]([(env.kind, env.data) for env in log.envelopes], revealed)
    assert key_salts == ["ann's salt", "zed's salt"] and deal_at == 5
    assert holly_oak_hands(doc["Stream"](revealed, 5, key_salts), 3) == [sorted(h) for h in log.events[5].hands]
    # Under today's rule seat 1 would have its silent salt, and another deal: the check can tell.
    seeded = ["ann's salt", doc["silent_salt"](revealed, 1), "zed's salt"]
    assert holly_oak_hands(doc["Stream"](revealed, 5, seeded), 3) != [sorted(h) for h in log.events[5].hands]


@pytest.fixture
def silent_game(games: Games) -> str:
    """Seat 1 sends no salt; the deadline (close_salts) salts it from the seed."""
    game_id = games.create("holly-oak", 3, seed=77, salt_seats=[0, 1, 2])
    games.give_salt(game_id, 2, "zed")
    games.give_salt(game_id, 0, "ann")
    games.close_salts(game_id)
    play_random(games, game_id, chooser_seed=2)
    return game_id


def test_a_silent_seat_is_salted_from_the_committed_seed(games: Games, silent_game: str) -> None:
    log = from_store(games.store, silent_game)
    assert log.envelopes[1].data == {"seats": [0, 1, 2], "silent_from_seed": True}  # promised before any salt
    assert log.envelopes[4].data == {"silent": [1], "from_seed": True}
    assert all(silent_salt(77, 1) not in str(env.data) for env in log.envelopes[:-1])  # computed, never logged
    dealt = core.GAMES["holly-oak"].setup(3, {}, None, core.rng.Rng(77, 5, ("ann", silent_salt(77, 1), "zed")))
    assert list(dealt) == log.events[5:6]
    assert log.narrate(4) == ("the server salted the deal for seat 1 from the committed seed, "
                              "since seat 1 sent none by the deadline; the cards are dealt")
    report = verify(log)
    assert report.ok, report.lines()
    findings = {f.check: f.text for f in report.findings}
    assert "silent at the deadline: seat 1, salted from the committed seed" in findings["salts"]
    assert "silent salts of seat 1 derived from the revealed seed" in findings["opening"]


def test_a_server_that_salts_a_silent_seat_any_other_way_fails_verify(games: Games, silent_game: str) -> None:
    honest = from_store(games.store, silent_game)
    doc = doc_code()
    revealed = honest.events[-1].seed
    # Made to look like an old log (no promise, nothing for seat 1): the deal is not that rule's.
    unpromised = forge(honest.envelopes, {1: {"data": {"seats": [0, 1, 2]}}, 4: {"data": {"silent": [1]}}})
    report = verify(from_events(silent_game, unpromised))
    assert not report.ok and checks(report)["salts"] == OK and checks(report)["opening"] == FAIL
    key_salts, deal_at = doc["salts_and_deal"]([(env.kind, env.data) for env in unpromised], revealed)
    assert holly_oak_hands(doc["Stream"](revealed, deal_at, key_salts), 3) != [sorted(h) for h in honest.events[5].hands]
    # The promise kept at seq 1 but broken at the close: refused on the order alone.
    broken = forge(honest.envelopes, {4: {"data": {"silent": [1]}}})
    report = verify(from_events(silent_game, broken))
    assert not report.ok and checks(report)["salts"] == FAIL and report.first_bad_seq == 4
    with pytest.raises(ValueError, match="as promised"):
        doc["salts_and_deal"]([(env.kind, env.data) for env in broken], revealed)
    # The deal redrawn with a salt of the server's choosing in seat 1's place: the promise and the
    # close say "from the seed", and the revealed seed does not give that deal.
    chosen = core.GAMES["holly-oak"].setup(3, {}, None, core.rng.Rng(77, 5, ("ann", "server's", "zed")))
    redealt = forge(honest.envelopes, {5: {"data": codec.unstructure(next(iter(chosen)))[1]}})
    report = verify(from_events(silent_game, redealt))
    assert not report.ok and checks(report)["opening"] == FAIL and report.first_bad_seq == 5
