"""Scenario tests for Tranquility: every rule of the Czech rulebook (seed 004), every house decision
of rules/tranquility.md, the notation and the deal, each from an exact deal."""

from __future__ import annotations

from collections import Counter

import attrs
import pytest

import core
from core.games.tranquility import rules
from core.games.tranquility.events import (
    CardsDiscarded,
    CardsDrawn,
    FinishPlayed,
    GameLost,
    HandsRefilled,
    IslandPlayed,
    LossReason,
    PilesDealt,
    StartPlayed,
    StartShareDiscarded,
    TurnPassed,
)
from core.rng import Rng

SLUG = "tranquility"
ISLANDS = [str(n) for n in range(1, 81)]


# ---------------------------------------------------------------------------------------------
# Helpers


def make_deal(*tops: list, left_out: tuple[str, ...] = ()) -> dict:
    """Piles (one per seat) starting with `tops`, then the other cards: Islands from 80 down, then
    the Finishes; a pile whose top has no Start gets it at the bottom. Sizes as a shuffle makes them."""
    tops = tuple([str(card) for card in top] for top in tops)
    pool = [*reversed(ISLANDS), *["finish"] * 5]
    for card in [*left_out, *(card for top in tops for card in top if card != "start")]:
        pool.remove(card)
    piles = []
    for size, top in zip(rules.pile_sizes(85 - len(left_out), len(tops)), tops):
        count = size - sum(card != "start" for card in top)
        pile, pool = [*top, *pool[:count]], pool[count:]
        piles.append(pile if "start" in top else [*pile, "start"])
    return {"piles": piles}


def new(*tops: list, galateia: bool = False, left_out: tuple[str, ...] = ()) -> core.Table:
    deal = make_deal(*tops, left_out=left_out)
    return core.new_table(SLUG, players=len(tops), seed=1, deal=deal, options={"galateia": galateia})


def hand(table: core.Table, seat: int) -> list[str]:
    return list(table.state.hands[seat])


def played(events: list) -> list:
    """The game's own events (without the SeedRevealed a finished table appends)."""
    return [event for event in events if not isinstance(event, core.SeedRevealed)]


def report(table: core.Table, seat: int | None) -> list[str]:
    return [line for _, line in table.narrate(seat)]


def refused(table: core.Table, seat: int, text: str, match: str) -> None:
    state, seq = table.state, table.seq
    with pytest.raises(core.IllegalMove, match=match):
        table.play(seat, text)
    assert table.state is state and table.seq == seq


def fill_grid(table: core.Table) -> None:
    """Play as a team aiming at island n in the n-th cell (1 in a1 ... 36 in f6), paying and
    discarding only 'fillers' (Islands above 36), until the grid is full or the game ends."""

    def filler(card: str) -> bool:
        return card not in ("start", "finish") and int(card) > 36

    def choice(seat: int) -> str:
        legal = table.legal_moves(seat)
        if "play start" in legal or "play finish" in legal:
            return legal[0]
        moves = [rules.parse_move(text) for text in legal]
        for move in moves:
            if isinstance(move, rules.PlayIsland) and move.card <= 36 and move.cell == move.card - 1:
                if all(map(filler, move.paid)):
                    return str(move)
        discards = [m for m in moves if isinstance(m, rules.Discard) and all(map(filler, m.cards))]
        assert discards, f"the scripted deal ran dry: {table.state.hands}"
        return str(max(discards, key=lambda move: len(move.cards)))

    while table.to_act and not all(table.state.grid):
        seat = table.to_act[0]
        table.play(seat, choice(seat))


ODDS = list(range(1, 37, 2))
EVENS_WITH_FILLERS = [card for even, filler in zip(range(2, 37, 2), range(69, 36, -1)) for card in (even, filler)]
# One player: the Start and its 8 discards first, then 1, 3, ..., 35 (free), then 2, 4, ..., 36
# (each costs one filler), then one Finish. The other Finishes lie at the bottom.
SOLO_VOYAGE = ["start", 70, 71, 72, 73, 74, 75, 76, 77, *ODDS, *EVENS_WITH_FILLERS, "finish"]


# ---------------------------------------------------------------------------------------------
# Setup and the deal


@pytest.mark.parametrize(
    ("players", "sizes"),
    [(1, [86]), (2, [44, 43]), (3, [30, 29, 29]), (4, [23, 22, 22, 22]), (5, [18, 18, 18, 18, 18])],
)
def test_shuffled_deal_splits_85_cards_lower_seats_taking_the_extra_ones_plus_one_start_each(players, sizes):
    table = core.new_table(SLUG, players=players, seed=7)
    dealt = table.events[1]
    assert isinstance(dealt, PilesDealt) and dealt.set_aside == ()
    assert [len(pile) for pile in dealt.piles] == sizes
    assert all(pile.count("start") == 1 for pile in dealt.piles)  # the unused Starts left the game
    cards = Counter(card for pile in dealt.piles for card in pile)
    assert cards == Counter([*ISLANDS, *["finish"] * 5, *["start"] * players])
    # everyone draws five from the top of their own pile; seat 0 starts
    assert [hand(table, seat) for seat in range(players)] == [
        list(rules.sorted_cards(pile[:5])) for pile in dealt.piles
    ]
    assert table.view(0)["piles"] == [size - 5 for size in sizes]
    assert table.to_act == (0,)


