"""Replay files: export -> import -> export round-trips byte for byte; bad files are refused with
one line naming the file, the seq and the problem, and nothing is imported."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

from events import codec, keys
from events.commands import Games
from events.store import Store
from replays import archive
from replays.log import BadLog, from_store
from tests.replays.conftest import forge


def drop(store: Store, game_id: str) -> None:
    store.redis.delete(keys.log(game_id), keys.commands(game_id), keys.seed(game_id), keys.meta(game_id))
    store.redis.zrem(keys.GAMES, game_id)


def test_export_import_export_is_byte_for_byte(pbm, store: Store, games: Games, finished: str, tmp_path: Path) -> None:
    first, second = tmp_path / "a.pbmlog", tmp_path / "b.pbmlog"
    stored = store.read_raw(finished)
    pbm("replay", "export", finished, "-o", str(first))
    drop(store, finished)
    pbm("replay", "import", str(first))
    assert store.read_raw(finished) == stored
    pbm("replay", "export", finished, "-o", str(second))
    assert first.read_bytes() == second.read_bytes()
    # The imported game is whole: listed, its seed known, its command ids recognised.
    assert store.info(finished).slug == "holly-oak" and finished in [g.game_id for g in store.games()]
    assert games.table(finished).outcome is not None
    envelope = from_store(store, finished).envelopes[2]
    assert store.command(finished, envelope.command_id).first == 2


def test_import_refuses_an_existing_id_unless_told(pbm, store: Store, finished: str, tmp_path: Path) -> None:
    path = tmp_path / "game.pbmlog"
    pbm("replay", "export", finished, "-o", str(path))
    refused = pbm("replay", "import", str(path), ok=False)
    assert "exists already" in refused.stderr and "nothing imported" in refused.stderr
    store.redis.xtrim(keys.log(finished), maxlen=3)
    pbm("replay", "import", str(path), "--replace")
    assert archive.dumps(from_store(store, finished)) == path.read_bytes()


def bad_files(good: bytes, log) -> dict[str, tuple[bytes, str]]:
    """name -> (bytes, a text the error must hold)."""
    header_end = len(archive.MAGIC_BYTES) + len(codec.pack(archive.header(log)))
    third = header_end + sum(len(r) for r in log.raw[:3])
    flipped = bytearray(good)
    flipped[third + len(log.raw[3]) // 2] ^= 0x10
    unknown = forge(log.envelopes, {5: {"kind": "holly-oak.card_vanished"}})
    other = forge(log.envelopes, {})
    other_game = [archive.MAGIC_BYTES, codec.pack(archive.header(log))] + [
        e.encode() for e in forge([e for e in other], {3: {"game_id": "another-game"}})
    ]
    return {
        "truncated": (good[: third + 5], "truncated"),
        "flipped": (bytes(flipped), "seq 3"),
        "magic": (b"PK\x03\x04" + good[4:], "not a pbm replay file"),
        "empty": (b"", "not a pbm replay file"),
        "unknown tag": (_file(log, unknown), "unknown event kind 'holly-oak.card_vanished'"),
        "wrong game": (b"".join(other_game), "another-game"),
        "trailing": (good + b"\x01", "bytes after the last event"),
    }


def _file(log, envelopes) -> bytes:
    head = dict(archive.header(log), last_hash=envelopes[-1].hash)
    return archive.MAGIC_BYTES + codec.pack(head) + b"".join(e.encode() for e in envelopes)


def test_bad_files_are_one_line_errors_and_import_nothing(pbm, store: Store, finished: str, tmp_path: Path) -> None:
    log = from_store(store, finished)
    good = archive.dumps(log)
    drop(store, finished)
    for name, (data, message) in bad_files(good, log).items():
        path = tmp_path / f"{name.replace(' ', '-')}.pbmlog"
        path.write_bytes(data)
        for command in (["import"], ["show"], ["verify"], ["audit"], ["step", "--script", "q"]):
            result = pbm("replay", *command, str(path), ok=False)
            text = (result.stderr + result.stdout).strip()
            assert message in text and str(path) in text, (name, command, text)
            assert "Traceback" not in text and len(result.stderr.strip().splitlines()) <= 1, (name, text)
        assert store.length(finished) == 0, name


def test_every_single_bit_flip_is_refused(store: Store, finished: str) -> None:
    """Flip one bit at every 31st byte: each copy is refused with a BadLog, never another exception."""
    log = from_store(store, finished)
    good = archive.dumps(log)
    for offset in range(0, len(good), 31):
        data = bytearray(good)
        data[offset] ^= 1 << (offset % 8)
        with pytest.raises(BadLog) as refused:
            archive.loads(bytes(data), "x.pbmlog").check_integrity()
        assert str(refused.value).startswith("x.pbmlog")


def test_a_rules_version_this_pbm_does_not_play_is_named(store: Store, finished: str) -> None:
    log = from_store(store, finished)
    started = dict(log.envelopes[0].data, rules_version=99)
    envelopes = forge(log.envelopes, {0: {"data": started}})
    head = dict(archive.header(log), rules_version=99, last_hash=envelopes[-1].hash)
    data = archive.MAGIC_BYTES + codec.pack(head) + b"".join(e.encode() for e in envelopes)
    with pytest.raises(BadLog, match="seq 0: played under holly-oak rules version 99; this pbm plays version 1"):
        archive.loads(data, "old.pbmlog")


def test_a_header_naming_another_game_is_quoted_on_one_line(store: Store, finished: str) -> None:
    # The header is the file's text: a newline in it must not split the error (found by the fuzz
    # test of tests/reliability).
    log = from_store(store, finished)
    head = dict(archive.header(log), game="holly\noak")
    data = archive.MAGIC_BYTES + codec.pack(head) + b"".join(e.encode() for e in log.envelopes)
    with pytest.raises(BadLog) as refused:
        archive.loads(data, "x.pbmlog")
    assert "\n" not in str(refused.value) and "'holly\\noak'" in str(refused.value)


def test_a_file_is_a_msgpack_stream_with_its_header_first(store: Store, finished: str) -> None:
    data = archive.dumps(from_store(store, finished))
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    objects = list(unpacker)
    assert objects[0] == "pbm-replay"
    head = objects[1]
    assert (head["game"], head["rules_version"], head["events"], head["game_id"]) == ("holly-oak", 1, len(objects) - 2, finished)


def test_the_file_holds_the_disputes_beside_the_log_and_an_import_keeps_them(pbm, store: Store, games: Games, finished: str, tmp_path: Path) -> None:
    from events.disputes import Disputes, raise_dispute, settle

    first, second = tmp_path / "a.pbmlog", tmp_path / "b.pbmlog"
    settled, _ = raise_dispute(games, finished, 0, 2, "the lead was not mine to play")
    settle(games, finished, settled.id, "The lead was legal: seat 0 held the 1Sp.")
    opened, _ = raise_dispute(games, finished, 1, 5, "seat 2 could not follow suit?", command_id="<mail-id@players.test>")
    before = [d.to_json() for d in Disputes(store).all(finished)]
    pbm("replay", "export", finished, "-o", str(first))
    data = first.read_bytes()
    log = archive.loads(data)
    assert archive.header(log)["version"] == 2 and archive.header(log)["disputes"] == 2
    assert [d.to_json() for d in log.disputes] == before and b"mail-id@players.test" not in data
    audit = pbm("replay", "audit", str(first)).output
    assert "2 raised, 1 open" in audit and "The lead was legal" in audit and "could not follow suit" in audit

    drop(store, finished)
    store.redis.delete(keys.disputes(finished))
    store.redis.zrem(keys.DISPUTED, finished)
    pbm("replay", "import", str(first))
    assert [d.to_json() for d in Disputes(store).all(finished)] == before
    assert finished in Disputes(store).open_games()  # the open one is the operator's to settle again
    pbm("replay", "export", finished, "-o", str(second))
    assert second.read_bytes() == data
    pbm("replay", "import", str(first), "--replace")  # again: each dispute once
    assert [d.to_json() for d in Disputes(store).all(finished)] == before


def test_a_file_with_a_bad_dispute_is_refused_in_one_line(store: Store, finished: str) -> None:
    log = from_store(store, finished)
    good = {"id": "abc", "seat": 0, "seq": 3, "reason": "why", "raised_ms": 1, "note": None, "settled_ms": None}
    for wrong, said in (({**good, "seq": 10**6}, "names seq 1000000"), ({**good, "note": "ok"}, "a note without a time settled"),
                        ({**good, "seat": "0"}, "seat is str, not int"), ({"id": "abc"}, "is not a dispute")):
        data = archive.MAGIC_BYTES + codec.pack(archive.header(log) | {"version": 2, "disputes": 1}) + b"".join(log.raw) + codec.pack(wrong)
        with pytest.raises(BadLog, match=said) as refused:
            archive.loads(data, "bad.pbmlog")
        assert "\n" not in str(refused.value)
    missing = archive.MAGIC_BYTES + codec.pack(archive.header(log) | {"version": 2, "disputes": 2}) + b"".join(log.raw) + codec.pack(good)
    with pytest.raises(BadLog, match="truncated"):
        archive.loads(missing, "short.pbmlog")
