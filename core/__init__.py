"""pbm's pure core: the game contract, the games and the table API. No I/O, clock, randomness or
logging here or below (tests/test_purity.py checks the imports).

    import core
    t = core.new_table("holly-oak", players=4, seed=7)
    t.play(t.to_act[0], t.legal_moves(t.to_act[0])[0])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from core import table as _table
from core.contract import (
    BotsSeated,
    BrokenLog,
    ClockPaused,
    ClockResumed,
    ClockSet,
    DeadlineExtended,
    Game,
    GameStarted,
    IllegalMove,
    OptionValue,
    Outcome,
    SaltGiven,
    SaltsAwaited,
    SaltsClosed,
    SeedRevealed,
    SetupError,
    TurnTimedOut,
    VacationTaken,
)
from core.games import GAMES
from core.rng import Rng, commitment
from core.table import Table

__all__ = [
    "BotsSeated",
    "BrokenLog",
    "ClockPaused",
    "ClockResumed",
    "ClockSet",
    "DeadlineExtended",
    "GAMES",
    "Game",
    "GameStarted",
    "IllegalMove",
    "Outcome",
    "Rng",
    "SaltGiven",
    "SaltsAwaited",
    "SaltsClosed",
    "SeedRevealed",
    "SetupError",
    "Table",
    "TurnTimedOut",
    "VacationTaken",
    "commitment",
    "get_game",
    "new_table",
    "replay_table",
]


def get_game(slug: str) -> Game:
    try:
        return GAMES[slug]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise SetupError(f"unknown game {slug!r} (games: {known})") from None


def new_table(
    game: str,
    players: int,
    seed: int,
    deal: Mapping[str, Any] | None = None,
    options: Mapping[str, OptionValue] | None = None,
    salts: Iterable[str] = (),
    salt_seats: Iterable[int] = (),
) -> Table:
    """A new table of `game` for `players`, dealt from `seed` (or exactly as `deal` says); the
    players' `salts`, if any, are mixed with the seed into every random step. With `salt_seats`
    the opening deal waits for a salt from each of those seats, given after the seed's
    commitment (Table.salted; Table.closed_salts at the deadline)."""
    return _table.new_table(get_game(game), players, seed, deal=deal, options=options, salts=salts, salt_seats=salt_seats)


def replay_table(game: str, events: Iterable[Any], seed: int | None = None) -> Table:
    """The table those events make; with its seed (or once it is revealed) it can play on."""
    return _table.replay_table(get_game(game), events, seed=seed)