def test_galateia_sets_four_random_islands_aside_before_the_deal():
    table = core.new_table(SLUG, players=4, seed=3, options={"galateia": True})
    dealt = table.events[1]
    assert len(dealt.set_aside) == 4 and all(card in ISLANDS for card in dealt.set_aside)
    assert [len(pile) for pile in dealt.piles] == [22, 21, 21, 21]  # 81 cards, plus the Starts
    in_piles = {card for pile in dealt.piles for card in pile}
    assert not in_piles & set(dealt.set_aside)
    assert table.view(2)["set_aside"] == 4
    assert core.new_table(SLUG, players=4, seed=3).view(0)["set_aside"] == 0


def test_a_deal_draws_five_from_the_top_of_each_pile():
    table = new([10, 20, 30, 40, "start", 50], [1, 2, 3, 4, 5, 6])
    assert hand(table, 0) == ["10", "20", "30", "40", "start"]
    assert hand(table, 1) == ["1", "2", "3", "4", "5"]
    assert table.state.piles[1][0] == "6"


def test_a_galateia_deal_leaves_out_exactly_four_islands():
    table = new([1, 2, 3, 4, 5], galateia=True, left_out=("11", "22", "33", "44"))
    assert table.state.set_aside == ("11", "22", "33", "44")
    assert len(table.state.piles[0]) == 82 - 5


def deal_error(deal: dict, players: int = 2, galateia: bool = False) -> str:
    with pytest.raises(core.SetupError) as error:
        core.new_table(SLUG, players=players, seed=1, deal=deal, options={"galateia": galateia})
    return str(error.value)


def test_deal_validation_names_the_problem():
    good = make_deal([1], [2])["piles"]
    assert "one pile per seat" in deal_error({"hands": good})
    assert "3 piles for 2 players" in deal_error({"piles": [*good, ["start"]]})
    foreign = [["81" if card == "80" else card for card in pile] for pile in good]
    assert "'81' is not a card" in deal_error({"piles": foreign})
    assert "'joker' is not a card" in deal_error({"piles": [["joker", *good[0][1:]], good[1]]})
    twice = [["2" if card == "1" else card for card in good[0]], good[1]]
    assert "card 2 appears more often" in deal_error({"piles": twice})
    assert "pile 0 holds 0 Start cards" in deal_error({"piles": [[c for c in good[0] if c != "start"], good[1]]})
    assert "pile 0 holds 2 Start cards" in deal_error({"piles": [[*good[0], "start"], good[1]]})
    missing = [good[0][:-2] + ["start"], good[1]]
    assert "missing" in deal_error({"piles": missing})
    uneven = [good[0] + [good[1][0]], good[1][1:]]
    assert "must hold 44, 43" in deal_error({"piles": uneven})
    five_finishes = [[("finish" if card == "79" else card) for card in good[0]], good[1]]
    assert "finish appears more often" in deal_error({"piles": five_finishes})


def test_deal_validation_with_galateia():
    three_out = make_deal([1], left_out=("11", "22", "33"))
    assert "leaves out 3 Islands" in deal_error(three_out, players=1, galateia=True)
    five_out = make_deal([1], left_out=("11", "22", "33", "44", "55"))
    assert "leaves out 5 Islands" in deal_error(five_out, players=1, galateia=True)
    four_out = make_deal([1], left_out=("11", "22", "33", "44"))
    assert "missing 11, 22, 33, 44" in deal_error(four_out, players=1, galateia=False)
    assert "not 4" not in deal_error(make_deal([1]), players=1, galateia=True)


def test_deal_cards_are_read_in_any_case_and_as_numbers():
    deal = make_deal([1, 2, 3, 4, 5])
    deal["piles"][0] = [int(card) if card.isdigit() else card.upper() for card in deal["piles"][0]]
    table = core.new_table(SLUG, players=1, seed=1, deal=deal)
    assert hand(table, 0) == ["1", "2", "3", "4", "5"]


# ---------------------------------------------------------------------------------------------
# A turn: play one card or discard two, then draw back to five from your own pile


def test_turns_go_clockwise_from_seat_0_and_everyone_draws_back_to_five_from_their_own_pile():
    table = new([1, 2, 3, 4, 5, 6, 7], [11, 12, 13, 14, 15, 16], [21, 22, 23, 24, 25, 26])
    events = table.play(0, "discard 1 2")
    assert events == [CardsDiscarded(0, ("1", "2")), CardsDrawn(0, ("6", "7")), TurnPassed(1)]
    assert hand(table, 0) == ["3", "4", "5", "6", "7"]
    assert table.to_act == (1,)
    table.play(1, "play 12 b1")  # one card played, one drawn
    assert hand(table, 1) == ["11", "13", "14", "15", "16"]
    assert table.to_act == (2,)
    table.play(2, "discard 21 22")
    assert table.to_act == (0,)


def test_discarding_two_is_allowed_even_when_a_card_could_be_played():
    table = new([1, 2, 3, 4, 5])
    assert "play 1 a1" in table.legal_moves(0)
    table.play(0, "discard 1 2")
    assert table.view(0)["discarded"] == [2]


