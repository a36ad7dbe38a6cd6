"""The HTML part of a mail pbm sends a seat: the text part's own lines drawn as HTML (a Jinja2
template, templates/message.html), so both parts say the same; the seat's hand drawn as cards in
their colours, its page's link as a "Play now" button. It adds no word the text part lacks beyond
those labels, no script and no remote image (every style is inline: mail readers drop style
sheets), and its only links are the text's own. Pure: lines in, HTML out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
URL = re.compile(r"https?://[^\s<>\"')]+")
HAND = "your hand: "
PAGE = ("Your page: ", "Play now: ")
# A card's colour as the seat's page draws it (pbm/web/static/page.css), by the game's card text.
SEASONS = {"Sp": "#2f8a3c", "Su": "#a86a00", "Fa": "#b4441c", "Wi": "#2b67ad", "SR": "#6d4aa6"}
TRAVELLERS = {"M": "#2b67ad", "W": "#b8324b", "C": "#2f8a3c"}
PLAIN = "#1f2328"


def card_colour(game: str, card: str) -> str:
    """The colour of one card of `game`'s hand, as its text is written (1Sp, W7, 29, cairo@thu)."""
    if game == "holly-oak":
        return SEASONS.get(card if card == "SR" else card[-2:], PLAIN)
    if game == "holidays":
        return TRAVELLERS.get(card[:1], PLAIN)
    if game == "tranquility":
        return {"start": "#2f8a3c", "finish": "#8e2f2f"}.get(card, "#6b5310")
    return "#1c5f8c"


def pieces(text: str) -> list[dict[str, str]]:
    """A line cut into its text and its links, as the template draws them."""
    out, at = [], 0
    for match in URL.finditer(text):
        out += [{"text": text[at : match.start()]}, {"link": match.group(0)}]
        at = match.end()
    return out + [{"text": text[at:]}]


def blocks(lines: Sequence[str], game: str, hand: Sequence[str] | None) -> list[dict[str, Any]]:
    """The text's lines in blocks (a blank line ends one), each drawn by its kind: `table` (lines
    aligned in columns: kept monospace), `list` (a heading line ending in ':' over indented lines),
    `hand`, `play` (the page's link), else `text`."""
    found: list[dict[str, Any]] = []
    paragraph: list[str] = []

    def close() -> None:
        if not paragraph:
            return
        indented = [line for line in paragraph if line.startswith("  ")]
        if indented and any("  " in line.strip() for line in indented):
            found.append({"kind": "table", "lines": list(paragraph)})
        elif indented and len(indented) == len(paragraph) - 1 and paragraph[0].endswith(":"):
            found.append({"kind": "list", "title": pieces(paragraph[0]), "entries": [pieces(line.strip()) for line in indented]})
        else:
            found.append({"kind": "text", "lines": [pieces(line) for line in paragraph]})
        paragraph.clear()

    for line in lines:
        if not line.strip():
            close()
        elif line.startswith(HAND) and hand:
            close()
            found.append({"kind": "hand", "cards": [{"text": card, "colour": card_colour(game, card)} for card in hand]})
        elif line.startswith(PAGE) and URL.search(line):
            close()
            found.append({"kind": "play", "label": line.split(":", 1)[0], "link": URL.search(line).group(0), "rest": URL.split(line, 1)[1].strip()})
        else:
            paragraph.append(line)
    close()
    return found


def html_part(subject: str, lines: Sequence[str], game: str, hand: Sequence[str] | None = None) -> str:
    """The mail's HTML alternative of its text `lines` (the seat's `hand` of `game` in colour)."""
    return environment.get_template("message.html").render(subject=subject, blocks=blocks(lines, game, hand))
