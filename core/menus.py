"""A seat's legal moves as a person can use them: a few steps of a few choices each (the page), and
patterns with a few examples (mail, the CLI). One piece for every front door; each game says only
how its moves divide (core/games/<game>/moves.py, registered as the Game's `moves`). Pure: it reads
move texts and a view, and returns plain values; it renders nothing.

    steps:    Tranquility's 180 placements are a card (5 to choose from), then a cell, then a payment
    patterns: "play <card> <cell>: 34 moves, e.g. play 28 b3, play 41 d4, play 80 f6"

A step offers the distinct values its moves have at that step; a step where every move still open
has the same value is passed over, and once a handful of moves is left they are offered as they
are. So every legal move is reached by some path of choices, and no other move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

HANDFUL = 6  # the most choices (or moves) one step offers
EXAMPLES = 3  # the examples a pattern shows
CHOICE_CHARS = 40  # a choice longer than any value of any game's step: refused, not looked up


class BadChoice(ValueError):
    """A choice that fits none of the seat's moves (an old link, a typed URL). The text is for players."""


@attrs.frozen
class Step:
    """One choice on the way to a move. `value(move)` is the move's choice at this step, "" for a
    move that has none here; `label(value)` how a value reads. `board`: the game's picture offers
    the choices (Tranquility's cells on its sea) rather than the list of moves."""

    key: str  # the choice's name in the page's URL: ?card=18
    prompt: str
    value: Callable[[str], str]
    label: Callable[[str], str] = str
    board: bool = False


@attrs.frozen
class Option:
    """A value to choose at a step: how many moves it leaves, and the move itself when it leaves one
    (then choosing it is playing it)."""

    value: str
    label: str
    count: int
    move: str | None


@attrs.frozen
class Position:
    """Where a seat stands on the way to a move: its choices so far (in the order of the steps, the
    steps passed over left out), the step to take now with its options, or (step None) the few
    moves left, to be played as they are."""

    chosen: tuple[tuple[str, str], ...]
    step: Step | None
    options: tuple[Option, ...]
    moves: tuple[str, ...]


def narrow(moves: Sequence[str], steps: Sequence[Step], chosen: Mapping[str, str]) -> Position:
    """The position after the choices `chosen` (step key -> value; keys of no step are not read).
    BadChoice when a choice fits none of the moves still open: the message names it."""
    left = list(moves)
    taken: list[tuple[str, str]] = []
    for step in steps:
        if step.key not in chosen:
            continue
        value = chosen[step.key]
        kept = [move for move in left if len(value) <= CHOICE_CHARS and step.value(move) == value]
        if not kept:
            raise BadChoice(f"no move of yours goes with {step.key} {value[:CHOICE_CHARS]!r}: pick again")
        left, taken = kept, taken + [(step.key, value)]
    for step in steps:
        if step.key in chosen:
            continue
        groups: dict[str, list[str]] = {}
        for move in left:
            groups.setdefault(step.value(move), []).append(move)
        # A handful of moves left is offered as it is, unless a step tells each from the others
        # (then its options are the moves, each drawn as the step draws it: "pay with 19, 22").
        if len(groups) == 1:
            continue  # nothing to choose here: passed over
        if len(left) > HANDFUL or len(groups) == len(left):
            options = tuple(
                Option(value, step.label(value), len(group), group[0] if len(group) == 1 else None) for value, group in groups.items()
            )
            return Position(tuple(taken), step, options, tuple(left))
        break
    return Position(tuple(taken), None, (), tuple(left))


def reachable(moves: Sequence[str], steps: Sequence[Step], chosen: Mapping[str, str] | None = None) -> list[str]:
    """Every move some path of choices from `chosen` on ends at (the tests' check of `narrow`)."""
    at = narrow(moves, steps, chosen or {})
    if at.step is None:
        return list(at.moves)
    found: list[str] = []
    for option in at.options:
        found += [option.move] if option.move else reachable(moves, steps, {**(chosen or {}), at.step.key: option.value})
    return found


@attrs.frozen
class Pattern:
    """Moves of one shape: `text` stands for all of them ("play <card> <cell>"), `examples` a few,
    `note` what the pattern's words may be ("from $2,900 (the least) to $9,300, in hundreds")."""

    text: str
    moves: tuple[str, ...]
    examples: tuple[str, ...]
    note: str = ""


def spread(moves: Sequence[str], count: int = EXAMPLES) -> tuple[str, ...]:
    """`count` moves from across `moves`: the first, the last and evenly between."""
    if len(moves) <= count:
        return tuple(moves)
    return tuple(moves[round(i * (len(moves) - 1) / (count - 1))] for i in range(count))


def patterns(
    moves: Sequence[str],
    pattern_of: Callable[[str], str],
    examples: Callable[[str, Sequence[str]], tuple[tuple[str, ...], str]] | None = None,
) -> list[Pattern]:
    """The moves by pattern, in the order each pattern first appears. `pattern_of(move)` names a
    move's pattern; `examples(pattern, its moves)` picks the examples and the note (default: spread
    out, no note)."""
    groups: dict[str, list[str]] = {}
    for move in moves:
        groups.setdefault(pattern_of(move), []).append(move)
    found = []
    for text, group in groups.items():
        shown, note = examples(text, group) if examples else (spread(group), "")
        found.append(Pattern(text, tuple(group), shown, note))
    return found


def by_first_word(move: str) -> str:
    """The pattern of a game that names none: its first word, and `...` for the rest."""
    head, _, rest = move.partition(" ")
    return f"{head} ..." if rest else head


def position(game: Any, view: Mapping[str, Any], chosen: Mapping[str, str]) -> Position | None:
    """Where `view`'s seat stands after `chosen` among the moves `game` steps (BadChoice as
    `narrow`); None for a game whose moves are few enough to offer as they are."""
    moves = getattr(game, "moves", None)
    if moves is None or not hasattr(moves, "steps"):
        return None
    return narrow(moves.stepped(view), moves.steps(view), chosen)


def patterns_of(game: Any, view: Mapping[str, Any]) -> list[Pattern]:
    """`view`'s legal moves by pattern, as `game` names them."""
    moves = getattr(game, "moves", None)
    if moves is None:
        return patterns(view["legal_moves"], by_first_word)
    return moves.patterns(view)