def test_a_turn_discard_is_exactly_two_cards():
    table = new([1, 2, 3, 4, 5])
    refused(table, 0, "discard 1", "exactly two")
    refused(table, 0, "discard 1 2 3", "exactly two")
    refused(table, 0, "discard", "exactly two")
    refused(table, 0, "discard 1 9", "you do not hold 9")
    refused(table, 0, "discard 1 1", "you do not hold 1")


def test_an_island_may_go_anywhere_on_an_empty_grid():
    table = new([40, 2, 3, 4, 5])
    assert table.play(0, "play 40 c4")[0] == IslandPlayed(0, 40, "c4", ())
    assert table.view(0)["grid"] == {"c4": 40}
    table = new([40, 2, 3, 4, 5])
    table.play(0, "play 40 f6")
    assert table.view(None)["grid"] == {"f6": 40}


def test_you_can_only_play_a_card_you_hold_into_an_empty_cell():
    table = new([10, 20, 30, 40, 50, 60])
    refused(table, 0, "play 11 a1", "you do not hold 11")
    table.play(0, "play 10 a1")
    refused(table, 0, "play 20 a1", "a1 already holds 10")


# ---------------------------------------------------------------------------------------------
# Placement: numbers ascend along the sequence a1..f1, a2..f2, ..., f6


def test_numbers_must_ascend_from_the_bottom_left_to_the_top_right():
    table = new([30, 10, 50, 20, 60, 70])
    table.play(0, "play 30 c3")
    refused(table, 0, "play 20 d3", "d3: c3 before it holds 30")
    refused(table, 0, "play 50 b3", "b3: c3 after it holds 30")
    refused(table, 0, "play 20 a4", "ascend from a1 to f6")  # a later row comes later in the sequence
    refused(table, 0, "play 50 f2", "f2: c3 after it holds 30")  # an earlier row comes earlier
    table.play(0, "play 50 a4")  # later in the sequence, even in another column
    table.play(0, "play 10 f2")
    assert {"c3": 30, "a4": 50, "f2": 10} == table.view(0)["grid"]


def test_a_card_may_go_between_two_cards_only_if_it_is_between_their_numbers():
    table = new([10, 40, 20, 50, 60, 30])
    table.play(0, "play 10 a1")
    table.play(0, "play 40 a3")
    refused(table, 0, "play 50 f2", "a3 after it holds 40")
    table.play(0, "play 20 c2")
    assert table.view(0)["grid"] == {"a1": 10, "c2": 20, "a3": 40}


# ---------------------------------------------------------------------------------------------
# Placement cost


def test_rulebook_example_placing_5_next_to_3_costs_two_cards_face_down():
    table = new([3, 5, 40, 41, 42, 43, 44, 45])
    table.play(0, "play 3 a1")
    refused(table, 0, "play 5 b1", "costs 2 cards")
    refused(table, 0, "play 5 b1 discard 40", "exactly 2")
    events = table.play(0, "play 5 b1 discard 40 41")
    assert events[0] == IslandPlayed(0, 5, "b1", ("40", "41"))
    assert events[1] == CardsDrawn(0, ("44", "45", "80"))  # back up to five
    assert table.view(0)["discarded"] == [2]
    assert table.view(0)["grid"] == {"a1": 3, "b1": 5}


def test_the_cost_counts_the_cell_just_before_as_well_as_just_after():
    table = new([10, 7, 40, 41, 42])
    table.play(0, "play 10 d1")
    assert table.play(0, "play 7 c1 discard 40 41 42")[0].paid == ("40", "41", "42")


def test_the_last_cell_of_a_row_is_next_to_the_first_cell_of_the_row_above():
    table = new([10, 12, 40, 41, 42])
    table.play(0, "play 10 f1")
    refused(table, 0, "play 12 a2", "costs 2 cards")
    table.play(0, "play 12 a2 discard 40 41")


def test_cells_above_one_another_are_not_next_to_each_other_and_a1_f6_do_not_wrap():
    table = new([10, 12, 1, 80, 40, 41])
    table.play(0, "play 10 a1")
    assert table.play(0, "play 12 a2")[0].paid == ()  # a2's neighbours are f1 and b2
    table = new([80, 1, 2, 3, 4])
    table.play(0, "play 80 f6")
    assert table.play(0, "play 1 a1")[0].paid == ()


def test_between_two_occupied_cells_the_smaller_difference_is_paid():
    table = new([10, 20, 18, 50, 51, 52])
    table.play(0, "play 10 a1")
    table.play(0, "play 20 c1")
    refused(table, 0, "play 18 b1 discard 50", "costs 2 cards \\(the difference to 20\\)")
    table.play(0, "play 18 b1 discard 50 51")


def test_occupied_cells_further_away_cost_nothing():
    table = new([10, 15, 40, 41, 42])
    table.play(0, "play 10 a1")
    refused(table, 0, "play 15 c1 discard 40", "costs nothing")
    assert table.play(0, "play 15 c1")[0].paid == ()


def test_the_player_chooses_which_cards_to_discard():
    for paid in (["40", "41"], ["41", "42"], ["40", "42"]):
        table = new([3, 5, 40, 41, 42])
        table.play(0, "play 3 a1")
        table.play(0, f"play 5 b1 discard {' '.join(paid)}")
        assert table.state.discards[0] == tuple(paid)


