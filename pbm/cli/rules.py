"""`pbm rules [GAME]`: a game's rules notes (summary, house decisions, notation), its options with
what each does, its deal format and example moves. The notes come from pbm.rules; this module
plays one random game in memory for the examples; it writes nothing.
"""

from __future__ import annotations

import random

import click

import core
from pbm.cli import console, emit_json
from pbm.rules import deal_format, notes, option_text, options

EXAMPLE_GAME_MOVES = 600  # enough for every kind of move to come up in each game's random game


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
