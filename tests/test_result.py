"""pbm/result.py: a finished game's result, ranked winner first, in each game's own units."""

from __future__ import annotations

from pbm.result import ranked, result_lines, result_text


def test_the_winner_comes_first_then_the_others_by_score() -> None:
    outcome = {"scores": [11, 16, 13], "winners": [1]}
    assert [(p.place, p.seat) for p in ranked("holly-oak", outcome)] == [(1, 1), (2, 2), (3, 0)]
    assert result_lines("holly-oak", outcome) == [
        "seat 1 wins with 16 points.",
        "1. seat 1: 16 points (winner)",
        "2. seat 2: 13 points",
        "3. seat 0: 11 points",
    ]


def test_a_tie_broken_by_the_rules_keeps_the_winner_first_and_equal_losers_share_a_place() -> None:
    outcome = {"scores": [15, 15, 9, 9], "winners": [1]}
    assert [(p.place, p.seat) for p in ranked("holly-oak", outcome)] == [(1, 1), (2, 0), (3, 2), (3, 3)]


def test_holiday_counts_dollars() -> None:
    assert result_text("holiday-board", {"scores": [9300, 11000], "winners": [1]}) == "seat 1 wins with $11,000; then seat 0 with $9,300"


def test_a_cooperative_loss_says_why_once_for_the_team() -> None:
    outcome = {"scores": [17, 17, 17], "winners": []}
    lines = result_lines("tranquility", outcome, loss="seat 2 can neither play a card nor discard two")
    assert lines == ["lost together: seat 2 can neither play a card nor discard two, 17 of 36 cells filled."]
    assert result_text("tranquility", {"scores": [36], "winners": [0]}) == "won together, 36 of 36 cells filled"


def test_names_come_from_the_caller() -> None:
    names = {0: "you", 1: "Ann"}.__getitem__
    assert result_text("holidays", {"scores": [3, 12], "winners": [1]}, name=names) == "Ann wins with 12 points; then you with 3 points"


def test_the_reader_who_won_reads_you_win() -> None:
    names = {0: "Ann", 1: "you"}.__getitem__
    assert result_text("holly-oak", {"scores": [3, 12], "winners": [1]}, name=names) == "you win with 12 points; then Ann with 3 points"