def test_paying_needs_other_cards_of_your_hand():
    table = new([3, 5, 40, 41, 42])
    table.play(0, "play 3 a1")
    refused(table, 0, "play 5 b1 discard 5 40", "cannot pay with 5")
    refused(table, 0, "play 5 b1 discard 40 43", "cannot pay with 43")
    refused(table, 0, "play 5 b1 discard 40 40", "cannot pay with 40")


def test_a_placement_may_cost_at_most_the_cards_left_in_hand():
    table = new([10, 14, 15, 30, 31, 32, 80])
    table.play(0, "play 10 a1")
    assert hand(table, 0) == ["14", "15", "30", "31", "32"]
    refused(table, 0, "play 15 b1 discard 14 30 31 32", "costs 5 cards \\(next to 10\\), more than the 4")
    assert not [m for m in table.legal_moves(0) if m.startswith("play 15 b1")]
    table.play(0, "play 14 b1 discard 15 30 31 32")  # four is the most: the whole rest of the hand
    assert table.view(0)["hands"] == [5]


def test_dead_starts_and_finishes_count_as_cards_for_paying():
    table = new(["start", 80, 79, 78, 77], [10, 60, 61, 62, 63, 12, "finish", "start", 50])
    table.play(0, "play start")
    table.play(0, "discard 77 78 79 80")
    table.play(1, "discard 60 61 62 63")  # 8 discarded: everyone draws back, seat 1 plays
    assert table.to_act == (1,)
    table.play(1, "play 10 a1")
    table.play(0, "discard " + " ".join(hand(table, 0)[:2]))
    assert {"12", "start", "finish"} <= set(hand(table, 1))
    table.play(1, "play 12 b1 discard start finish")
    assert table.state.discards[1][-2:] == ("start", "finish")


# ---------------------------------------------------------------------------------------------
# legal_moves enumerates every choice


def test_legal_moves_list_every_placement_with_every_choice_of_payment_and_every_pair():
    table = new([10, 12, 50, 51, 52, 60])
    table.play(0, "play 10 a1")
    assert hand(table, 0) == ["12", "50", "51", "52", "60"]
    legal = table.legal_moves(0)
    assert len(legal) == len(set(legal))
    b1 = sorted(m for m in legal if m.startswith("play 12 b1"))
    assert b1 == [
        "play 12 b1 discard 50 51",
        "play 12 b1 discard 50 52",
        "play 12 b1 discard 50 60",
        "play 12 b1 discard 51 52",
        "play 12 b1 discard 51 60",
        "play 12 b1 discard 52 60",
    ]
    free = [m for m in legal if m.startswith("play") and "discard" not in m]
    assert len(free) == 5 * 34  # every card in any cell c1..f6 (b1 costs 40+ for the big ones)
    assert len([m for m in legal if m.startswith("discard")]) == 10
    assert len(legal) == 6 + 170 + 10
    for text in legal:  # and every one of them is accepted
        probe = core.replay_table(SLUG, list(table.events), seed=1)
        probe.play(0, text)


def test_legal_moves_count_identical_cards_once():
    table = new([10, 12, "finish", "finish", 50, 51])
    table.play(0, "play 10 a1")
    assert hand(table, 0) == ["12", "50", "51", "finish", "finish"]
    legal = table.legal_moves(0)
    assert sorted(m for m in legal if m.startswith("play 12 b1")) == [
        "play 12 b1 discard 50 51",
        "play 12 b1 discard 50 finish",
        "play 12 b1 discard 51 finish",
        "play 12 b1 discard finish finish",
    ]
    assert sorted(m for m in legal if m.startswith("discard")) == [
        "discard 12 50",
        "discard 12 51",
        "discard 12 finish",
        "discard 50 51",
        "discard 50 finish",
        "discard 51 finish",
        "discard finish finish",
    ]


