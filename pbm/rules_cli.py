"""`pbm rules [GAME]`: a game's rules notes (summary, house decisions, notation), its options with
what each does, its deal format and example moves. The notes are package data under pbm/rules/;
this module reads them and plays one random game in memory for the examples; it writes nothing.
"""

from __future__ import annotations

import random
from importlib import resources
from typing import Any

import click

import core
from pbm.cli import console, emit_json

EXAMPLE_GAME_MOVES = 600  # enough for every kind of move to come up in each game's random game


def notes(name: str) -> str:
    return (resources.files("pbm") / "rules" / f"{name}.md").read_text(encoding="utf-8")


def deal_format(slug: str) -> str:
    """The game's row of the table in deals.md: what `--deal FILE.json` holds."""
    for line in notes("deals").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] == slug:
            return cells[1]
    return ""


def example_moves(slug: str) -> list[str]:
    """Moves as typed, from one random game in memory: per first word, one example of each length
    (so `play 23 c2` and `play 23 c2 discard 5 17` both show)."""
    table = core.new_table(slug, core.GAMES[slug].min_players, seed=1)
    chooser = random.Random(1)
    found: dict[tuple[str, int], str] = {}
    for _ in range(EXAMPLE_GAME_MOVES):
        if not table.to_act:
            break
        seat = table.to_act[0]
        moves = table.legal_moves(seat)
        for move in moves:
            found.setdefault((move.split()[0], len(move.split())), move)
        table.play(seat, chooser.choice(moves))
    return sorted(found.values())


def options(game: core.Game) -> list[dict[str, Any]]:
    return [{"name": name, "default": default, "help": game.option_help[name]} for name, default in game.options.items()]


def option_text(option: dict[str, Any]) -> str:
    default = option["default"]
    shown = ("true" if default else "false") if isinstance(default, bool) else repr(default)
    return f"`{option['name']}` (default {shown}): {option['help']}"


@click.command()
@click.argument("slug", metavar="GAME", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules(slug: str | None, as_json: bool) -> None:
    """A game's rules, house decisions, notation and options (no GAME: what all games share)."""
    if slug is None:
        if as_json:
            return emit_json({"notes": notes("README"), "games": list(core.GAMES)})
        return console.print(notes("README"), markup=False, highlight=False, soft_wrap=True)
    game = core.get_game(slug)
    output = {
        "game": slug,
        "title": game.title,
        "players": [game.min_players, game.max_players],
        "notes": notes(slug),
        "options": options(game),
        "deal": deal_format(slug),
        "example_moves": example_moves(slug),
    }
    if as_json:
        return emit_json(output)
    option_lines = [f"- {option_text(option)}" for option in output["options"]] or ["This game has no options."]
    sections = [
        output["notes"].rstrip(),
        "## Options (pbm new GAME --option NAME=VALUE)\n" + "\n".join(option_lines),
        f"## Deal file (pbm new {slug} --deal FILE.json)\n{output['deal']}",
        "## Example moves (from a random game)\n" + "\n".join(f"- `{move}`" for move in output["example_moves"]),
    ]
    console.print("\n\n".join(sections), markup=False, highlight=False, soft_wrap=True)
