"""Holidays scenario tests: every rule, house decision and rulebook example, from exact deals."""

from __future__ import annotations

from collections import Counter

import attrs
import pytest

import core
from core.games.holidays import events as ev
from core.games.holidays import rules
from core.rng import Rng

# Three players; the pot is M3 W3 face down and C5 face up (the holiday starts at 5).
H0 = ["M8", "W6", "C3", "C4", "M4", "W4"]
H1 = ["M7", "W7", "C5", "C6", "M3", "W3"]
H2 = ["M5", "W7", "C7", "C8", "M6", "W8"]
POT = ["M3", "W3", "C5"]


def make_deal(hands, pot=POT, deck_top=()):
    """The deal with these hands and pot; the draw pile is `deck_top`, then the rest in order."""
    used = Counter([c for hand in hands for c in hand] + list(pot) + list(deck_top))
    rest = Counter(rules.ALL_TRAVELLERS) - used
    deck = list(deck_top) + sorted(rest.elements(), key=rules.card_key)
    return {"hands": [list(h) for h in hands], "pot": list(pot), "deck": deck}


def new(hands=(H0, H1, H2), pot=POT, deck_top=(), seed=1):
    return core.new_table("holidays", players=len(hands), seed=seed, deal=make_deal(hands, pot, deck_top))


def play(table, *moves):
    """Play (seat, text) pairs; the events of the last one."""
    events = []
    for seat, text in moves:
        events = table.play(seat, text)
    return events


def kinds(events):
    return [type(e) for e in events]


def to_set_off(table, destination):
    """The first proposer proposes `destination`, everyone accepts, the proposer confirms."""
    first = table.state.first_proposer
    table.play(first, f"propose {destination}")
    for seat in table.state.clockwise_from(first)[1:]:
        table.play(seat, "accept")
    table.play(first, "confirm")


# --- cards and setup -------------------------------------------------------------------------


def test_ninety_travellers_three_suits_values_3_to_8_five_copies():
    counts = Counter(rules.ALL_TRAVELLERS)
    assert len(rules.ALL_TRAVELLERS) == 90
    assert sorted(counts) == sorted(f"{s}{v}" for s in "MWC" for v in range(3, 9))
    assert set(counts.values()) == {rules.COPIES_PER_TRAVELLER} == {5}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_setup_deals_six_each_and_a_pot_of_two_down_one_up(players):
    table = core.new_table("holidays", players=players, seed=42)
    state = table.state
    assert [len(hand) for hand in state.hands] == [6] * players
    assert len(state.pot) == 3 and len(state.deck) == 90 - 6 * players - 3
    view = table.view(0)
    assert view["pot_face_down_count"] == 2 and view["pot_face_down"] == []
    assert view["holiday_value"] == rules.card_value(view["pot_face_up"][0])
    assert view["hand"] == list(rules.sort_cards(state.hands[0]))
    # House decision: seat 0 deals, so seat 1 proposes first, from a full set of 5 destinations.
    assert table.to_act == (1,)
    assert table.legal_moves(1) == [f"propose {d}" for d in rules.DESTINATIONS]


def test_an_exact_deal_is_used_as_given():
    table = new(deck_top=["W8", "M5"])
    assert table.state.hands[1] == rules.sort_cards(H1)
    assert table.state.pot == ("M3", "W3", "C5")
    assert table.state.deck[:2] == ("W8", "M5")
    assert table.view(2)["hand"] == ["M5", "M6", "W7", "W8", "C7", "C8"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(hands=d["hands"][:2]), "2 hands for 3 players"),
        (lambda d: d["hands"][0].pop(), "seat 0's hand must be a list of 6 cards"),
        (lambda d: d["pot"].pop(), "pot has 3 cards"),
        (lambda d: d.update(extra=1), "exactly the keys hands, pot and deck"),
        (lambda d: d.pop("deck"), "exactly the keys hands, pot and deck"),
        (lambda d: d["deck"].pop(), "missing"),
        (lambda d: d["deck"].__setitem__(0, "X9"), "'X9' is not a card of this game"),
        (lambda d: d["deck"].append("M3"), "M3 appears more often"),
        (lambda d: d.update(pot="M3 W3 C5"), "lists"),
    ],
)
def test_a_bad_deal_is_refused_clearly(change, message):
    deal = make_deal([H0, H1, H2])
    change(deal)
    with pytest.raises(core.SetupError, match=message):
        core.new_table("holidays", players=3, seed=1, deal=deal)


