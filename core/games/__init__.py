"""The registry: slug -> Game, an explicit table (importing a game registers nothing). Pure."""

from core.contract import Game
from core.games import holiday_board, holidays, holly_oak, tranquility

GAMES: dict[str, Game] = {
    game.slug: game for game in (holly_oak.GAME, holidays.GAME, holiday_board.GAME, tranquility.GAME)
}
