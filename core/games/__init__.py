"""The registry: slug -> Game, an explicit table (importing a game registers nothing). Pure."""

from core.contract import Game

GAMES: dict[str, Game] = {}