def test_deal_cards_are_read_case_insensitively():
    deal = make_deal([H0, H1, H2])
    deal["hands"][0] = [card.lower() for card in deal["hands"][0]]
    assert core.new_table("holidays", players=3, seed=1, deal=deal).state.hands[0] == rules.sort_cards(H0)


# --- move notation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("propose venice", "propose venice"),
        ("  PROPOSE   Park ", "propose park"),
        ("change cruise pay w7", "change cruise pay W7"),
        ("Accept", "accept"),
        ("confirm", "confirm"),
        ("setoff c3 w6 m8", "setoff M8 W6 C3"),
        ("discard", "discard"),
        ("discard W4 m4 M4", "discard M4 M4 W4"),
    ],
)
def test_moves_parse_to_their_canonical_text(text, canonical):
    assert str(rules.parse_move(text)) == canonical


@pytest.mark.parametrize(
    "text",
    ["", "propose", "propose paris", "change cruise W7", "change cruise pay", "setoff", "setoff M9",
     "discard X3", "accept now", "go"],
)
def test_malformed_moves_are_refused_with_the_expected_forms(text):
    with pytest.raises(core.IllegalMove, match="malformed move .*expected propose <destination>"):
        rules.parse_move(text)


# --- choosing the destination ----------------------------------------------------------------


def test_the_first_proposal_is_free():
    table = new()
    events = play(table, (1, "propose venice"))
    assert events == [ev.DestinationProposed(1, "venice")]
    assert table.state.hands[1] == rules.sort_cards(H1)
    assert table.view(0)["holiday_value"] == 5 and table.view(0)["pot_paid"] == []
    assert table.to_act == (2,)


def test_before_the_proposal_only_proposing_is_possible():
    table = new()
    for text in ("accept", "confirm", "change venice pay M7", "setoff M7 W7", "discard"):
        with pytest.raises(core.IllegalMove, match="first propose a destination"):
            table.play(1, text)


def test_accepting_passes_clockwise_and_the_proposer_confirms():
    table = new()
    play(table, (1, "propose park"), (2, "accept"))
    assert table.to_act == (0,)
    with pytest.raises(core.IllegalMove, match="seat 1 proposed park: accept or change"):
        table.play(0, "confirm")
    table.play(0, "accept")
    assert table.to_act == (1,) and table.legal_moves(1)[0] == "confirm"
    with pytest.raises(core.IllegalMove, match="everyone accepted your park: confirm it or change"):
        table.play(1, "accept")
    assert play(table, (1, "confirm")) == [ev.DestinationConfirmed(1)]
    assert table.view(None)["phase"] == "setoff" and table.to_act == (1,)


def test_a_change_plays_a_destination_and_pays_a_traveller_face_up():
    table = new()
    play(table, (1, "propose venice"), (2, "change mykonos pay W7"))
    state = table.state
    assert state.destination == "mykonos" and state.proposer == 2
    assert "W7" not in state.hands[2] and len(state.hands[2]) == 5
    view = table.view(0)
    assert view["pot_paid"] == ["W7"] and view["holiday_value"] == 12
    assert view["destinations_played"] == [[], ["venice"], ["mykonos"]]
    assert view["hand_sizes"] == [6, 6, 5]


def test_the_narrated_change_example():
    """The brief's own line: 'seat 1 changed to cruise, paying W7; the holiday is worth 19'."""
    table = new()
    play(table, (1, "propose venice"), (2, "change mykonos pay W7"), (0, "accept"))
    table.play(1, "change cruise pay W7")
    line = table.narrate(0, start=table.seq - 1)[0][1]
    assert line == "seat 1 changed to cruise, paying W7; the holiday is worth 19"


