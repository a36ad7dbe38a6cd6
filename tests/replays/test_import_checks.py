"""`pbm replay import` verifies first; a log kept `--unverified` is marked and never played; a
`--replace` never drops events silently; and a broken game breaks no reader of the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events import keys
from events.commands import Games, UnreadableGame
from events.store import NotPlayable, Store
from replays import archive
from replays.log import Log, from_store
from tests.replays.conftest import forge, play_random


def forged_file(store: Store, game_id: str, path: Path, change) -> tuple[Path, str]:
    """A copy of the game under a new id, one event changed by `change(log)` -> {seq: fields},
    every hash sealed again so only verification can tell; the new id."""
    log = from_store(store, game_id)
    new_id = f"{game_id}-forged"
    envelopes = forge([env.replace(game_id=new_id) for env in log.envelopes], change(log))
    path.write_bytes(archive.dumps(Log(str(path), envelopes)))
    return path, new_id


def first_card_played(log: Log) -> int:
    return next(first for first, _count in log.commands())


def forged_seat(log: Log) -> dict[int, dict]:
    """The first card played by a seat the table does not have (the issue's forgery)."""
    seq = first_card_played(log)
    return {seq: {"data": dict(log.envelopes[seq].data, seat=9)}}


def swapped_hands(log: Log) -> dict[int, dict]:
    """Seats 0 and 1 dealt each other's hands: a log that folds fine but is not the seed's deal."""
    hands = log.envelopes[1].data["hands"]
    return {1: {"data": dict(log.envelopes[1].data, hands=[hands[1], hands[0], *hands[2:]])}}


@pytest.fixture
def running(games: Games, game_id: str) -> str:
    games.create("holly-oak", 3, seed=11, game_id=game_id)
    play_random(games, game_id, moves=8)
    return game_id


def written(store: Store, game_id: str) -> list[bytes]:
    return sorted(store.redis.scan_iter(match=f"pbm:{{{game_id}}}:*")) + ([game_id] if store.redis.zscore(keys.GAMES, game_id) else [])


def test_a_forged_seat_is_refused_naming_the_first_bad_seq(pbm, store: Store, running: str, tmp_path: Path) -> None:
    path, forged_id = forged_file(store, running, tmp_path / "forged.pbmlog", forged_seat)
    bad_seq = first_card_played(from_store(store, running))
    verified = json.loads(pbm("replay", "verify", str(path), "--json", ok=False).stdout)
    assert verified["first_bad_seq"] == bad_seq
    refused = pbm("replay", "import", str(path), ok=False)
    assert f"fails verification at seq {bad_seq}" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert written(store, forged_id) == []


def test_a_broken_game_kept_for_forensics_is_listed_unreadable_and_breaks_no_reader(pbm, store: Store, running: str, tmp_path: Path) -> None:
    path, forged_id = forged_file(store, running, tmp_path / "forged.pbmlog", forged_seat)
    kept = pbm("replay", "import", str(path), "--unverified").stdout
    assert "unverified, kept for forensics and never played" in kept
    assert store.redis.exists(keys.unverified(forged_id))
    rows = {row["game_id"]: row for row in json.loads(pbm("list", "--json").stdout)}
    assert "IndexError" in rows[forged_id]["error"] and rows[running]["to_act"]  # the others still listed
    assert "unreadable" in pbm("list").stdout
    for command in (["show", forged_id], ["log", forged_id], ["play", forged_id, "--as", "1", "play 1Sp"]):
        result = pbm(*command, ok=False)
        assert f"game {forged_id} is unreadable" in result.stderr and "Traceback" not in result.output
        assert len(result.stderr.strip().splitlines()) == 1
    assert "FAIL" in pbm("replay", "verify", forged_id, ok=False).stdout  # the forensic tools still read it


def test_an_unverified_game_is_never_played(pbm, games: Games, store: Store, running: str, tmp_path: Path) -> None:
    path, forged_id = forged_file(store, running, tmp_path / "swapped.pbmlog", swapped_hands)
    pbm("replay", "import", str(path), ok=False)
    pbm("replay", "import", str(path), "--unverified")
    row = next(row for row in json.loads(pbm("list", "--json").stdout) if row["game_id"] == forged_id)
    first_bad = json.loads(pbm("replay", "verify", str(path), "--json", ok=False).stdout)["first_bad_seq"]
    assert f"seq {first_bad}: " in row["unverified"]
    table = games.table(forged_id)  # it folds: a reader may look at it
    seat = table.to_act[0]
    move = table.legal_moves(seat)[0]
    before = store.length(forged_id)
    refused = pbm("play", forged_id, "--as", str(seat), move, ok=False)
    assert "imported unverified, for forensics: it is never played" in refused.stderr
    with pytest.raises(NotPlayable):  # the command path itself refuses, for every front end
        games.submit(forged_id, seat, move)
    assert store.length(forged_id) == before


def test_an_import_that_verifies_replaces_the_mark(pbm, store: Store, running: str, tmp_path: Path) -> None:
    path, forged_id = forged_file(store, running, tmp_path / "swapped.pbmlog", swapped_hands)
    pbm("replay", "import", str(path), "--unverified")
    honest, _ = forged_file(store, running, tmp_path / "honest.pbmlog", lambda log: {})
    pbm("replay", "import", str(honest), "--replace", "--force")
    assert not store.redis.exists(keys.unverified(forged_id))


def test_replace_refuses_to_drop_events_unless_forced_and_keeps_the_old_log(pbm, games: Games, store: Store, running: str, tmp_path: Path) -> None:
    path = tmp_path / "early.pbmlog"
    pbm("replay", "export", running, "-o", str(path))
    play_random(games, running, chooser_seed=1, moves=3)
    longer = [raw for _seq, raw in store.read_raw(running)]
    refused = pbm("replay", "import", str(path), "--replace", ok=False)
    assert f"has events from seq {len(archive.read(path).events)} on that this file lacks" in refused.stderr
    assert [raw for _seq, raw in store.read_raw(running)] == longer
    forced = pbm("replay", "import", str(path), "--replace", "--force").stdout
    assert f"the old log of {running} ({len(longer)} events) is kept under pbm:{{{running}}}:log:replaced:" in forced
    kept = [key for key in store.redis.scan_iter(match=f"pbm:{{{running}}}:log:replaced:*")]
    assert [fields[b"e"] for _id, fields in store.redis.xrange(kept[0])] == longer
    assert archive.dumps(from_store(store, running)) == path.read_bytes()


def test_replace_with_a_longer_log_of_the_same_game_keeps_it_playable(pbm, games: Games, store: Store, running: str, tmp_path: Path) -> None:
    path = tmp_path / "later.pbmlog"
    play_random(games, running, chooser_seed=1, moves=3)
    pbm("replay", "export", running, "-o", str(path))
    store.redis.xtrim(keys.log(running), maxlen=5)
    pbm("replay", "import", str(path), "--replace")
    fresh = Games(store)
    table = fresh.table(running)
    assert table.seed == store.seed(running) is not None  # the secret seed stayed with it
    seat = table.to_act[0]
    fresh.submit(running, seat, table.legal_moves(seat)[0])


def test_a_log_that_folds_into_an_inconsistent_state_is_unreadable_not_a_traceback(pbm, games: Games, store: Store, running: str) -> None:
    """Written straight into Redis, past the import: the readers still hold."""
    first = from_store(store, running)
    seq = first_card_played(first)
    forged = forge(first.envelopes, forged_seat(first))
    store.redis.delete(keys.log(running))
    for env in forged:
        store.redis.xadd(keys.log(running), {"e": env.encode()}, id=keys.entry_id(env.seq))
    with pytest.raises(UnreadableGame, match=f"seq {seq}"):
        Games(store).table(running)
    # The list reads rows, not logs (a log written past the command path leaves its row as it
    # was); reindex, which folds every log, names the broken one.
    assert running in [row["game_id"] for row in json.loads(pbm("list", "--json").stdout)]
    unreadable = {each["game_id"]: each["error"] for each in json.loads(pbm("reindex", "--json").stdout)["unreadable"]}
    assert f"seq {seq}" in unreadable[running]


def test_a_bot_turn_on_an_unverified_game_is_done_without_a_move(cli_env, store: Store, queue_client, game_id: str, tmp_path: Path) -> None:
    from rq.job import Job

    from tests.workers.test_rq import run_worker
    from workers.dispatch import Dispatcher, turn_job_id

    games = Games(store)  # no dispatch: the bots' turns are queued below, on the forged copy only
    games.create("holly-oak", 3, seed=11, game_id=game_id, bots={seat: "random" for seat in range(3)})
    play_random(games, game_id, moves=6)  # moves that a swapped deal makes illegal
    path, forged_id = forged_file(store, game_id, tmp_path / "bots.pbmlog", swapped_hands)
    archive.restore(store.redis, archive.read(path), unverified=True)
    assert store.unverified(forged_id)
    table = Games(store).table(forged_id)
    Dispatcher(queue_client)(forged_id, table)  # the bot turn the game waits for, queued (on rq's Redis)
    before = store.length(forged_id)
    ran = run_worker(cli_env, "--burst", "--no-recover")
    assert ran.returncode == 0, ran.stderr
    job = Job.fetch(turn_job_id(forged_id, table.seq, table.to_act[0]), connection=queue_client)
    assert job.return_value()["status"] == "unplayable" and "never played" in job.return_value()["reason"]
    assert store.length(forged_id) == before
