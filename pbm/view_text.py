"""The text rendering of a game's view, shared by every front end that prints one (the CLI, mail).
It reads a view dict (core's Table.view) and prints or returns text; it reads no log.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table as RichTable

from pbm.cli import console


def seats_text(seats: list[int]) -> str:
    return ", ".join(f"seat {s}" for s in seats) or "nobody"


COMMON_KEYS = ("game", "seq", "seat", "to_act", "legal_moves", "outcome", "hand")


def render_view(game_id: str, view: dict[str, Any]) -> None:
    who = "spectator" if view["seat"] is None else f"seat {view['seat']}"
    console.print(f"[bold]{game_id}[/] ({view['game']}) at event {view['seq']}, as {who}")
    details = RichTable(show_header=False, box=None, padding=(0, 2, 0, 0))
    for key, value in view.items():
        if key not in COMMON_KEYS:
            details.add_row(key.replace("_", " "), plain(value))
    console.print(details)
    if "hand" in view and view["seat"] is not None:
        console.print(f"[bold]your hand:[/] {' '.join(view['hand']) or '(empty)'}")
    if view["outcome"] is not None:
        console.print(f"[bold green]game over:[/] {outcome_text(view['outcome'])}")
        return
    console.print(f"[bold]to act:[/] {seats_text(view['to_act'])}")
    if view["legal_moves"]:
        console.print(f"[bold]your moves:[/] {' | '.join(view['legal_moves'])}", highlight=False)


def plain(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(plain(item) for item in value) if value else "-"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {plain(v)}" for k, v in value.items()) or "-"
    return "-" if value is None else str(value)


def outcome_text(outcome: dict[str, list[int]]) -> str:
    scores = ", ".join(f"seat {s}: {score}" for s, score in enumerate(outcome["scores"]))
    winners = seats_text(outcome["winners"]) if outcome["winners"] else "nobody"
    return f"won by {winners} ({scores})"
