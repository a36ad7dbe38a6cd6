"""The pictures and templates of the seat's page, over real tables of the four games: what the view
hides stays hidden, and each game draws its table (that the page's steps and forms send exactly
the legal moves is test_move_steps.py's). Rendered in process (no server, no browser: those are
test_browser.py's)."""

from __future__ import annotations

import random

import pytest

import core
from pbm.web.pictures import compose
from pbm.web.render import render_page
from tests.pages.forms import parse

GAMES = [("holly-oak", 3), ("holidays", 3), ("holiday-board", 3), ("tranquility", 2)]


def page_of(table, seat: int) -> str:
    return render_page(
        table.view(seat),
        game_id="g",
        options=dict(table.started.options),
        names=["Ann"] + [None] * (table.players - 1),
        report=[],
        story=[{"seq": seq, "text": text} for seq, text in table.narrate(seat)],
        base_path="/play/t",
        static="/static",
        csrf="c",
    )


def positions(slug: str, players: int, seed: int, every: int = 7):
    """Tables met along a random game, every `every` moves, with the seat to act."""
    table = core.new_table(slug, players=players, seed=seed)
    rng = random.Random(seed)
    for n in range(400):
        if not table.to_act:
            return
        seat = table.to_act[0]
        if n % every == 0:
            yield table, seat
        table.play(seat, rng.choice(table.legal_moves(seat)))


@pytest.mark.parametrize("slug,players", GAMES)
def test_a_seat_that_is_not_to_act_gets_no_move_form(slug, players):
    table, seat = next(positions(slug, players, 3))
    other = next(s for s in range(players) if s not in table.to_act)
    assert parse(page_of(table, other)).forms == []


def test_the_idempotency_keys_of_a_page_are_all_different():
    table, seat = next((t, s) for t, s in positions("holly-oak", 3, 1) if len(t.legal_moves(s)) > 1)
    keys = [form.hidden["idempotency_key"] for form in parse(page_of(table, seat)).forms]
    assert len(keys) > 1 and len(set(keys)) == len(keys)


def test_holly_oak_cards_are_labelled_by_the_move_they_play():
    table = core.new_table("holly-oak", players=3, seed=5)
    seat = table.to_act[0]
    html = page_of(table, seat)
    assert 'aria-label="play 1Sp"' in html  # the first lead of every round
    for card in table.view(seat)["hand"]:
        assert f">{card}</span>" in html  # every card of the hand is drawn


def test_the_pot_shows_face_down_cards_as_backs_only():
    table = core.new_table("holidays", players=2, seed=4)
    view = table.view(1)
    hidden = [card for card in table.state.face_down()]
    html = page_of(table, 1)
    assert html.count('class="card back"') == view["pot_face_down_count"] == 2
    assert view["pot_face_up"][0] in html
    # A face-down card is named nowhere on the page unless the seat holds or sees the same card.
    shown = set(view["hand"]) | set(view["pot_face_up"])
    for card in set(hidden) - shown:
        assert f">{card}<" not in html


def test_holiday_board_map_draws_every_city_and_link_of_a_custom_board():
    board = (
        '{"cities": [{"name": "Aa", "links": ["Bb", "Cc"]}, {"name": "Bb", "links": ["Aa", "Cc"]},'
        ' {"name": "Cc", "links": ["Aa", "Bb"]}],'
        ' "cards": [' + ", ".join(f'{{"city": "{c}", "sight": "S{c}{d}", "best_day": "{d}"}}' for c in ("aa", "bb", "cc") for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")) + "]}"
    )
    table = core.new_table("holiday-board", players=2, seed=1, options={"board": board})
    html = page_of(table, 0)
    assert html.count('<path class="link') == 3
    for between in ("Aa – Bb", "Aa – Cc", "Bb – Cc"):
        assert f'data-between="{between}"' in html
    for name in ("Aa", "Bb", "Cc"):
        assert f">{name}</text>" in html


def test_tranquility_draws_the_sea_with_row_six_on_top():
    table = core.new_table("tranquility", players=1, seed=2)
    html = page_of(table, 0)
    cells = [html.index(f">{name}<") for name in ("a6", "f6", "a1", "f1")]
    assert cells == sorted(cells)


def test_compose_orders_parts_by_name_and_puts_costs_after_discard():
    fields = [("csrf", "x"), ("part2", "c2"), ("move", "play"), ("part1", "23"), ("cost", "5"), ("cost", "17")]
    assert compose(fields) == "play 23 c2 discard 5 17"
    assert compose([("move", "discard"), ("part1", "M5"), ("part1", "C3")]) == "discard M5 C3"
    assert compose([("move", "bid"), ("part1", "600"), ("part2", "")]) == "bid 600"
    assert compose([("move", "accept")]) == "accept"


def finished(slug: str, players: int, seed: int = 3) -> core.Table:
    table = core.new_table(slug, players=players, seed=seed)
    rng = random.Random(seed)
    while table.to_act:
        seat = table.to_act[0]
        table.play(seat, rng.choice(table.legal_moves(seat)))
    return table


def text_of(html: str) -> str:
    import re

    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_a_finished_holly_oak_table_shows_its_last_trick_and_the_result_winner_first():
    table = finished("holly-oak", 3)
    text = text_of(page_of(table, 1))
    view = table.view(1)
    assert "No card played yet" not in text and "The last trick, taken by" in text
    assert all(play["card"] in text for play in view["last_trick"])
    winner = view["outcome"]["winners"][0]
    import re

    rows = re.findall(r": (\d+) points", text[text.index("The result") :].split("Since your last move")[0])
    assert [int(r) for r in rows] == sorted(view["outcome"]["scores"], reverse=True)
    best = max(view["outcome"]["scores"])
    assert f"{best} points (winner)" in text
    assert (f"you win with {best} points" if winner == 1 else f"wins with {best} points") in text


def test_a_finished_holiday_counts_dollars_and_a_lost_voyage_says_why():
    text = text_of(page_of(finished("holiday-board", 3), 0))
    assert "wins with $" in text or "win with $" in text
    table = finished("tranquility", 2)
    text = text_of(page_of(table, 0))
    why = table.view(0)["loss"]
    assert table.outcome.winners == () and "lost together" in text.lower() and why.split(" ", 2)[-1] in text
    filled = table.outcome.scores[0]
    assert f"{filled} / {filled}" not in text and f"{filled} of 36 cells filled" in text