def test_only_the_player_to_act_has_moves():
    table = new([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    assert table.legal_moves(1) == []
    refused(table, 1, "discard 6 7", "not seat 1's turn")


# ---------------------------------------------------------------------------------------------
# The Start card and the group discard of eight


def test_a_held_start_must_be_played_when_none_is_down():
    table = new([1, "start", 3, 4, 5], [6, 7, 8, 9, 10])
    assert table.legal_moves(0) == ["play start"]
    refused(table, 0, "play 1 a1", "you must play it")
    refused(table, 0, "discard 1 3", "you must play it")
    refused(table, 0, "discard 1 start", "you must play it")
    refused(table, 0, "play finish", "you must play it")


def test_the_start_goes_into_the_frame_and_the_table_owes_eight_cards_starting_with_its_player():
    table = new([1, "start", 3, 4, 5, 6], [11, 12, 13, 14, 15], [21, 22, 23, 24, 25])
    events = table.play(0, "play start")
    assert events == [StartPlayed(0)]  # the Start's player does not draw first
    view = table.view(0)
    assert view["frame"] == {"start": True, "finish": False} and view["grid"] == {} and view["filled"] == 0
    assert view["start_discard"] == {"starter": 0, "owed": 8, "circle": 1, "at_least": 0}
    assert hand(table, 0) == ["1", "3", "4", "5"]
    assert table.to_act == (0,)
    assert table.legal_moves(0)[0] == "discard"  # nothing at all is allowed in the first circle
    assert len(table.legal_moves(0)) == 16  # every subset of four cards
    refused(table, 0, "play 1 a1", "discarding for the Start")
    refused(table, 0, "play start", "discarding for the Start")


def test_the_group_discard_goes_clockwise_and_then_everyone_draws_back_starting_with_the_starter():
    table = new([1, 2, "start", 3, 4, 5], [11, 12, 13, 14, 15, 16], [21, 22, 23, 24, 25, 26])
    table.play(0, "play start")
    assert table.play(0, "discard") == [StartShareDiscarded(0, ())]
    assert table.to_act == (1,)
    table.play(1, "discard 11 12 13")
    assert table.view(2)["start_discard"]["owed"] == 5
    piles = table.state.piles
    events = table.play(2, "discard 21 22 23 24 25")
    assert events[0] == StartShareDiscarded(2, ("21", "22", "23", "24", "25"))
    assert events[1] == HandsRefilled((piles[0][:1], piles[1][:3], piles[2][:5]))
    assert piles[0][0] == "5" and piles[1][0] == "16" and piles[2][0] == "26"
    assert events[2] == TurnPassed(1)  # the Start was seat 0's action: seat 1 plays next
    assert table.view(0)["hands"] == [5, 5, 5] and table.view(0)["start_discard"] is None
    assert table.view(0)["discarded"] == [0, 3, 5]
    line = report(table, 0)[-2]
    assert line == "everyone draws back to five: seat 0 draws 1 card (5), seat 1 draws 3 cards, seat 2 draws 5 cards"


def test_refill_reports_start_with_the_starter():
    table = new([11, 12, 13, 14, 15], ["start", 1, 2, 3, 4])
    table.play(0, "discard 11 12")
    events = table.play(1, "play start")
    assert events[0] == StartPlayed(1)
    table.play(1, "discard 1 2 3 4")
    events = table.play(0, "discard 13 14 15 80")
    assert report(table, None)[-2].startswith("everyone draws back to five: seat 1 draws")
    assert events[2] == TurnPassed(0)


def test_nobody_discards_more_than_is_still_owed():
    table = new(["start", 1, 2, 3, 4], [11, 12, 13, 14, 15], [21, 22, 23, 24, 25])
    table.play(0, "play start")
    table.play(0, "discard 1 2 3 4")
    table.play(1, "discard 11 12")
    refused(table, 2, "discard 21 22 23", "only 2 cards still owed")
    assert max(len(m.split()) - 1 for m in table.legal_moves(2)) == 2
    table.play(2, "discard 21 22")
    assert table.to_act == (1,)


def test_from_the_second_circle_on_a_player_with_cards_discards_at_least_one_and_empty_hands_are_skipped():
    table = new(["start", 1, 2, 3, 4], [11, 12, 13, 14, 15])
    table.play(0, "play start")
    table.play(0, "discard 1 2 3 4")  # seat 0's hand is now empty
    table.play(1, "discard")
    # second circle: seat 0 holds nothing and is skipped (its turn counts as taken)
    assert table.to_act == (1,)
    assert table.view(1)["start_discard"] == {"starter": 0, "owed": 4, "circle": 2, "at_least": 1}
    refused(table, 1, "discard", "at least one")
    assert "discard" not in table.legal_moves(1)
    table.play(1, "discard 11")
    assert table.to_act == (1,) and table.view(1)["start_discard"]["circle"] == 3
    piles = table.state.piles
    events = table.play(1, "discard 12 13 14")
    assert events[1] == HandsRefilled((piles[0][:5], piles[1][:4]))
    assert events[2] == TurnPassed(1)


def test_when_every_hand_is_empty_with_cards_still_owed_everyone_draws_back_and_the_discard_goes_on():
    table = new(["start", 1, 2, 3, 4, 5, 6, 7, 8, 9])
    table.play(0, "play start")
    events = table.play(0, "discard 1 2 3 4")
    assert events == [StartShareDiscarded(0, ("1", "2", "3", "4")), HandsRefilled((("5", "6", "7", "8", "9"),))]
    assert table.view(0)["start_discard"] == {"starter": 0, "owed": 4, "circle": 2, "at_least": 1}
    refused(table, 0, "discard", "at least one")
    refused(table, 0, "discard 5 6 7 8 9", "only 4 cards still owed")
    table.play(0, "discard 5 6 7 8")
    assert table.to_act == (0,) and hand(table, 0) == ["9", "77", "78", "79", "80"]


def test_after_a_refill_no_circle_is_a_first_circle_again():
    # Unreachable from a deal (before the first Start is down a seat whose pile ran out still
    # holds its own Start, so hands cannot all be empty mid-way through the first circle), so
    # this checks the protocol on a state built by hand: seat 1 is in the first circle by count.
    table = new(["start", 1, 2, 3, 4], [11, 12, 13, 14, 15], [21, 22, 23, 24, 25])
    table.play(0, "play start")
    table.play(0, "discard 1 2 3 4")
    assert table.legal_moves(1)[0] == "discard"
    refilled = attrs.evolve(table.state.start_discard, refilled=True)
    table.state = attrs.evolve(table.state, start_discard=refilled)
    assert table.view(1)["start_discard"] == {"starter": 0, "owed": 4, "circle": 1, "at_least": 1}
    assert "discard" not in table.legal_moves(1)
    refused(table, 1, "discard", "at least one")


def test_everyone_loses_when_the_refill_for_the_start_brings_no_card():
    # one player, the Start at the very bottom: discard pairs until it comes up
    table = new([1, 2, 3, 4, 5])
    while "play start" not in table.legal_moves(0):
        table.play(0, "discard " + two_spare(table))
    assert table.state.piles[0] == () and len(hand(table, 0)) == 4
    table.play(0, "play start")
    events = table.play(0, "discard " + " ".join(hand(table, 0)))
    assert played(events)[-1] == GameLost(0, LossReason.NO_CARDS)
    assert table.outcome == core.Outcome(scores=(0,), winners=())
    assert table.view(0)["result"] == "lost: no_cards"


def two_spare(table: core.Table) -> str:
    """Seat 0's two highest Islands, or Finishes when it lacks Islands (a Start is never spare)."""
    islands = sorted((card for card in hand(table, 0) if card.isdigit()), key=int, reverse=True)
    return " ".join(rules.sorted_cards([*islands, *["finish"] * hand(table, 0).count("finish")][:2]))


def test_other_starts_are_dead_once_one_is_in_the_frame():
    table = new(["start", 80, 79, 78, 77], [1, 2, "start", 3, 4])
    table.play(0, "play start")
    table.play(0, "discard 77 78 79 80")
    table.play(1, "discard 1 2 3 4")
    assert table.to_act == (1,)
    assert hand(table, 1)[-1] == "start"
    assert "play start" not in table.legal_moves(1)
    refused(table, 1, "play start", "already in the frame")
    spare = hand(table, 1)[0]
    assert f"discard {spare} start" in table.legal_moves(1)
    table.play(1, f"discard {spare} start")


def test_a_dead_start_may_be_discarded_for_the_group_discard():
    table = new(["start", 80, 79, 78, 77], [1, 2, "start", 3, 4])
    table.play(0, "play start")
    table.play(0, "discard 77 78")
    assert "discard start" in table.legal_moves(1)
    table.play(1, "discard start")
    assert table.state.discards[1] == ("start",)


# ---------------------------------------------------------------------------------------------
# The Finish card and the end


def test_finish_cards_can_only_be_discarded_before_the_grid_is_full():
    table = new([1, "finish", 3, 4, 5])
    refused(table, 0, "play finish", "only on a full grid \\(0 of 36")
    assert not [m for m in table.legal_moves(0) if m == "play finish"]
    table.play(0, "discard 1 finish")


def test_a_full_grid_with_a_start_in_the_frame_then_a_finish_wins_for_everyone():
    table = new(SOLO_VOYAGE)
    fill_grid(table)
    assert table.view(0)["filled"] == 36 and table.view(0)["frame"] == {"start": True, "finish": False}
    assert table.legal_moves(0) == ["play finish"]  # the only legal move
    refused(table, 0, "discard 79 finish", "only move is 'play finish'")
    assert played(table.play(0, "play finish")) == [FinishPlayed(0)]
    assert table.outcome == core.Outcome(scores=(36,), winners=(0,))
    assert table.to_act == () and table.view(0)["result"] == "won"
    assert table.view(0)["frame"] == {"start": True, "finish": True}


def test_everyone_loses_when_the_player_after_the_full_grid_holds_no_finish():
    table = new(SOLO_VOYAGE[:-1])  # the Finishes all lie at the bottom of the pile
    fill_grid(table)
    assert played(table.events)[-2:] == [TurnPassed(0), GameLost(0, LossReason.NO_FINISH)]
    assert table.outcome == core.Outcome(scores=(36,), winners=())
    assert report(table, None)[-2] == "everyone loses: the grid is full but seat 0 holds no Finish card"


def test_a_finish_needs_a_start_in_the_frame_even_on_a_full_grid():
    # the Start lies deep in the pile: the grid fills first, then only pairs can be discarded
    voyage = [*ODDS, *EVENS_WITH_FILLERS, *range(78, 70, -1), "start", 70, 80, 79, *range(51, 46, -1), "finish"]
    table = new(voyage)
    fill_grid(table)
    assert not table.state.start_down and table.state.lost is None
    assert all(m.startswith("discard") for m in table.legal_moves(0))
    refused(table, 0, "play finish", "once a Start card is in the frame")
    while "play start" not in table.legal_moves(0):
        table.play(0, "discard " + two_spare(table))
    fill_grid_and_sail(table)
    assert table.outcome == core.Outcome(scores=(36,), winners=(0,))


def fill_grid_and_sail(table: core.Table) -> None:
    """One player: play the Start, pay its eight with Islands only, then play the Finish."""
    table.play(0, "play start")
    while table.state.start_discard is not None:
        islands = [card for card in hand(table, 0) if card.isdigit()]
        table.play(0, "discard " + " ".join(islands[: table.state.start_discard.owed]))
    assert table.legal_moves(0) == ["play finish"]
    table.play(0, "play finish")


# Two players: seat 0 holds the Start, the odd Islands and fillers; seat 1 the even Islands,
# each followed by the filler it costs. Seat 0 places the last Island (35 in e6).
ODD_SEAT = ["start", 70, 71, 72, 73, *ODDS, *range(69, 52, -1)]
EVEN_SEAT = [74, 75, 76, 77, *[c for pair in zip(range(2, 37, 2), [*range(52, 36, -1), 78, 79]) for c in pair]]


def test_with_several_players_the_next_player_must_play_the_finish_and_everyone_wins():
    table = new(ODD_SEAT, EVEN_SEAT)
    fill_grid(table)
    last = [e for e in table.events if isinstance(e, IslandPlayed)][-1]
    assert last == IslandPlayed(0, 35, "e6", ("63",))
    assert table.to_act == (1,) and "finish" in hand(table, 1)
    assert table.legal_moves(1) == ["play finish"]
    table.play(1, "play finish")
    assert table.outcome == core.Outcome(scores=(36, 36), winners=(0, 1))


def test_everyone_loses_if_the_next_player_holds_no_finish_even_when_another_does():
    # seat 0 picks up a Finish on the way; all the other Finishes lie at the bottom of its pile
    odd_seat = ["start", 70, 71, 72, 73, *ODDS, 69, 68, 67, 66, "finish", *range(65, 53, -1)]
    even_seat = [74, 75, 76, 77, *[c for pair in zip(range(2, 37, 2), [*range(53, 36, -1), 78]) for c in pair], 79, 80]
    table = new(odd_seat, even_seat)
    fill_grid(table)
    assert "finish" in hand(table, 0) and "finish" not in hand(table, 1)
    assert played(table.events)[-2:] == [TurnPassed(1), GameLost(1, LossReason.NO_FINISH)]
    assert table.outcome == core.Outcome(scores=(36, 36), winners=())
    assert table.view(0)["result"] == "lost: no_finish"


# ---------------------------------------------------------------------------------------------
# Running out: play on with fewer cards; lose when the player to act can do nothing


def run_down_pile(table: core.Table, keep: set[str]) -> None:
    """One player: play the Start with its discard of eight (from the top of the pile), place 21
    in c1 and 70 in f6, then discard pairs of cards outside `keep` until the pile is empty."""
    table.play(0, "play start")
    table.play(0, "discard 77 78 79 80")
    table.play(0, "discard 73 74 75 76")
    table.play(0, "play 21 c1")
    table.play(0, "play 70 f6")
    while table.state.piles[0]:
        spare = [card for card in hand(table, 0) if card not in keep]
        table.play(0, "discard " + " ".join(spare[:2]))


RUN_DOWN = ["start", 80, 79, 78, 77, 76, 75, 74, 73, 10, 20, 21, 70]


def test_when_the_pile_is_empty_play_goes_on_and_one_unplayable_card_loses():
    table = new(RUN_DOWN)
    run_down_pile(table, keep={"10", "20"})
    assert len(hand(table, 0)) == 5 and table.state.piles[0] == ()
    spare = [card for card in hand(table, 0) if card not in ("10", "20")]
    events = table.play(0, f"discard {spare[0]} {spare[1]}")
    assert events == [CardsDiscarded(0, tuple(rules.sorted_cards(spare[:2]))), TurnPassed(0)]  # nothing to draw
    assert hand(table, 0) == ["10", "20", spare[2]]
    events = table.play(0, f"play 20 b1 discard {spare[2]}")  # next to 21: costs one
    assert hand(table, 0) == ["10"]
    # 10 fits only in a1, next to 20: it would cost 10 cards
    assert played(events)[-2:] == [TurnPassed(0), GameLost(0, LossReason.STUCK)]
    assert table.outcome == core.Outcome(scores=(3,), winners=())
    assert report(table, 0)[-2] == "everyone loses: seat 0 can neither play a card nor discard two"


def test_a_player_to_act_with_an_empty_hand_loses_for_everyone():
    table = new(RUN_DOWN)
    run_down_pile(table, keep={"10", "20"})
    spare = [card for card in hand(table, 0) if card not in ("10", "20")]
    table.play(0, f"discard {spare[0]} {spare[1]}")
    table.play(0, f"discard 10 {spare[2]}")
    assert hand(table, 0) == ["20"] and "play 20 b1" not in table.legal_moves(0)
    events = table.play(0, "play 20 a1")
    assert played(events)[-1] == GameLost(0, LossReason.STUCK) and table.view(0)["hands"] == [0]
    assert table.view(0)["loss"] == "seat 0 can neither play a card nor discard two"


# ---------------------------------------------------------------------------------------------
# No communication: what a seat sees


def test_a_seat_sees_its_hand_the_grid_the_frame_and_only_sizes_of_everything_else():
    table = new([3, 2, 4, 5, 6], [12, 11, 14, 15, 16], [13, 21, 22, 23, 24])
    table.play(0, "play 3 a1")
    table.play(1, "play 12 c1")
    table.play(2, "play 13 d1 discard 21")
    view = table.view(1)
    del view["seq"], view["legal_moves"]
    assert view == {
        "game": "tranquility",
        "seat": 1,
        "to_act": [0],
        "outcome": None,
        "hand": list(table.state.hands[1]),
        "grid": {"a1": 3, "c1": 12, "d1": 13},
        "filled": 3,
        "frame": {"start": False, "finish": False},
        "piles": [24, 23, 22],
        "hands": [5, 5, 5],
        "discarded": [0, 0, 1],
        "set_aside": 0,
        "start_discard": None,
        "result": None,
        "loss": None,
    }
    assert table.view(None)["hand"] == [] and table.view(None)["legal_moves"] == []


def test_views_survive_a_redeal_of_the_hidden_cards():
    table = new([1, 2, 3, 4, 5], [11, 12, 13, 14, 15], [21, 22, 23, 24, 25])
    table.play(0, "discard 1 2")
    table.play(1, "play 11 b3")
    for seat in range(3):
        for salt in range(5):
            redealt = rules.determinize(table.state, seat, Rng(salt, seat))
            assert redealt.hands[seat] == table.state.hands[seat]
            assert redealt.discards[seat] == table.state.discards[seat]  # a seat remembers its own
            twin = core.Table(table.game, list(table.events), redealt, 1)
            assert twin.view(seat) == table.view(seat)
    assert any(rules.determinize(table.state, 2, Rng(s, 0)).hands[0] != table.state.hands[0] for s in range(5))


def test_determinize_keeps_each_start_with_its_owner_and_only_islands_set_aside():
    table = core.new_table(SLUG, players=3, seed=4, options={"galateia": True})
    for salt in range(20):
        redealt = rules.determinize(table.state, 0, Rng(salt, 0))
        for seat in range(3):
            mine = redealt.piles[seat] + redealt.hands[seat] + redealt.discards[seat]
            assert mine.count("start") == 1
        assert all(card in ISLANDS for card in redealt.set_aside)
        everything = [c for p in (*redealt.piles, *redealt.hands, *redealt.discards) for c in p]
        assert Counter(everything + list(redealt.set_aside)) == Counter(
            [c for p in (*table.state.piles, *table.state.hands) for c in p] + list(table.state.set_aside)
        )


def test_turn_reports_hide_other_players_cards():
    table = new([3, 5, 40, 41, 42], [11, 12, 13, 14, 15])
    table.play(0, "play 3 a1")
    table.play(1, "discard 11 12")
    table.play(0, "play 5 b1 discard 40 41")
    paid, drawn = table.events[-3], table.events[-2]
    assert rules.narrate(table.state, paid, 0) == "seat 0 places 5 in b1, discarding 2 cards face down (40 41)"
    assert rules.narrate(table.state, paid, 1) == "seat 0 places 5 in b1, discarding 2 cards face down"
    assert rules.narrate(table.state, paid, None) == "seat 0 places 5 in b1, discarding 2 cards face down"
    faces = " ".join(drawn.cards)
    assert rules.narrate(table.state, drawn, 0) == f"seat 0 draws 3 cards ({faces})"
    assert rules.narrate(table.state, drawn, 1) == "seat 0 draws 3 cards"
    discarded = table.events[[type(e) for e in table.events].index(CardsDiscarded)]
    assert rules.narrate(table.state, discarded, 0) == "seat 1 discards 2 cards face down"
    assert rules.narrate(table.state, discarded, 1) == "seat 1 discards 2 cards face down (11 12)"


def test_there_is_no_way_to_talk():
    table = new([1, 2, 3, 4, 5])
    for text in ("say I hold 5", "tell seat 1 hello", "discard 5 please"):
        refused(table, 0, text, "malformed move")


# ---------------------------------------------------------------------------------------------
# Notation


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("play 23 c2 discard 17 5", "play 23 c2 discard 5 17"),
        ("  PLAY 07   A1 ", "play 7 a1"),
        ("play 7 a1 discard", "play 7 a1"),
        ("play Start", "play start"),
        ("play FINISH", "play finish"),
        ("discard finish 5 start 3", "discard 3 5 start finish"),
        ("discard", "discard"),
        ("discard 80 finish finish", "discard 80 finish finish"),
        ("play 12 f6 discard start finish 4", "play 12 f6 discard 4 start finish"),
    ],
)
def test_move_texts_are_parsed_tolerantly_and_printed_canonically(text, canonical):
    assert str(rules.parse_move(text)) == canonical