def test_acceptances_start_again_after_a_change():
    table = new()
    play(table, (1, "propose venice"), (2, "accept"), (0, "change berghotel pay C3"))
    # seat 2 had accepted venice; it must now answer berghotel, after seat 1.
    assert table.to_act == (1,)
    play(table, (1, "accept"))
    assert table.to_act == (2,)
    play(table, (2, "accept"))
    assert table.to_act == (0,) and table.legal_moves(0)[0] == "confirm"


def test_the_proposer_may_change_again_instead_of_confirming():
    table = new()
    play(table, (1, "propose venice"), (2, "accept"), (0, "accept"), (1, "change cruise pay M3"))
    assert table.state.proposer == 1 and table.to_act == (2,)
    assert table.view(2)["holiday_value"] == 8


def test_the_same_destination_may_be_played_again_to_raise_the_value():
    table = new()
    play(table, (1, "propose venice"))
    events = play(table, (2, "change venice pay M5"))
    assert events == [ev.DestinationChanged(2, "venice", "M5")]
    assert table.view(0)["holiday_value"] == 10 and table.state.proposer == 2


def test_a_refused_destination_may_be_proposed_later():
    """Rulebook: you may propose a destination even if you refused it before."""
    table = new()
    play(table, (1, "propose venice"), (2, "change cruise pay M5"), (0, "accept"))
    play(table, (1, "change mykonos pay M3"))
    play(table, (2, "change venice pay M6"))
    assert table.state.destination == "venice" and table.state.played[2] == ("cruise", "venice")


def test_each_destination_card_is_played_once_a_hand_and_paid_cards_stay_in_the_pot():
    table = new()
    play(table, (1, "propose venice"), (2, "change cruise pay M5"), (0, "accept"))
    with pytest.raises(core.IllegalMove, match="already played your venice card"):
        table.play(1, "change venice pay M3")
    assert "change venice pay M3" not in table.legal_moves(1)
    play(table, (1, "change mykonos pay M3"), (2, "accept"), (0, "accept"))
    # Neither the paid card nor the destination card comes back during the hand.
    assert table.state.played[1] == ("venice", "mykonos") and table.state.paid == ("M5", "M3")
    assert "M3" not in table.state.hands[1]


def test_paying_needs_a_card_you_hold():
    table = new()
    play(table, (1, "propose venice"))
    with pytest.raises(core.IllegalMove, match="cannot pay with M8: you do not hold it"):
        table.play(2, "change cruise pay M8")


def test_without_destination_cards_a_player_can_only_accept_or_confirm():
    table = new(hands=(H0, H1))
    # Seat 1 proposes (its 1st destination card), seat 0 changes, ... until seat 0 has played all 5.
    play(
        table,
        (1, "propose venice"),
        (0, "change venice pay C3"),
        (1, "change mykonos pay C5"),
        (0, "change mykonos pay C4"),
        (1, "change park pay C6"),
        (0, "change park pay M4"),
        (1, "change berghotel pay M3"),
        (0, "change berghotel pay W4"),
        (1, "change cruise pay W3"),
    )
    # Seat 1 has no destination card left: only accept.
    play(table, (0, "change cruise pay W6"))
    assert table.legal_moves(1) == ["accept"]
    with pytest.raises(core.IllegalMove, match="no destination card left: you can only accept"):
        table.play(1, "change venice pay M7")
    play(table, (1, "accept"))
    # Seat 0, the proposer, has none left either: only confirm.
    assert table.legal_moves(0) == ["confirm"]
    with pytest.raises(core.IllegalMove, match="no destination card left: you can only confirm"):
        table.play(0, "change venice pay M8")


def test_without_traveller_cards_a_player_can_only_accept():
    table = new()
    play(table, (1, "propose venice"))
    table.state = attrs.evolve(table.state, hands=(table.state.hands[0], table.state.hands[1], ()))
    assert table.legal_moves(2) == ["accept"]
    with pytest.raises(core.IllegalMove, match="no traveller card to pay with left: you can only accept"):
        table.play(2, "change cruise pay M5")


def test_change_moves_cover_every_remaining_destination_and_distinct_card():
    table = new(hands=(H0, ["M3", "M3", "W4", "W4", "C5", "C5"]), pot=["M4", "W3", "C6"])
    play(table, (1, "propose venice"), (0, "accept"))
    legal = table.legal_moves(1)
    assert legal[0] == "confirm" and len(legal) == 1 + 4 * 3
    assert "change park pay W4" in legal and "change venice pay W4" not in legal


