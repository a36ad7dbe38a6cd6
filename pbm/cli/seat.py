"""`pbm invite` and `pbm seat`: the operator's seat commands on the server's machine (a seat's
fresh link; a seat handed to a bot or back), the same operations as the web API's (pbm.seating).
A printed link is the only place a token appears.
"""

from __future__ import annotations

import click

from pbm.cli import console, emit_json, open_games

AS_JSON = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


def open_seats():
    from events.seats import Seats

    games = open_games()
    return games, Seats(games.store.redis)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("seat", type=int)
@click.option("--url", "base_url", metavar="URL", help="The server's public address (default: PBM_PUBLIC_URL, else http://127.0.0.1:8000).")
@click.option("--email", metavar="ADDRESS", help="Tell the seat of its turns at this address from now on; it may answer them by mail.")
@AS_JSON
def invite(game_id: str, seat: int, base_url: str | None, email: str | None, as_json: bool) -> None:
    """Print a fresh link for SEAT of GAME; the seat's old link stops working at once."""
    from pbm import seating

    games, seats = open_seats()
    link = seating.link(base_url, seating.reinvite(games, seats, game_id, seat, email=email))
    if as_json:
        return emit_json({"game_id": game_id, "seat": seat, "url": link})
    click.echo(link)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("seat", type=int)
@click.option("--bot", "bot", metavar="KIND", help="Hand the seat to a bot: random, heuristic, ismcts[:BUDGET].")
@click.option("--person", is_flag=True, help="Hand the seat back to a person.")
@click.option("--url", "base_url", metavar="URL", help="The server's public address, for a new link.")
@AS_JSON
def seat(game_id: str, seat: int, bot: str | None, person: bool, base_url: str | None, as_json: bool) -> None:
    """Hand SEAT of GAME to a bot (--bot KIND) or back to a person (--person), from the next event on."""
    from pbm import seating

    if bool(bot) == person:
        raise click.UsageError("give --bot KIND or --person")
    games, seats = open_seats()
    token = seating.hand_over(games, seats, game_id, seat, bot)
    if as_json:
        return emit_json({"game_id": game_id, "seat": seat, "bot": bot, "url": None if token is None else seating.link(base_url, token)})
    console.print(f"seat {seat} of {game_id} is played by " + (f"a bot ({bot})" if bot else "a person"), highlight=False)
    if token is not None:
        click.echo(f"its link: {seating.link(base_url, token)}")
