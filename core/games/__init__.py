"""The registry: slug -> Game, an explicit table of slug -> package. Pure.

Importing a game registers nothing; its package is imported the first time its slug is looked up,
so a command about one game loads only that game's rules (each game costs tens of milliseconds of
start-up, paid by every `pbm` command). Listing the slugs imports nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from core.contract import Game

PACKAGES = {
    "holly-oak": "core.games.holly_oak",
    "holidays": "core.games.holidays",
    "holiday-board": "core.games.holiday_board",
    "tranquility": "core.games.tranquility",
}


class Registry(Mapping[str, Game]):
    """A read-only mapping slug -> Game that imports a game's package on first lookup."""

    def __init__(self, packages: Mapping[str, str]) -> None:
        self._packages = dict(packages)
        self._games: dict[str, Game] = {}

    def __getitem__(self, slug: str) -> Game:
        game = self._games.get(slug)
        if game is None:
            game = self._games[slug] = importlib.import_module(self._packages[slug]).GAME
            if game.slug != slug:
                raise TypeError(f"{self._packages[slug]} registers {game.slug!r}, listed as {slug!r}")
        return game

    def __contains__(self, slug: object) -> bool:
        return slug in self._packages

    def __iter__(self) -> Iterator[str]:
        return iter(self._packages)

    def __len__(self) -> int:
        return len(self._packages)


GAMES = Registry(PACKAGES)
