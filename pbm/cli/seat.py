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
@click.argument("seat", type=int, required=False)
@click.option("--url", "base_url", metavar="URL", help="The server's public address (default: PBM_PUBLIC_URL, else http://127.0.0.1:8000).")
@click.option("--email", metavar="ADDRESS", help="Tell the seat of its turns at this address from now on; it may answer them by mail.")
@click.option("--open", "join", is_flag=True, help="Print the game's join link instead (for its open seats).")
@click.option("--revoke", is_flag=True, help="With --open: the join link stops working.")
@AS_JSON
def invite(game_id: str, seat: int | None, base_url: str | None, email: str | None, join: bool, revoke: bool, as_json: bool) -> None:
    """Print a fresh link for SEAT of GAME (the seat's old link stops working at once), or with
    --open the game's join link, which lets visitors claim its open seats."""
    from pbm import seating

    if join or revoke:
        return invite_open(game_id, seat, base_url, email, revoke, as_json)
    if seat is None:
        raise click.UsageError("give a SEAT, or --open for the join link")
    games, seats = open_seats()
    link = seating.link(base_url, seating.reinvite(games, seats, game_id, seat, email=email))
    if as_json:
        return emit_json({"game_id": game_id, "seat": seat, "url": link})
    click.echo(link)


def invite_open(game_id: str, seat: int | None, base_url: str | None, email: str | None, revoke: bool, as_json: bool) -> None:
    from events.joining import Joins
    from pbm import joining

    if seat is not None or email is not None:
        raise click.UsageError("--open takes no SEAT or --email: the visitor picks a seat and gives their own")
    games, _seats = open_seats()
    games.table(game_id)  # UnknownGame: one line
    token = joining.invite(Joins(games.store.redis), game_id, revoke=revoke)
    url = None if token is None else joining.link(base_url, token)
    if as_json:
        return emit_json({"game_id": game_id, "join_url": url})
    click.echo(url or f"the join link of {game_id} is revoked")


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