# --- setting off -----------------------------------------------------------------------------


def test_setting_off_starts_with_the_confirming_player_clockwise():
    table = new()
    play(table, (1, "propose venice"), (2, "change park pay M5"), (0, "accept"), (1, "accept"))
    play(table, (2, "confirm"))
    assert table.to_act == (2,)
    play(table, (2, "setoff W8 C7 C8"))
    assert table.to_act == (0,)
    play(table, (0, "discard"))
    assert table.to_act == (1,)


def test_the_rulebook_venice_example_scores_14():
    table = new()
    play(table, (1, "propose venice"), (2, "accept"), (0, "change venice pay C3"))
    play(table, (1, "accept"), (2, "accept"))
    play(table, (0, "confirm"))
    assert play(table, (0, "setoff M8 W6")) == [ev.CombinationPlayed(0, ("M8", "W6"), 14)]


@pytest.mark.parametrize(
    ("destination", "good", "bad"),
    [
        ("venice", [["M8", "W6"]], [["M8"], ["M8", "W6", "C3"], ["M8", "M4"], ["M8", "C3"]]),
        ("mykonos", [["M8"], ["W6"], ["M8", "M4", "W6", "W4"]], [["C3"], ["M8", "C3"]]),
        ("park", [["M8"], ["W6", "C3"], ["M4", "C3", "C4"]], [["C3"], ["C3", "C4"], ["M8", "W6", "C3"]]),
        ("berghotel", [["M8", "W6", "C3"]], [["M8", "W6"], ["M8", "W6", "C3", "C4"], ["M8", "M4", "C3"]]),
        ("cruise", [["M8"], ["M8", "M4"], ["W6", "W4"]], [["M8", "W6"], ["C3"], ["M8", "C4"]]),
    ],
)
def test_the_combinations_of_each_destination(destination, good, bad):
    for cards in good:
        table = new(hands=(H0, H1))
        to_set_off(table, destination)
        play(table, (1, "discard"))
        text = "setoff " + " ".join(cards)
        assert str(rules.parse_move(text)) in table.legal_moves(0)
        score = sum(map(rules.card_value, cards))
        assert table.play(0, text)[0] == ev.CombinationPlayed(0, rules.sort_cards(cards), score)
    for cards in bad:
        table = new(hands=(H0, H1))
        to_set_off(table, destination)
        play(table, (1, "discard"))
        assert "setoff " + rules.cards_text(cards) not in table.legal_moves(0)
        with pytest.raises(core.IllegalMove, match="is no combination"):
            table.play(0, "setoff " + " ".join(cards))


def test_children_alone_cannot_go_to_the_amusement_park():
    table = new()
    to_set_off(table, "park")
    with pytest.raises(core.IllegalMove, match="C5 C6 is no combination: the Amusement park takes exactly"):
        table.play(1, "setoff C5 C6")
    assert table.to_act == (1,) and len(table.state.hands[1]) == 6


def test_only_a_whole_family_goes_to_the_berghotel():
    table = new()
    to_set_off(table, "berghotel")
    with pytest.raises(core.IllegalMove, match="Berghotel takes exactly one man, one woman and one child"):
        table.play(1, "setoff M7 W7")
    table.play(1, "setoff M7 W7 C6")


def test_a_cruise_takes_men_only_or_women_only():
    table = new()
    to_set_off(table, "cruise")
    with pytest.raises(core.IllegalMove, match="one or more men only, or one or more women only"):
        table.play(1, "setoff M7 W7")
    assert table.play(1, "setoff M3 M7")[0].score == 10


def test_setting_off_needs_cards_you_hold_and_no_more_proposals():
    table = new()
    to_set_off(table, "mykonos")
    with pytest.raises(core.IllegalMove, match="you do not hold M8"):
        table.play(1, "setoff M8 W7")
    with pytest.raises(core.IllegalMove, match="you do not hold M7"):
        table.play(1, "setoff M7 M7")
    with pytest.raises(core.IllegalMove, match="mykonos is confirmed: setoff"):
        table.play(1, "accept")


