"""The golden logs (tests/golden/<game>/*.pbmlog): recorded games whose replays must not change.

Each file must still read, verify (re-adjudicated by today's rules), rebuild to the outcome and
final views stored beside it, and re-export to the same bytes. A failure here means a change of
behaviour: give the game a new rules version (old logs are then refused by name) and regenerate
with tests/golden/regenerate.py --force.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core
from replays import archive
from replays.verify import verify

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
FILES = sorted(GOLDEN.glob("*/*" + archive.SUFFIX))


def test_there_are_golden_logs_for_holly_oak() -> None:
    assert len([f for f in FILES if f.parent.name == "holly-oak"]) >= 3


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_a_golden_log_replays_as_it_was_played(path: Path) -> None:
    if path.parent.name not in core.GAMES:
        pytest.skip(f"{path.parent.name} is not a registered game")
    want = json.loads(path.with_suffix(".json").read_text())
    log = archive.read(path)
    assert (log.game_id, log.game.slug, len(log.events)) == (want["game_id"], want["game"], want["events"])
    assert log.envelopes[-1].hash.hex() == want["last_hash"]
    report = verify(log)
    assert report.ok, "\n".join(report.lines())
    table = log.table()
    assert table.outcome.to_dict() == want["outcome"]
    got = {"public": table.view(None), **{str(seat): table.view(seat) for seat in range(log.started.players)}}
    assert json.loads(json.dumps(got)) == want["views"]
    assert archive.dumps(log) == path.read_bytes()
    assert core.replay_table(log.game.slug, log.events).state == table.state
