"""Fixtures for the replay tests: games played to a point through the real command path, and the
`pbm` command line against the test Redis."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from bench.random_moves import random_moves
from events.commands import Games
from events.envelope import GENESIS, Envelope


def play_random(games: Games, game_id: str, chooser_seed: int = 0, moves: int | None = None) -> None:
    """Seeded random legal moves (each with a command id) until the end, or `moves` of them. The
    golden logs are played with it too (tests/golden/regenerate.py)."""
    drawn = random_moves(lambda: games.table(game_id), random.Random(chooser_seed))
    for table, seat, move in itertools.islice(drawn, moves):
        games.submit(game_id, seat, move, command_id=f"{game_id}-{table.seq}")


@pytest.fixture
def finished(games: Games, game_id: str) -> str:
    """A finished 3-player Holly Oak game (its seed revealed)."""
    games.create("holly-oak", 3, seed=11, game_id=game_id)
    play_random(games, game_id, chooser_seed=3)
    return game_id


def forge(envelopes: list[Envelope], changes: dict[int, dict[str, Any]]) -> list[Envelope]:
    """A forger's copy: envelope fields changed at some seqs ({seq: {field: value}}) and every hash
    from there on sealed again, so the chain itself is intact and only deeper checks can tell."""
    out: list[Envelope] = []
    prev = GENESIS
    for env in envelopes:
        env = env.replace(prev=prev, **changes.get(env.seq, {}))
        env = env.replace(hash=env.expected_hash())
        out.append(env)
        prev = env.hash
    return out
