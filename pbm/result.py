"""A finished game's result as a person reads it: the seats ranked, winner first, each score in its
game's own units ($9,300 in Holiday!, points elsewhere); a cooperative game's one result for the
whole team, with why it was lost. Pure and shared by every front end (the page, `pbm show`, mail,
`pbm list`): it formats core's outcome, it never decides who won, reads no log and imports no
front end.

    lines = result_lines("holly-oak", {"scores": [11, 16, 13], "winners": [1]})
    # ["seat 1 wins with 16 points.", "1. seat 1: 16 points (winner)", "2. seat 2: 13 points", ...]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

import core

Namer = Callable[[int], str]


def seat_number(seat: int) -> str:
    return f"seat {seat}"


def points(score: int) -> str:
    return f"{score} point" + ("" if score == 1 else "s")


def dollars(score: int) -> str:
    return f"${score:,}"


def cells(score: int) -> str:
    return f"{score} of 36 cells filled"


# A game's score in its own units; a game not named here counts points.
UNITS: Mapping[str, Callable[[int], str]] = {"holiday-board": dollars, "tranquility": cells}


def score_text(slug: str, score: int) -> str:
    return UNITS.get(slug, points)(score)


@attrs.frozen
class Place:
    place: int  # 1 for the best; seats with the same score and standing share a place
    seat: int
    score: int
    text: str  # the score in the game's units
    winner: bool


def ranked(slug: str, outcome: Mapping[str, Sequence[int]]) -> list[Place]:
    """The seats best first: the winners (core's outcome has already broken any tie), then by score."""
    scores, winners = list(outcome["scores"]), set(outcome["winners"])
    order = sorted(range(len(scores)), key=lambda s: (s not in winners, -scores[s], s))
    places: list[Place] = []
    for i, seat in enumerate(order):
        before = places[-1] if places else None
        same = before is not None and (before.winner, before.score) == (seat in winners, scores[seat])
        places.append(Place(before.place if same else i + 1, seat, scores[seat], score_text(slug, scores[seat]), seat in winners))
    return places


def is_cooperative(slug: str) -> bool:
    game = core.GAMES.get(slug)
    return bool(game and game.cooperative)


def headline(slug: str, outcome: Mapping[str, Sequence[int]], loss: str | None = None, name: Namer = seat_number) -> str:
    """One sentence: who won and with what (or, in a cooperative game, how the team did and why)."""
    scores, winners = outcome["scores"], list(outcome["winners"])
    if is_cooperative(slug):
        score = score_text(slug, scores[0]) if scores else ""
        if winners:
            return f"won together, {score}"
        return f"lost together: {loss}, {score}" if loss else f"lost together, {score}"
    if not winners:
        return "nobody won"
    best = score_text(slug, scores[winners[0]])
    if len(winners) == 1:
        who = name(winners[0])
        return f"{who} {'win' if who == 'you' else 'wins'} with {best}"
    return f"{and_list([name(s) for s in winners])} share the win with {best}"


def result_text(slug: str, outcome: Mapping[str, Sequence[int]], loss: str | None = None, name: Namer = seat_number) -> str:
    """The result on one line (a list's row, a mail's subject): the headline, then the others' scores."""
    text = headline(slug, outcome, loss, name)
    if is_cooperative(slug):
        return text
    rest = [p for p in ranked(slug, outcome) if not p.winner]
    return text + ("; then " + ", ".join(f"{name(p.seat)} with {p.text}" for p in rest) if rest else "")


def result_lines(slug: str, outcome: Mapping[str, Sequence[int]], loss: str | None = None, name: Namer = seat_number) -> list[str]:
    """The headline and, unless the team shares one result, one ranked line per seat."""
    lines = [headline(slug, outcome, loss, name) + "."]
    if not is_cooperative(slug):
        lines += [f"{p.place}. {name(p.seat)}: {p.text}" + (" (winner)" if p.winner else "") for p in ranked(slug, outcome)]
    return lines


def and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def of_view(view: Mapping[str, Any]) -> tuple[str, Mapping[str, Sequence[int]], str | None]:
    """(slug, outcome, loss) of a finished view, the arguments the functions above take."""
    return view["game"], view["outcome"], view.get("loss")
