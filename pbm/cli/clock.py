"""`pbm clock`: a game's clock for the operator on the server's machine (show, pause, resume,
extend) and a seat's vacation, the same operations as the web API's (pbm.clock_control).
"""

from __future__ import annotations

import click

from pbm.cli import emit_json, open_games, say

ACTIONS = ("show", "pause", "resume", "extend", "vacation")


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("action", type=click.Choice(ACTIONS), default="show")
@click.argument("amount", required=False, metavar="[DURATION|DAYS]")
@click.option("--seat", type=int, help="extend: only this seat's turn; vacation: whose.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def clock(game_id: str, action: str, amount: str | None, seat: int | None, as_json: bool) -> None:
    """Show or change GAME's clock: pause, resume, extend DURATION (e.g. 12h), vacation DAYS --seat S."""
    from core import SetupError
    from core.bounds import parse_int
    from pbm import clock_control

    games = open_games()
    if action in ("extend", "vacation") and amount is None:
        raise click.UsageError(f"{action} takes " + ("a DURATION (e.g. 12h)" if action == "extend" else "DAYS and --seat"))
    if action not in ("extend", "vacation") and amount is not None:
        raise click.UsageError(f"{action} takes no {amount!r}")
    if action == "show":
        described = clock_control.describe(games, game_id)
    elif action == "pause":
        described = clock_control.pause(games, game_id)
    elif action == "resume":
        described = clock_control.resume(games, game_id)
    elif action == "extend":
        described = clock_control.extend(games, game_id, amount, seat)
    else:
        if seat is None:
            raise click.UsageError("vacation needs --seat")
        described = clock_control.take_vacation(games, game_id, seat, parse_int(amount, "vacation days"))
    if described is None:
        raise SetupError(f"game {game_id} has no clock: give it a deadline when it is created (--deadline 48h)")
    if as_json:
        return emit_json(described)
    say(*lines(game_id, described))


def lines(game_id: str, described: dict) -> list[str]:
    out = [f"{game_id}: {described['deadline']} a move" + (", paused since " + described["paused_since"] if described["paused"] else "")]
    for row in described["seats"]:
        parts = [f"seat {row['seat']}:"]
        if row["to_act"]:
            parts.append("due " + (row["due"] or "(paused)"))
        if row["on_vacation_until"]:
            parts.append(f"on vacation until {row['on_vacation_until']}")
        parts.append(f"{row['vacation_days_left']} vacation days left")
        if row["timeouts_in_a_row"]:
            parts.append(f"{row['timeouts_in_a_row']} timeouts in a row")
        out.append("  " + " ".join(parts[:1]) + " " + ", ".join(parts[1:]))
    return out