def test_you_need_not_play_your_best_combination():
    table = new()
    to_set_off(table, "mykonos")
    assert table.play(1, "setoff M3")[0] == ev.CombinationPlayed(1, ("M3",), 3)


def test_a_player_may_discard_any_cards_or_none_instead():
    table = new()
    to_set_off(table, "venice")
    assert play(table, (1, "discard M3 C5 C6")) == [ev.CardsDiscarded(1, ("M3", "C5", "C6"))]
    assert table.state.hands[1] == ("M7", "W3", "W7")
    assert play(table, (2, "discard")) == [ev.CardsDiscarded(2, ())]
    seen = {"seat": 1, "combination": False, "cards": ["M3", "C5", "C6"], "card_count": 3, "score": 0}
    assert table.view(0)["set_off"][0] == seen


def test_set_off_moves_list_every_combination_and_every_discard_once():
    table = new(hands=(H0, ["M3", "M3", "W4", "W4", "C5", "C5"]), pot=["M4", "W3", "C6"])
    to_set_off(table, "park")
    legal = table.legal_moves(1)
    setoffs = [m for m in legal if m.startswith("setoff")]
    discards = [m for m in legal if m.startswith("discard")]
    # One adult (M3 or W4) with 0, 1 or 2 children: 2 x 3 combinations; 3 x 3 x 3 discards.
    assert len(setoffs) == 6 and "setoff W4 C5 C5" in setoffs
    assert len(discards) == 27 and "discard" in discards and "discard M3 M3 W4 W4 C5 C5" in discards
    assert len(set(legal)) == len(legal)


def test_highest_sum_wins_the_pot_and_its_face_down_cards_are_shown():
    table = new()
    to_set_off(table, "mykonos")
    play(table, (1, "setoff M7 W7"), (2, "setoff M5 M6 W8"))
    events = play(table, (0, "setoff M8 W6"))
    won = next(e for e in events if isinstance(e, ev.PotWon))
    assert won == ev.PotWon(seat=2, score=19, face_down=("M3", "W3"), value=11, points=1)
    assert table.state.win_points == (0, 0, 1)
    line = dict(table.narrate(1))[table.events.index(won)]
    assert line == (
        "seat 2 wins the hand with 19 and takes the pot (face down M3 W3) worth 11: 1 win point, 1 in all"
    )
    # The winner refills first, then clockwise; the winner proposes first next hand.
    assert [e.seat for e in events if isinstance(e, ev.CardsDrawn)] == [2, 0, 1]
    assert events[-1] == ev.HandStarted(number=2, first_proposer=2) and table.to_act == (2,)


def test_a_tie_goes_to_whoever_played_first():
    table = new()
    to_set_off(table, "venice")
    events = play(table, (1, "setoff M7 W7"), (2, "setoff M6 W8"), (0, "setoff M8 W6"))
    assert next(e for e in events if isinstance(e, ev.PotWon)).seat == 1


@pytest.mark.parametrize(
    ("pot", "paid", "points"),
    [
        (["M8", "W8", "C8"], "W5", 2),  # 29 means 2 points
        (["M8", "W8", "C8"], "C6", 3),  # 30 means 3 points
        (["M3", "W3", "C3"], None, 0),  # fractions of 10 are worth nothing (the rulebook's 7: 0)
    ],
)
def test_win_points_are_the_pot_value_divided_by_ten_rounded_down(pot, paid, points):
    hands = (["M7", "W7", "C5", "C6", "M4", "W5"], ["M6", "W6", "C4", "C7", "M5", "W4"])
    table = new(hands=hands, pot=pot)
    if paid:
        play(table, (1, "propose venice"), (0, f"change venice pay {paid}"), (1, "accept"), (0, "confirm"))
        play(table, (0, "setoff M7 W7"), (1, "discard"))
    else:
        to_set_off(table, "venice")
        play(table, (1, "discard"), (0, "setoff M7 W7"))
    won = next(e for e in table.events if isinstance(e, ev.PotWon))
    paid_value = rules.card_value(paid) if paid else 0
    assert won.seat == 0 and won.value == sum(map(rules.card_value, pot)) + paid_value
    assert won.points == points and table.state.win_points[0] == points


