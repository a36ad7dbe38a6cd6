"""`pbm rules GAME` and `pbm games`: the rules notes ship with pbm, every option is explained, the
example moves are real moves in canonical notation, and the README points at notes that exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import core
from pbm.rules import notes

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("slug", list(core.GAMES))
def test_rules_print_the_notes_options_deal_and_examples(pbm, slug: str) -> None:
    game = core.GAMES[slug]
    out = pbm("rules", slug).stdout
    assert notes(slug).strip().splitlines()[0] in out and "## Notation" in out
    for name, help_text in game.option_help.items():
        assert f"`{name}`" in out and help_text in out
    rules = json.loads(pbm("rules", slug, "--json").stdout)
    assert rules["deal"] and rules["deal"] in out
    assert rules["example_moves"]
    for move in rules["example_moves"]:
        assert str(game.parse_move(move)) == move and f"`{move}`" in out


def test_every_option_of_every_game_is_explained_by_pbm_games(pbm) -> None:
    rows = json.loads(pbm("games", "--json").stdout)
    assert {row["slug"] for row in rows if row["options"]} == {"holiday-board", "tranquility"}
    out = pbm("games").stdout
    for row in rows:
        assert set(row["option_help"]) == set(row["options"])
        for help_text in row["option_help"].values():
            assert help_text in out


def test_rules_of_an_unknown_game_is_one_line(pbm) -> None:
    result = pbm("rules", "chess", ok=False)
    assert "unknown game 'chess'" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_readme_points_at_rules_notes_in_the_repo() -> None:
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\((pbm/rules/[^)]*)\)", readme)
    assert "pbm/rules/deals.md" in links
    assert all((ROOT / link).exists() for link in links)
    assert "rules notes" in readme
    for slug in core.GAMES:
        assert (ROOT / "pbm" / "rules" / f"{slug}.md").is_file()


# Working notes are for developers (docs/rules/): a player reading the rules meets none of them.
WORKING_NOTES = (
    "seed file", "seed text", "the seed is", "the seed's", "seed 00", ".txt", "house", "rulebook is silent",
    "core/", "holiday-board.json", "data table", "was not found", "is a default", "docstring", "keep it as", "keep each",
    "the engine", "follow it", "load the board", "canonical", "format(parse",
)


def player_texts(pbm) -> dict[str, str]:
    from pbm.web.render import render_page

    texts = {"pbm rules": pbm("rules").stdout, "README": notes("README"), "deals": notes("deals")}
    for slug in core.GAMES:
        texts[f"pbm rules {slug}"] = pbm("rules", slug).stdout
        table = core.new_table(slug, players=core.GAMES[slug].min_players, seed=1)
        page = render_page(table.view(0), game_id="g", options=dict(table.started.options), names=["Ann"], report=[],
                           story=[], base_path="/play/t", static="/static", csrf="c")
        texts[f"page {slug}"] = page[page.index('<details class="notation">') :]
    return texts


def test_no_player_facing_rules_text_carries_working_notes(pbm) -> None:
    found = {(where, phrase) for where, text in player_texts(pbm).items() for phrase in WORKING_NOTES if phrase in text.lower()}
    assert found == set()


def test_the_working_notes_are_kept_for_developers() -> None:
    for name in ("README", *core.GAMES):
        text = (ROOT / "docs" / "rules" / f"{name}.md").read_text()
        assert "house" in text.lower()
    assert "seed file" in (ROOT / "docs" / "rules" / "README.md").read_text()
