"""The games' rules notes for players, and their options as text: what `pbm rules`, `pbm games`
and the web's /rules page show. The notes are the Markdown files beside this module (package
data); this module only reads them. It must not import a front end (pbm.cli, pbm.web, pbm.mail).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import core


def notes(name: str) -> str:
    """A game's notes by its slug, `README` (what all games share) or `deals` (the deal formats)."""
    return (resources.files(__name__) / f"{name}.md").read_text(encoding="utf-8")


def deal_format(slug: str) -> str:
    """The game's row of the table in deals.md: what `--deal FILE.json` holds."""
    for line in notes("deals").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] == slug:
            return cells[1]
    return ""


def options(game: core.Game) -> list[dict[str, Any]]:
    return [{"name": name, "default": default, "help": game.option_help[name]} for name, default in game.options.items()]


def option_text(option: dict[str, Any]) -> str:
    default = option["default"]
    shown = ("true" if default else "false") if isinstance(default, bool) else repr(default)
    return f"`{option['name']}` (default {shown}): {option['help']}"