def test_no_combination_no_winner_and_the_pot_is_discarded_unseen():
    table = new(deck_top=["M8", "W8", "C8", "M7", "W7", "C7", "M6", "W6", "C6"])
    # Seat 1 proposes first, seat 2 changes and confirms, so confirmer and first proposer differ.
    play(table, (1, "propose venice"), (2, "change park pay C8"), (0, "accept"), (1, "accept"))
    play(table, (2, "confirm"))
    events = play(table, (2, "discard M5"), (0, "discard C3 C4"), (1, "discard M3"))
    assert kinds(events)[:3] == [ev.CardsDiscarded, ev.PotDiscarded, ev.TableCleared]
    assert table.state.win_points == (0, 0, 0)
    # The refill starts with the hand's first proposer (seat 1), each drawing all it lacks.
    drawn = [(e.seat, e.cards) for e in events if isinstance(e, ev.CardsDrawn)]
    assert drawn == [(1, ("M8",)), (2, ("W8", "C8")), (0, ("M7", "W7"))]
    assert [e for e in events if isinstance(e, ev.PotDealt)] == [ev.PotDealt(("C7", "M6", "W6"))]
    # House decision: the player left of the first proposer proposes first next.
    assert events[-1] == ev.HandStarted(number=2, first_proposer=2)
    narration = [line for _, line in table.narrate(0, start=table.seq - len(events))]
    assert "nobody played a combination: no winner, the pot is discarded unseen" in narration
    assert not any("W3" in line for line in narration)  # the face-down M3 W3 stay hidden
    assert table.state.discard_face_down == ("M3", "W3")
    assert table.view(0)["discarded_face_up"] == ["M3", "M5", "C3", "C4", "C5", "C8"]
    assert table.view(0)["discard_pile"] == 8


def test_clean_up_refills_from_the_winner_then_deals_the_next_pot():
    top = ["M8", "W8", "C8", "M7", "W7", "C7", "M6", "W6", "C6", "C3"]
    table = new(deck_top=top)
    to_set_off(table, "venice")
    events = play(table, (1, "setoff M7 W7"), (2, "setoff M6 W8"), (0, "discard C3"))
    # Seat 1 wins: seat 2's 14 only ties it.
    assert [type(e) for e in events] == [
        ev.CardsDiscarded, ev.PotWon, ev.TableCleared, ev.CardsDrawn, ev.CardsDrawn, ev.CardsDrawn,
        ev.PotDealt, ev.HandStarted,
    ]
    assert events[3:6] == [
        ev.CardsDrawn(1, ("M8", "W8")), ev.CardsDrawn(2, ("C8", "M7")), ev.CardsDrawn(0, ("W7",))
    ]
    assert events[6] == ev.PotDealt(("C7", "M6", "W6"))
    assert events[7] == ev.HandStarted(number=2, first_proposer=1)  # the winner proposes first
    state = table.state
    assert [len(hand) for hand in state.hands] == [6, 6, 6]
    assert state.played == ((), (), ()) and state.paid == () and state.set_off == ()
    assert sorted(state.discard) == sorted(["M7", "W7", "M6", "W8", "C3", "M3", "W3", "C5"])
    view = table.view(0)
    assert view["pot_face_up"] == ["W6"] and view["pot_face_down"] == [] and view["holiday_value"] == 6
    assert view["hand_number"] == 2 and view["destination"] is None and table.to_act == (1,)
    assert table.legal_moves(1) == [f"propose {d}" for d in rules.DESTINATIONS]  # destinations returned


