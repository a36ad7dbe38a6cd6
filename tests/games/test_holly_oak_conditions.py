"""Holly Oak's order conditions (core/games/holly_oak/conditions.py): what each holds for, on a seat's
view of a real table with the trick set by hand; their text forms through the one parser
(core.orders), canonical and read back the same; bad ones refused in one line; and the old forms
read as before. Pure core, no Redis."""

from __future__ import annotations

import pytest

import core
from core.games.holly_oak import conditions
from core.orders import BadOrder, Context, parse_orders
from pbm.rules import notes


def seat_view(seat: int = 0, season: str = "Winter", trick: tuple[tuple[int, str, str], ...] = (), won: int = 0) -> dict:
    """Seat `seat`'s view of a 3-player table, at a trick of (seat, card, season it counts in)."""
    view = core.new_table("holly-oak", players=3, seed=7).view(seat)
    tricks_won = list(view["tricks_won"])
    tricks_won[seat] = won
    played = [{"seat": s, "card": card, "season": counts_in} for s, card, counts_in in trick]
    return {**view, "season": season, "trick": played, "tricks_won": tricks_won}


def holds(text: str, view: dict) -> bool:
    return conditions.holds(conditions.parse_condition(text), view)


def test_a_card_beats_the_trick_when_it_would_be_its_best_card_so_far():
    winter = seat_view(trick=((1, "5Wi", "Winter"),))
    assert holds("8Wi beats the trick", winter) and not holds("3Wi beats the trick", winter)
    assert holds("3Wi does not beat the trick", winter) and not holds("8Wi does not beat the trick", winter)
    assert holds("2Sp beats the trick", winter)  # the next season: it moves the season on, and is its only card
    assert not holds("9Fa beats the trick", winter)  # counts in Fall, while Winter stays current
    assert holds("SR beats the trick", winter)  # back to Fall, where it is the only card (1/2)
    # Moved on to Spring by 7Sp: only Spring counts now.
    spring = seat_view(season="Spring", trick=((1, "5Wi", "Winter"), (2, "7Sp", "Spring")))
    assert holds("8Sp beats the trick", spring) and holds("2Sp does not beat the trick", spring)
    assert holds("10Wi does not beat the trick", spring)
    assert holds("0Su beats the trick", spring)
    # Led into an empty trick, a card that may lead does; one that may not lead does not.
    empty = seat_view()
    assert holds("0Wi beats the trick", empty) and holds("4Sp beats the trick", empty)
    assert holds("5Su does not beat the trick", empty)


def test_the_trick_holds_a_king_playing_last_and_a_trick_won():
    king = seat_view(trick=((1, "9Wi", "Winter"),))
    plain = seat_view(trick=((1, "8Wi", "Winter"),))
    assert holds("the trick holds a king", king) and not holds("the trick holds no king", king)
    assert holds("the trick holds no king", plain) and holds("the trick holds no king", seat_view())
    assert not holds("I play last", king)
    assert holds("I play last", seat_view(trick=((1, "8Wi", "Winter"), (2, "9Wi", "Winter"))))
    assert holds("I have won no trick", plain) and not holds("I have won a trick", plain)
    assert holds("I have won a trick", seat_view(won=2)) and not holds("I have won no trick", seat_view(won=2))


def parsed(*texts: str) -> list[str]:
    view = core.new_table("holly-oak", players=3, seed=7).view(0)  # hand 7Sp 10Sp ... 8Wi 10Wi
    game = core.GAMES["holly-oak"]
    return [order.text for order in parse_orders(list(texts), Context(game, 3, 0, view), ids=[str(n) for n in range(len(texts))])]


def test_the_new_conditions_parse_to_their_canonical_text_and_read_back_the_same():
    given = {
        "if 8wi BEATS the trick: play 8Wi": "if 8Wi beats the trick: play 8Wi",
        "if sr does  not beat the trick and the Trick holds a King: play 10Wi": "if SR does not beat the trick and the trick holds a king: play 10Wi",
        "if Winter is current and i play last and the trick holds no king: play 2Wi": "if Winter is current and I play last and the trick holds no king: play 2Wi",
        "if I have won a trick and I lead: play 7Sp": "if I have won a trick and I lead: play 7Sp",
        "after 1 play 3Su if I have won no trick: play 1Wi": "after 1 play 3Su if I have won no trick: play 1Wi",
    }
    assert parsed(*given) == list(given.values())
    assert parsed(*given.values()) == list(given.values())


def test_the_old_forms_read_as_before():
    old = ["if Winter is led: play 8Wi", "if winter is led and I lead: play 10Wi", "if Summer is current: play 2Su", "next: play 1Wi"]
    assert parsed(*old) == ["if Winter is led: play 8Wi", "if Winter is led and I lead: play 10Wi", "if Summer is current: play 2Su", "next: play 1Wi"]


@pytest.mark.parametrize(
    "text, named",
    [
        ("if 11Wi beats the trick: play 8Wi", "'11Wi beats the trick'"),
        ("if 8Wi beat the trick: play 8Wi", "'8Wi beat the trick'"),
        ("if the trick holds kings: play 8Wi", "'the trick holds kings'"),
        ("if I plays last: play 8Wi", "'I plays last'"),
        ("if I have won two tricks: play 8Wi", "'I have won two tricks'"),
    ],
)
def test_a_bad_condition_is_refused_in_one_line_naming_the_order(text: str, named: str):
    with pytest.raises(BadOrder) as refused:
        parsed("next: play 1Wi", text)
    message = str(refused.value)
    assert message.startswith(f"order 2 (`{text}`): unknown condition {named}")
    assert "beats the trick" in message and "\n" not in message  # the forms it knows are listed


def test_pbm_rules_documents_every_condition():
    for form in conditions.CONDITIONS:
        assert f"`{form.split(' (')[0]}`" in notes("holly-oak")
