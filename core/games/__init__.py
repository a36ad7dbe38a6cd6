"""The registry: slug -> Game, an explicit table (importing a game registers nothing). Pure."""

from core.contract import Game
from core.games import holidays

GAMES: dict[str, Game] = {game.slug: game for game in (holidays.GAME,)}