def test_the_draw_pile_is_reshuffled_only_when_a_card_must_be_drawn():
    table = new()
    to_set_off(table, "venice")
    play(table, (1, "setoff M7 W7"), (2, "setoff M6 W8"))
    # Leave 3 cards in the draw pile; the rest is in the discard pile.
    deck = table.state.deck
    table.state = attrs.evolve(table.state, deck=deck[:3], discard=deck[3:])
    events = play(table, (0, "discard C3 C4"))
    drawn_and_shuffled = [
        e for e in events if isinstance(e, ev.CardsDrawn | ev.DrawPileReshuffled | ev.PotDealt)
    ]
    assert kinds(drawn_and_shuffled) == [
        ev.CardsDrawn, ev.CardsDrawn, ev.DrawPileReshuffled, ev.CardsDrawn, ev.CardsDrawn, ev.PotDealt
    ]
    # Seat 1 draws 2, seat 2 draws the last card, then the reshuffle, then the rest of its refill.
    assert drawn_and_shuffled[0] == ev.CardsDrawn(1, deck[:2])
    assert drawn_and_shuffled[1] == ev.CardsDrawn(2, deck[2:3])
    reshuffled = drawn_and_shuffled[2].deck
    pile = deck[3:] + ("M7", "W7", "M6", "W8", "C3", "C4", "M3", "W3", "C5")
    assert sorted(reshuffled) == sorted(pile)
    assert drawn_and_shuffled[3] == ev.CardsDrawn(2, reshuffled[:1])
    assert table.state.discard == () and len(table.state.deck) == len(pile) - 6
    assert table.narrate(None)[-5][1] == (
        f"the draw pile is empty: the discard pile is shuffled into a new draw pile of {len(pile)} cards"
    )


def test_no_reshuffle_when_the_draw_pile_just_suffices():
    table = new()
    to_set_off(table, "venice")
    play(table, (1, "setoff M7 W7"), (2, "setoff M6 W8"))
    deck = table.state.deck
    table.state = attrs.evolve(table.state, deck=deck[:9], discard=deck[9:])
    events = play(table, (0, "discard C3 C4"))
    assert ev.DrawPileReshuffled not in kinds(events) and table.state.deck == ()
    assert len(table.state.discard) == len(deck) - 9 + 9


def test_a_pot_split_by_the_reshuffle_keeps_down_down_up():
    table = new()
    to_set_off(table, "venice")
    play(table, (1, "setoff M7 W7"), (2, "setoff M6 W8"))
    deck = table.state.deck
    table.state = attrs.evolve(table.state, deck=deck[:7], discard=deck[7:])
    events = play(table, (0, "discard C3 C4"))
    tail = events[-4:]
    assert kinds(tail) == [ev.PotDealt, ev.DrawPileReshuffled, ev.PotDealt, ev.HandStarted]
    assert tail[0] == ev.PotDealt(deck[6:7]) and tail[2] == ev.PotDealt(tail[1].deck[:2])
    assert table.state.pot == deck[6:7] + tail[1].deck[:2]
    assert table.view(1)["pot_face_up"] == [tail[1].deck[1]]
    lines = [line for _, line in table.narrate(1)[-4:]]
    assert lines[0] == "the next pot: 1 face-down card"
    assert lines[2] == f"the next pot: 1 face-down card and {tail[1].deck[1]} face up"


def test_the_reshuffle_comes_from_the_seed_and_replays_without_it():
    def finish(seed):
        table = new(seed=seed)
        to_set_off(table, "venice")
        play(table, (1, "setoff M7 W7"), (2, "setoff M6 W8"))
        deck = table.state.deck
        table.state = attrs.evolve(table.state, deck=deck[:1], discard=deck[1:])
        return play(table, (0, "discard"))

    first, again, other = finish(5), finish(5), finish(6)
    shuffle = next(e for e in first if isinstance(e, ev.DrawPileReshuffled))
    assert first == again and shuffle != next(e for e in other if isinstance(e, ev.DrawPileReshuffled))


def test_the_game_ends_at_ten_win_points_with_no_clean_up():
    table = new()
    table.state = attrs.evolve(table.state, win_points=(0, 0, 9))
    to_set_off(table, "mykonos")
    play(table, (1, "setoff M7 W7"), (2, "setoff M5 M6 W8"))
    before = table.state
    events = play(table, (0, "setoff M8"))
    assert kinds(events) == [ev.CombinationPlayed, ev.PotWon, core.SeedRevealed]
    assert table.outcome == core.Outcome(scores=(0, 0, 10), winners=(2,))
    assert table.to_act == () and table.view(0)["pot_face_down"] == ["M3", "W3"]
    line = rules.narrate(rules.evolve(before, events[0]), events[1], None)
    assert line.endswith("1 win point, 10 in all; seat 2 wins the game")
    with pytest.raises(core.IllegalMove, match="the game is over"):
        table.play(1, "propose venice")


