"""What a turn mail says of the seat's moves (pbm.mail.notify.compose over real tables): patterns
with a few examples, never hundreds of moves, for every game; the bids with the least, the seat's
own money and what a bid may be."""

from __future__ import annotations

import random

import pytest

import core
from bench.random_moves import random_moves
from pbm.mail.notify import compose
from pbm.view_text import MOVES_SHOWN

MOST_LINES = MOVES_SHOWN + 1


def moves_block(text: str) -> list[str]:
    """The mail's lines about the seat's moves: from `your moves` to the blank line after it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("your moves"))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def listed_moves(line: str) -> list[str]:
    """The moves a line of patterns names: its examples, the moves it lists, or the move it is."""
    line = line.strip()
    if "e.g. " in line:
        return [move.strip() for move in line.split("e.g. ", 1)[1].split(",")]
    if ": " in line:
        return [move.strip() for move in line.split(": ", 1)[1].split(" | ")]
    return [line]


@pytest.mark.parametrize(("slug", "players"), [("holly-oak", 3), ("holidays", 3), ("holiday-board", 3), ("tranquility", 2)])
def test_every_turn_mail_lists_a_handful_of_lines_of_legal_examples(slug, players):
    table = core.new_table(slug, players=players, seed=8)
    long_lists = 0
    for n, (_table, seat, move) in enumerate(random_moves(table, random.Random(8))):
        if n % 3 == 0:
            legal = table.legal_moves(seat)
            block = moves_block(compose(table, [], "g-1", seat, "turn", report=[])["text"])
            assert len(block) <= MOST_LINES, block
            assert "--all" not in "\n".join(block)  # the CLI's flag: no use in a mail
            if len(legal) > MOVES_SHOWN:
                long_lists += 1
                assert block[0] == f"your moves ({len(legal)} in all):"
                named = [listed_moves(line) for line in block[1:] if not line.startswith("    ")]
                assert all(moves and set(moves) <= set(legal) for moves in named), block
            else:
                assert all(move in "\n".join(block) for move in legal)
        table.play(seat, move)
    if slug in ("holiday-board", "tranquility"):
        assert long_lists >= 3


def test_the_first_turn_of_tranquility_reads_as_five_patterns_not_190_moves():
    table = core.new_table("tranquility", players=2, seed=1)
    text = compose(table, [], "g-1", 0, "turn", report=[])["text"]
    block = moves_block(text)
    assert block[0] == f"your moves ({len(table.legal_moves(0))} in all):"
    assert [line.split(":")[0].strip() for line in block[1:] if not line.startswith("    ")] == ["play <card> <cell>", "discard <two cards>"]
    assert " at a1" not in text and text.count("play ") < 10


def test_a_bid_names_the_least_and_the_seats_own_money():
    table = core.new_table("holiday-board", players=3, seed=1)
    seat = table.to_act[0]
    block = moves_block(compose(table, [], "g-1", seat, "turn", report=[])["text"])
    assert block[1:] == [
        "  pass",
        f"  bid <amount>: {len(table.legal_moves(seat)) - 1} moves, e.g. bid 100, bid 600, bid 10000",
        "    ($100 (the least) to $30,000, in hundreds; you have $10,000)",
    ]
