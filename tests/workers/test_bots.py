"""The bots over the game contract, without Redis: legal, reproducible choices that never depend
on cards hidden from the seat; bot kinds and seats parsed with readable refusals; Wilson intervals."""

from __future__ import annotations

import random

import pytest

import core
from core.table import Table
from workers import analytics, bots

SLUGS = sorted(core.GAMES)


def positions(slug: str, count: int = 6) -> list[Table]:
    """Tables of `slug` at a few points of a random game, each waiting for someone."""
    game = core.GAMES[slug]
    table = core.new_table(slug, players=min(max(game.min_players, 3), game.max_players), seed=21)
    chooser = random.Random(slug)
    found = []
    while table.to_act and len(found) < count:
        seat = table.to_act[0]
        if len(table.legal_moves(seat)) > 1:
            found.append(core.replay_table(slug, list(table.events), seed=table.seed))
        for _ in range(chooser.randrange(1, 8)):
            if not table.to_act:
                break
            seat = table.to_act[0]
            table.play(seat, chooser.choice(table.legal_moves(seat)))
    return found


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("kind", ["random", "heuristic", "ismcts:12"])
def test_a_bot_plays_a_legal_move_reproducibly(slug: str, kind: str) -> None:
    for table in positions(slug):
        seat = table.to_act[0]
        first = bots.choose(kind, table, seat, bots.bot_random("g", table.seq, seat))
        again = bots.choose(kind, table, seat, bots.bot_random("g", table.seq, seat))
        assert first == again and first in table.legal_moves(seat)


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_a_bot_cannot_tell_hidden_cards_apart(slug: str, kind: str) -> None:
    game = core.GAMES[slug]
    for table in positions(slug):
        seat = table.to_act[0]
        redealt = game.determinize(table.state, seat, core.Rng(5, table.seq))
        other = Table(game, list(table.events), redealt, table.seed)
        assert table.view(seat) == other.view(seat)
        mine = bots.choose(kind, table, seat, bots.bot_random("g", table.seq, seat))
        theirs = bots.choose(kind, other, seat, bots.bot_random("g", table.seq, seat))
        assert mine == theirs


def test_bot_kinds_and_seats_are_parsed_or_refused_readably() -> None:
    assert bots.parse_seats(["0=random", "2=ismcts:50", "1=ismcts:1.5s"], 3) == {
        0: "random",
        2: "ismcts:50",
        1: "ismcts:1.5s",
    }
    for pairs, words in (
        (["0=chess"], "unknown bot kind"),
        (["3=random"], "seats 0 to 2"),
        (["1=random", "1=heuristic"], "given twice"),
        (["random"], "SEAT=KIND"),
        (["0=random:5"], "takes no budget"),
        (["0=ismcts:x"], "bad ismcts budget"),
        (["0=ismcts:0"], "bad ismcts budget"),
    ):
        with pytest.raises(core.SetupError, match=words):
            bots.parse_seats(pairs, 3)


def test_the_seed_of_a_bot_choice_is_game_seq_and_seat() -> None:
    draws = {bots.bot_random(g, q, s).random() for g in ("a", "b") for q in (1, 2) for s in (0, 1)}
    assert len(draws) == 8
    assert bots.bot_random("a", 1, 0).random() == bots.bot_random("a", 1, 0).random()


def test_wilson_interval() -> None:
    low, high = analytics.wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert analytics.wilson(0, 0) == (0.0, 1.0)
    low, high = analytics.wilson(100, 100)
    assert high == pytest.approx(1.0) and 0.96 < low < 0.97
