"""`pbm salt`: a seat's salt for a deal that waits for one, given at the terminal, or the salts
closed by the operator (the deadline's work, by hand). Through the command path; it never prints
a salt back.
"""

from __future__ import annotations

import secrets

import click

from pbm.cli import emit_json, open_games, say


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("text", required=False)
@click.option("--as", "seat", type=int, help="The seat whose salt it is.")
@click.option("--close", is_flag=True, help="Close the salts as they stand and deal (the seats that sent none are salted from the committed seed).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def salt(game_id: str, text: str | None, seat: int | None, close: bool, as_json: bool) -> None:
    """Give SEAT's salt (TEXT, or one made here at random) to GAME's opening deal, or --close."""
    if close == (seat is not None) or (close and text is not None):
        raise click.UsageError("give --as SEAT [TEXT], or --close")
    games = open_games()
    if close:
        done = games.close_salts(game_id)
    else:
        done = games.give_salt(game_id, seat, secrets.token_hex(16) if text is None else text)
    table = games.table(game_id)
    waiting = list(table.waiting_for_salts)
    if as_json:
        return emit_json({"game_id": game_id, "seq": done.seq, "dealt": not waiting, "waiting_for_salts": waiting})
    if close:  # what the close did, as the log tells it (the silent seats salted from the seed)
        return say(table.narrate(None, start=done.seq)[0][1])
    say("dealt: every salt is in" if not waiting else "the deal waits for " + ", ".join(f"seat {s}" for s in waiting))
