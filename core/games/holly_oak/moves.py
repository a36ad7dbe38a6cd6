"""Holly Oak's moves as a message lists them (core/menus.py): `play <card>`, one card of the hand.
Pure. A hand is a handful of cards, so the page offers them as they are (the hand's buttons).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.menus import Pattern, patterns as by_pattern


def patterns(view: Mapping[str, Any]) -> list[Pattern]:
    return by_pattern(view["legal_moves"], lambda move: "play <card>" if move.startswith("play ") else move)
