"""Mutated replay files and move texts (hypothesis): a changed file is refused with one line or
fails verify, never read as honest and never a traceback; a changed move text is refused with one
line and changes nothing, or names a legal move. The judges are bench/chaos.py's."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core
from bench import chaos
from events.commands import Games
from events.store import Store
from replays import archive

FUZZ = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def mutation(size: int):
    """(kind, where, how long, bytes): overwrite, cut, insert, delete or repeat a slice."""
    return st.tuples(
        st.sampled_from(["overwrite", "cut", "insert", "delete", "repeat"]),
        st.integers(0, size - 1),
        st.integers(1, 300),
        st.binary(min_size=1, max_size=8),
    )


def apply(data: bytes, change) -> bytes:
    kind, at, length, blob = change
    end = min(len(data), at + length)
    if kind == "overwrite":
        return data[:at] + blob + data[at + len(blob) :]
    if kind == "cut":
        return data[:at]
    if kind == "insert":
        return data[:at] + blob + data[at:]
    if kind == "delete":
        return data[:at] + data[end:]
    return data[:end] + data[at:end] + data[end:]


def test_mutated_replay_files_are_refused_or_fail_verify(store: Store, pbm, tmp_path: Path) -> None:
    good = chaos.finished_log(store, seed=5)
    data = archive.dumps(good)
    seen = set()

    @FUZZ
    @given(st.lists(mutation(len(data)), min_size=1, max_size=3))
    def check(changes) -> None:
        mutated = data
        for change in changes:
            mutated = apply(mutated, change)
        verdict = chaos.judge_replay_file(good, mutated)
        seen.add(verdict)
        assert verdict != "ACCEPTED"
        if verdict != "same":  # and the command line says so in a line, with no traceback
            path = tmp_path / "mutated.pbmlog"
            path.write_bytes(mutated)
            result = pbm("replay", "verify", str(path), ok=False)
            assert "Traceback" not in result.output

    check()
    assert "refused" in seen


def test_mutated_move_texts_are_refused_in_one_line_or_name_a_legal_move(games: Games) -> None:
    playing = {slug: games.create(slug, core.GAMES[slug].min_players, seed=3) for slug in core.GAMES}
    seen = set()

    @FUZZ
    @given(st.sampled_from(sorted(playing)), st.integers(0, 2**32), st.text(max_size=30), st.booleans())
    def check(slug, pick, noise, mangled) -> None:
        # The game moves on as texts are played: what to mangle is picked from `pick` here, so the
        # data hypothesis draws does not depend on the position.
        chooser = random.Random(pick)
        if not games.table(playing[slug]).to_act:
            playing[slug] = games.create(slug, core.GAMES[slug].min_players, seed=pick)
        table = games.table(playing[slug])
        seat = table.to_act[0] if chooser.random() < 0.8 else chooser.randrange(table.players)
        text = chaos.mangle(chooser.choice(table.legal_moves(table.to_act[0])), chooser) if mangled else noise
        seen.add(chaos.judge_move_text(games, playing[slug], seat, text))

    check()
    assert seen == {"refused", "played"}
