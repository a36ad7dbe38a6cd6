"""`pbm disputes`: the disputes players raised (open ones across games, or every one of a game)
and the operator's settlement of one, which sends every seat the audit at its seq with the
operator's words (pbm.disputes). It prints a reason or a note only to the operator's terminal.
"""

from __future__ import annotations

from datetime import UTC, datetime

import click

from pbm.cli import emit_json, open_games, say


def when(time_ms: int) -> str:
    return datetime.fromtimestamp(time_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


@click.command()
@click.argument("game_id", metavar="[GAME]", required=False)
@click.option("--settle", "dispute_id", metavar="ID", help="Settle this dispute of GAME (with --note).")
@click.option("--note", help="Your words to every seat, sent with the audit at the dispute's seq.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def disputes(game_id: str | None, dispute_id: str | None, note: str | None, as_json: bool) -> None:
    """The open disputes of every game, or every dispute of GAME; --settle ID --note TEXT settles one."""
    from pbm import disputes as shared

    if (dispute_id is None) != (note is None) or (dispute_id is not None and game_id is None):
        raise click.UsageError("settle with GAME --settle ID --note TEXT")
    games = open_games()
    if dispute_id is not None:
        settled, told = shared.settle(games, game_id, dispute_id, note)
        if as_json:
            return emit_json({"game_id": game_id, "dispute": settled.to_json(), "told": told})
        return say(f"settled dispute {settled.id} of {game_id} (seq {settled.seq}): the audit goes to "
                   + (", ".join(f"seat {seat}" for seat in told) if told else "no seat (every seat was told before, or none can be reached)"))
    if game_id is None:
        found = shared.open_disputes(games)
    else:
        games.table(game_id)  # UnknownGame: one line
        found = [(game_id, dispute) for dispute in shared.Disputes(games.store).all(game_id)]
    if as_json:
        return emit_json({"disputes": [{"game_id": game, **dispute.to_json()} for game, dispute in found]})
    if not found:
        return say("no open disputes" if game_id is None else f"no disputes in {game_id}")
    for game, dispute in found:
        state = "open" if dispute.open else f"settled {when(dispute.settled_ms)}: {dispute.note}"
        say(f"{game} {dispute.id}: seat {dispute.seat} disputes seq {dispute.seq} ({when(dispute.raised_ms)}): {dispute.reason} [{state}]")
