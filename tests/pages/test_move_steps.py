"""The seat's move panel a person can use, over random playouts of the four games (rendered in
process, as test_pictures.py does): at every step towards a move the panel lists at most a
handful of entries, and the moves reachable through the page's steps (links carrying the choices
so far) and its forms are exactly the seat's legal moves."""

from __future__ import annotations

import random

import pytest

import core
from bench.random_moves import random_moves
from core import menus
from pbm.web.render import render_page
from tests.pages.forms import walk

PANEL_MOST = 8  # a handful of moves or choices, "choose again" and one form of the hand's cards
# (game, players, options, positions checked: every nth of a random game)
PLAYOUTS = [
    ("holly-oak", 3, {}, 1),
    ("holidays", 3, {}, 1),
    ("holiday-board", 3, {}, 1),
    ("holiday-board", 3, {"open_destinations": True}, 2),
    ("tranquility", 2, {}, 2),
    ("tranquility", 1, {}, 2),
]


def render(table: core.Table, seat: int, chosen: dict[str, str]) -> str:
    return render_page(
        table.view(seat),
        game_id="g",
        options=dict(table.started.options),
        names=["Ann"] + [None] * (table.players - 1),
        report=[],
        story=[],
        base_path="/play/g/g/0",
        static="/static",
        csrf="c",
        chosen=chosen,
    )


def canonical(game: core.Game, text: str) -> str:
    return str(game.parse_move(text))


@pytest.mark.parametrize(("slug", "players", "options", "every"), PLAYOUTS)
def test_every_step_lists_a_handful_and_the_steps_reach_exactly_the_legal_moves(slug, players, options, every):
    game = core.GAMES[slug]
    checked = stepped = 0
    for seed in (1, 2):
        table = core.new_table(slug, players=players, seed=seed, options=options)
        for n, (_table, seat, move) in enumerate(random_moves(table, random.Random(seed))):
            if n % every == 0:
                legal = {canonical(game, text) for text in table.legal_moves(seat)}
                pages = walk(lambda chosen: render(table, seat, chosen))
                reached: set[str] = set()
                for chosen, page in pages:
                    assert page.panel_entries <= PANEL_MOST, (chosen, page.panel_entries)
                    assert page.unnamed == []
                    assert all(form.hidden["expected_seq"] == str(table.seq) for form in page.forms)
                    for form in page.forms:
                        reached |= {canonical(game, text) for text in form.every_move()}
                assert reached == legal, (sorted(legal - reached)[:5], sorted(reached - legal)[:5])
                checked += 1
                stepped += len(pages) > 1
            table.play(seat, move)
    assert checked >= 10
    if slug == "tranquility":
        assert stepped >= 10  # the placements were picked by steps, not listed


@pytest.mark.parametrize("slug", list(core.GAMES))
def test_the_steps_of_core_reach_every_stepped_move_once_with_a_handful_of_options_a_step(slug):
    game = core.GAMES[slug]
    table = core.new_table(slug, players=min(game.max_players, 3), seed=4)
    for _table, seat, move in random_moves(table, random.Random(4)):
        view = table.view(seat)
        at = menus.position(game, view, {})
        if at is not None:
            moves = game.moves.stepped(view)
            assert sorted(menus.reachable(moves, game.moves.steps(view))) == sorted(moves)
            if at.step is not None and not at.step.board:
                assert len(at.options) <= menus.HANDFUL
        table.play(seat, move)


def test_a_choice_that_fits_no_move_says_so_and_starts_the_steps_again():
    table = core.new_table("tranquility", players=1, seed=2)
    seat = table.to_act[0]
    html = render(table, seat, {"card": "99"})
    assert "no move of yours goes with card &#39;99&#39;: pick again." in html
    assert 'data-step="card"' in html
    too_long = render(table, seat, {"card": "9" * 500})
    assert "9" * 41 not in too_long and "pick again" in too_long


def test_tranquility_is_card_then_cell_then_payment():
    game = core.GAMES["tranquility"]
    table = core.new_table("tranquility", players=1, seed=3)
    rng = random.Random(3)
    while not any(" discard " in move for move in table.legal_moves(0)):
        table.play(0, rng.choice(table.legal_moves(0)))
    paid = next(move for move in table.legal_moves(0) if " discard " in move)
    _play, card, cell, _discard, *cards = paid.split()
    view = table.view(0)
    first = menus.position(game, view, {})
    assert first.step.key == "card" and card in [o.value for o in first.options]
    second = menus.position(game, view, {"card": card})
    assert second.step.key == "cell" and second.step.board
    third = menus.position(game, view, {"card": card, "cell": cell})
    assert third.step.key == "pay" and paid in [o.move for o in third.options]
    html = render(table, 0, {"card": card})
    assert f'href="/play/g/g/0?card={card}&amp;cell={cell}"' in html  # the cell is picked on the sea
