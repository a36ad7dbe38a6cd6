"""The registry: slug -> Game, an explicit table (importing a game registers nothing). Pure."""

from core.contract import Game
from core.games import holidays, holly_oak, holiday_board, tranquility

GAMES: dict[str, Game] = {game.slug: game for game in (holidays.GAME, holly_oak.GAME, holiday_board.GAME, tranquility.GAME,)}