@pytest.mark.parametrize(
    "text",
    ["", "play", "play 0 a1", "play 81 a1", "play 5 g1", "play 5 a7", "play 5", "play start a1",
     "play finish now", "play 5 a1 pay 3", "discard 5 81", "discard x", "play 5 a1 discard 0", "pass",
     "play start finish", "play 5a1"],
)
def test_malformed_moves_are_refused_with_the_forms_listed(text):
    with pytest.raises(core.IllegalMove, match="malformed move .*expected 'play <1-80> <a1-f6>'"):
        rules.parse_move(text)


def test_cells_read_columns_a_to_f_and_rows_1_to_6_from_the_bottom():
    assert rules.CELL_NAMES[0] == "a1" and rules.CELL_NAMES[5] == "f1"
    assert rules.CELL_NAMES[6] == "a2" and rules.CELL_NAMES[35] == "f6"


def test_events_narrate_in_one_line_each():
    table = new(["start", 1, 2, 3, 4], [11, 12, 13, 14, 15])
    table.play(0, "play start")
    table.play(0, "discard 1 2 3 4")
    table.play(1, "discard 11")
    lines = [line for _, line in table.narrate(1)]
    assert "seat 0 plays a Start card into the frame: the table discards 8 cards, seat 0 first" in lines
    assert "seat 0 discards 4 cards face down for the Start (4 cards still owed)" in lines
    assert "seat 1 discards 1 card face down (11) for the Start (3 cards still owed)" in lines
    assert all("\n" not in line for line in lines)