# --- what each seat sees ---------------------------------------------------------------------


def test_a_seat_sees_its_hand_the_public_pot_and_every_destination_but_not_the_hidden_cards():
    table = new()
    play(table, (1, "propose venice"), (2, "change cruise pay W7"))
    view = table.view(0)
    assert view["hand"] == ["M4", "M8", "W4", "W6", "C3", "C4"]
    assert view["pot_face_up"] == ["C5"] and view["pot_paid"] == ["W7"] and view["holiday_value"] == 12
    assert view["pot_face_down"] == [] and view["pot_face_down_count"] == 2
    assert view["destinations_played"] == [[], ["venice"], ["cruise"]]
    assert view["destination"] == "cruise" and view["proposer"] == 2
    text = str({k: v for k, v in view.items() if k not in ("hand", "legal_moves")})
    for hidden in ("M7", "C6", "M5", "C8"):  # other hands' cards appear nowhere else
        assert hidden not in text
    assert table.view(None)["hand"] == []


def test_a_view_does_not_change_when_hidden_cards_are_dealt_anew():
    table = new()
    play(table, (1, "propose venice"), (2, "accept"))
    for seat in range(3):
        redealt = rules.determinize(table.state, seat, Rng(9, seat))
        assert redealt.hands[seat] == table.state.hands[seat] and redealt.pot[2] == "C5"
        assert redealt != table.state
        assert rules.view(redealt, seat) == rules.view(table.state, seat)
        assert Counter(c for h in redealt.hands for c in h) + Counter(redealt.deck + redealt.pot) == Counter(
            c for h in table.state.hands for c in h
        ) + Counter(table.state.deck + table.state.pot)


def test_turn_reports_show_a_seat_only_its_own_cards():
    table = new(deck_top=["M8", "W8"])
    to_set_off(table, "venice")
    play(table, (1, "setoff M7 W7"), (2, "discard"), (0, "discard"))
    seat0 = dict(table.narrate(0))
    seat1 = dict(table.narrate(1))
    deal_seq = 1
    assert seat0[deal_seq].endswith("your hand: M4 M8 W4 W6 C3 C4")
    assert "M7" not in seat0[deal_seq] and "your hand" not in dict(table.narrate(None))[deal_seq]
    draw = next(i for i, e in enumerate(table.events) if isinstance(e, ev.CardsDrawn))
    assert seat1[draw] == "seat 1 drew M8 W8" and seat0[draw] == "seat 1 drew 2 cards"
    assert seat0[2] == "hand 1: the holiday is worth 5; seat 1 proposes first"
    assert seat0[3] == "seat 1 proposed venice; the holiday is worth 5"
    assert seat0[4] == "seat 2 accepted venice"
    assert seat0[6] == "seat 1 confirmed venice (worth 5): time to set off, seat 1 first"
    assert seat0[7] == "seat 1 set off for venice with M7 W7: 14"
    assert seat0[8] == "seat 2 played no combination and discarded nothing"


def test_house_decision_discards_face_down(monkeypatch):
    """With DISCARDS_SHOWN off, a set-off discard is seen only by its owner and goes face down."""
    monkeypatch.setattr(rules, "DISCARDS_SHOWN", False)
    table = new()
    to_set_off(table, "venice")
    play(table, (1, "discard M3 C5"))
    assert table.view(1)["set_off"][0]["cards"] == ["M3", "C5"]
    unseen = {"seat": 1, "combination": False, "cards": [], "card_count": 2, "score": 0}
    assert table.view(0)["set_off"][0] == unseen
    assert table.narrate(0)[-1][1] == "seat 1 played no combination and discarded 2 cards face down"
    assert table.narrate(1)[-1][1] == "seat 1 played no combination and discarded M3 C5"
    redealt = rules.determinize(table.state, 0, Rng(3, 0))
    assert rules.view(redealt, 0) == rules.view(table.state, 0)
    assert rules.determinize(table.state, 1, Rng(3, 0)).set_off == table.state.set_off
    play(table, (2, "setoff M5 W7"), (0, "discard"))
    assert Counter(table.state.discard_face_down) == Counter(["M3", "C5"])  # the pot was won: shown
