"""Holly Oak scenarios: every rule, house decision and worked example of the rulebook, each from
an exact deal (seats are clockwise 0..N-1; a script "2:8Fa" means seat 2 plays 8Fa)."""

from __future__ import annotations

import attrs
import pytest

import core
from core.games.holly_oak import GAME
from core.games.holly_oak import rules
from core.games.holly_oak.events import (
    CardPlayed,
    GameEnded,
    HandsDealt,
    LeadPassed,
    RoundEndedOutOfSeason,
    RoundScored,
    Season,
    TrickWon,
)

ALL_TEXTS = [str(card) for card in rules.ALL_CARDS]


def deck_texts(players: int) -> list[str]:
    return [t for t in ALL_TEXTS if t not in rules.REMOVED_CARDS[players]]


def rest(players: int, *hands: str) -> str:
    """The cards of the deck that none of `hands` holds: the last seat's hand."""
    taken = {card for hand in hands for card in hand.split()}
    return " ".join(t for t in deck_texts(players) if t not in taken)


def table(*hands: str, seed: int = 1) -> core.Table:
    return core.new_table("holly-oak", players=len(hands), seed=seed, deal={"hands": [h.split() for h in hands]})


def play(t: core.Table, script: str) -> list:
    events = []
    for step in script.split():
        seat, card = step.split(":")
        events += t.play(int(seat), f"play {card}")
    return events


def last_lines(t: core.Table, count: int, seat: int | None = None) -> list[str]:
    return [line for _, line in t.narrate(seat)][-count:]


def of_type(events: list, cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]


# --- Decks -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size"), [(3, 15), (4, 11), (5, 9)])
def test_all_cards_are_dealt_evenly_and_0_winter_leaves_for_4_players(players: int, size: int) -> None:
    t = core.new_table("holly-oak", players=players, seed=99)
    dealt = t.events[1]
    assert isinstance(dealt, HandsDealt) and dealt.round == 1
    assert [len(hand) for hand in dealt.hands] == [size] * players
    cards = sorted(card for hand in dealt.hands for card in hand)
    assert cards == sorted(deck_texts(players))
    assert ("0Wi" in cards) == (players != 4)
    assert "SR" in cards and len(cards) == (44 if players == 4 else 45)


def test_king_table_is_the_house_table() -> None:
    assert dict(rules.KING_POINTS) == {"0Sp": 2, "7Sp": 1, "9Su": 1, "0Fa": 2, "7Fa": 1, "9Wi": 1}
    assert "0Wi" not in rules.KING_POINTS
    assert rules.NO_TRICK_BONUS == {3: 8, 4: 5, 5: 3}
    assert rules.WINNING_SCORE == {3: 15, 4: 13, 5: 10}


# --- Notation ----------------------------------------------------------------------------------


def test_move_notation_is_canonical_and_tolerant() -> None:
    assert str(GAME.parse_move("play 7Su")) == "play 7Su"
    assert str(GAME.parse_move("  PLAY   10fa ")) == "play 10Fa"
    assert str(GAME.parse_move("Play sr")) == "play SR"
    assert str(GAME.parse_move("play 0wi")) == "play 0Wi"


@pytest.mark.parametrize("text", ["play 7 Su", "7Su", "play", "play 11Sp", "play 7Xx", "discard 7Su", "play SR 7Su", ""])
def test_malformed_moves_are_refused(text: str) -> None:
    with pytest.raises(core.IllegalMove, match="malformed move .*expected play <card>"):
        GAME.parse_move(text)


# --- Deal validation ---------------------------------------------------------------------------

THREE = rest(3).split()


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ({"hands": [THREE[:15], THREE[15:30]]}, "3 lists for 3 players"),
        ({"hands": [THREE[:14], THREE[14:30], THREE[30:]]}, "seat 0 has 14 cards; with 3 players each hand has 15"),
        ({"hands": [THREE[:15], THREE[15:30], THREE[30:44] + ["11Sp"]]}, "'11Sp' is not a card of this game"),
        ({"hands": [THREE[:15], THREE[15:30], THREE[30:]], "pot": []}, "unexpected|got keys"),
        ({"hands": [THREE[:15], THREE[15:30], "oops"]}, "seat 2's hand must be a list of card texts"),
        ({"cards": []}, "hands"),
    ],
)
def test_bad_deals_are_refused_clearly(deal: dict, message: str) -> None:
    with pytest.raises(core.SetupError, match=message):
        core.new_table("holly-oak", players=3, seed=1, deal=deal)


def test_a_duplicate_card_is_refused() -> None:
    hands = [THREE[:15], THREE[15:30], THREE[30:44] + [THREE[0]]]
    with pytest.raises(core.SetupError, match=f"card {THREE[0]} appears more often"):
        core.new_table("holly-oak", players=3, seed=1, deal={"hands": hands})


def test_0_winter_is_foreign_in_a_4_player_deal() -> None:
    cards = deck_texts(4)
    hands = [cards[:11], cards[11:22], cards[22:33], cards[33:43] + ["0Wi"]]
    with pytest.raises(core.SetupError, match="deal for 4 players: '0Wi' is not a card of this game"):
        core.new_table("holly-oak", players=4, seed=1, deal={"hands": hands})


def test_deal_texts_are_read_case_insensitively_and_sorted() -> None:
    cards = deck_texts(3)
    hands = [[c.lower() for c in reversed(cards[:15])], cards[15:30], cards[30:]]
    t = core.new_table("holly-oak", players=3, seed=1, deal={"hands": hands})
    assert t.view(0)["hand"] == cards[:15]


# --- The first trick ---------------------------------------------------------------------------

# The rulebook's Spring example: after 1 Spring, the next player holds 0, 4 and 9 Spring (and SR).
SPRING_FOLLOW = (
    "1Sp 2Sp 3Sp 0Su 1Su 2Su 3Su 4Su 5Su 6Su 7Su 8Su 9Su 10Su 0Fa",
    "0Sp 4Sp 9Sp SR 1Fa 2Fa 3Fa 4Fa 5Fa 6Fa 7Fa 8Fa 9Fa 10Fa 0Wi",
)


def spring_follow_table() -> core.Table:
    return table(*SPRING_FOLLOW, rest(3, *SPRING_FOLLOW))


def test_the_holder_of_1_spring_must_lead_it_in_spring() -> None:
    t = spring_follow_table()
    assert t.to_act == (0,)
    assert t.view(0)["season"] == "Spring" and t.view(0)["leader"] == 0
    assert t.legal_moves(0) == ["play 1Sp"]
    with pytest.raises(core.IllegalMove, match="the first trick of a round is led with 1Sp, not 2Sp"):
        t.play(0, "play 2Sp")
    with pytest.raises(core.IllegalMove, match="not seat 1's turn"):
        t.play(1, "play 0Sp")
    assert play(t, "0:1Sp") == [CardPlayed(seat=0, card="1Sp", season=Season.SPRING)]
    assert last_lines(t, 1) == ["seat 0 led 1Sp: round 1 begins in Spring"]


def test_example_follow_spring_with_any_spring_card() -> None:
    t = spring_follow_table()
    play(t, "0:1Sp")
    assert t.legal_moves(1) == ["play 0Sp", "play 4Sp", "play 9Sp"]
    with pytest.raises(core.IllegalMove, match="you must follow Spring: you hold 0Sp, 4Sp, 9Sp"):
        t.play(1, "play 5Fa")
    play(t, "1:4Sp")
    assert t.view(2)["trick"] == [
        {"seat": 0, "card": "1Sp", "season": "Spring"},
        {"seat": 1, "card": "4Sp", "season": "Spring"},
    ]


def test_season_retreats_may_not_be_played_while_holding_the_current_season() -> None:
    t = spring_follow_table()
    play(t, "0:1Sp")
    with pytest.raises(core.IllegalMove, match="you must follow Spring"):
        t.play(1, "play SR")


def test_a_card_not_held_is_refused() -> None:
    t = spring_follow_table()
    with pytest.raises(core.IllegalMove, match="you do not hold 5Sp"):
        t.play(0, "play 5Sp")


# The rulebook's Summer example: a player without Spring plays Summer, the season advances and
# the next player must play Summer.
SUMMER_ADVANCE = (
    "1Sp 0Fa 1Fa 2Fa 3Fa 4Fa 5Fa 6Fa 7Fa 8Fa 9Fa 10Fa 0Wi 1Wi 2Wi",
    "7Su 0Su 1Su 2Su 3Wi 4Wi 5Wi 6Wi 7Wi 8Wi 9Wi 10Wi SR 8Su 9Su",
)


def test_example_a_void_player_plays_summer_and_the_season_advances() -> None:
    t = table(*SUMMER_ADVANCE, rest(3, *SUMMER_ADVANCE))
    play(t, "0:1Sp")
    assert len(t.legal_moves(1)) == 15  # no Spring: any card, Season Retreats included
    events = play(t, "1:7Su")
    assert events == [CardPlayed(seat=1, card="7Su", season=Season.SUMMER)]
    assert last_lines(t, 1) == ["seat 1 played 7Su: it's Summer now"]
    assert t.view(2)["season"] == "Summer"
    # Seat 2 holds Spring cards too, but the season is Summer now.
    assert t.legal_moves(2) == ["play 3Su", "play 4Su", "play 5Su", "play 6Su", "play 10Su"]
    with pytest.raises(core.IllegalMove, match="you must follow Summer: you hold 3Su, 4Su, 5Su, 6Su, 10Su"):
        t.play(2, "play 0Sp")
    events = play(t, "2:3Su")
    assert events[-1] == TrickWon(seat=1, card="7Su")
    assert last_lines(t, 1) == ["seat 1 won the trick with 7Su"]


# --- Several advances in one trick -------------------------------------------------------------

# 5 players. Trick 1 ends in Fall (won by seat 2 with 8Fa); seat 2 then leads 3 Fall as in the
# rulebook: 7 Winter advances to Winter, 4 Spring advances again.
DOUBLE_ADVANCE = (
    "1Sp 6Sp 9Su 10Su 6Fa 7Fa 9Fa 10Fa 10Wi",
    "5Su SR 7Su 8Su 0Fa 1Fa 4Fa 8Wi 9Wi",
    "3Fa 8Fa 0Sp 3Sp 5Sp 0Wi 1Wi 2Wi 3Wi",
    "2Sp 7Wi 9Sp 10Sp 3Su 4Su 4Wi 5Wi 6Wi",
    "2Fa 5Fa 4Sp 6Su 7Sp 8Sp 0Su 1Su 2Su",
)


def double_advance_table() -> core.Table:
    t = table(*DOUBLE_ADVANCE)
    play(t, "0:1Sp 1:5Su 2:8Fa 3:2Sp 4:2Fa")
    return t


def test_the_season_can_advance_twice_in_one_trick_and_persists_to_the_next() -> None:
    t = double_advance_table()
    assert last_lines(t, 6) == [
        "seat 0 led 1Sp: round 1 begins in Spring",
        "seat 1 played 5Su: it's Summer now",
        "seat 2 played 8Fa: it's Fall now",
        "seat 3 played 2Sp: still Fall",
        "seat 4 played 2Fa: still Fall",
        "seat 2 won the trick with 8Fa",
    ]
    view = t.view(2)
    assert view["season"] == "Fall" and view["leader"] == 2 and view["trick"] == []
    assert view["tricks_won"] == [0, 0, 1, 0, 0]


def test_example_3_fall_then_7_winter_then_4_spring() -> None:
    t = double_advance_table()
    events = play(t, "2:3Fa 3:7Wi 4:4Sp")
    assert [e.season for e in events] == [Season.FALL, Season.WINTER, Season.SPRING]
    assert last_lines(t, 3) == [
        "seat 2 led 3Fa: still Fall",
        "seat 3 played 7Wi: it's Winter now",
        "seat 4 played 4Sp: it's Spring now",
    ]
    assert t.legal_moves(0) == ["play 6Sp"]
    events = play(t, "0:6Sp 1:9Wi")
    assert events[-1] == TrickWon(seat=0, card="6Sp")
    assert last_lines(t, 2) == ["seat 1 played 9Wi: still Spring", "seat 0 won the trick with 6Sp (kings: 9Wi)"]
    assert t.view(None)["kings_taken"] == [["9Wi"], [], [], [], []]


@pytest.mark.parametrize("card", ["6Su", "5Fa"])
def test_example_a_summer_or_fall_card_instead_leaves_it_winter(card: str) -> None:
    t = double_advance_table()
    play(t, "2:3Fa 3:7Wi")
    assert t.decide(4, f"play {card}") == [CardPlayed(seat=4, card=card, season=Season.WINTER)]


# --- "Still Summer", leading options -----------------------------------------------------------

# Trick 1: seat 1 wins with 3Sp (taking the 0Sp king). Trick 2: seat 1 leads 5 Spring, seat 2
# (no Spring) plays 8 Summer, seat 0 (no Summer) plays 2 Winter: still Summer. Seat 2 wins with
# 8 Summer holding two Summer, three Fall, Season Retreats and seven Winter cards.
STILL_SUMMER = (
    "1Sp 9Sp 10Sp 0Fa 1Fa 2Fa 3Fa 7Fa 8Fa 9Fa 10Fa 2Wi 7Wi 9Wi 10Wi",
    "2Sp 3Sp 4Sp 5Sp 6Sp 7Sp 8Sp 0Su 2Su 3Su 4Su 5Su 6Su 7Su 9Su",
    "0Sp 8Su 1Su 10Su 4Fa 5Fa 6Fa SR 0Wi 1Wi 3Wi 4Wi 5Wi 6Wi 8Wi",
)


def still_summer_table() -> core.Table:
    t = table(*STILL_SUMMER)
    play(t, "0:1Sp 1:3Sp 2:0Sp")
    return t


def test_example_still_summer() -> None:
    t = still_summer_table()
    assert last_lines(t, 1) == ["seat 1 won the trick with 3Sp (kings: 0Sp)"]
    play(t, "1:5Sp 2:8Su 0:2Wi")
    assert last_lines(t, 4) == [
        "seat 1 led 5Sp: still Spring",
        "seat 2 played 8Su: it's Summer now",
        "seat 0 played 2Wi: still Summer",
        "seat 2 won the trick with 8Su",
    ]


def test_example_leading_after_8_summer_current_next_or_season_retreats() -> None:
    t = still_summer_table()
    play(t, "1:5Sp 2:8Su 0:2Wi")
    assert t.to_act == (2,)
    assert t.legal_moves(2) == ["play 1Su", "play 10Su", "play 4Fa", "play 5Fa", "play 6Fa", "play SR"]
    with pytest.raises(core.IllegalMove, match="you must lead Summer, Fall or SR: 3Wi is none of these"):
        t.play(2, "play 3Wi")
    # Leading the next season advances it at once; leading Season Retreats moves it back.
    assert t.decide(2, "play 4Fa") == [CardPlayed(seat=2, card="4Fa", season=Season.FALL)]
    assert t.decide(2, "play SR") == [CardPlayed(seat=2, card="SR", season=Season.SPRING)]
    assert t.decide(2, "play 1Su") == [CardPlayed(seat=2, card="1Su", season=Season.SUMMER)]


# --- Season Retreats ---------------------------------------------------------------------------

# Trick 1 ends in Spring, won by seat 1 (9Sp), who then leads Season Retreats: Spring -> Winter.
RETREAT_RANK = (
    "1Sp 0Su 1Su 2Su 3Su 4Su 5Su 6Su 7Su 8Su 9Su 10Su 1Fa 2Fa 3Fa",
    "9Sp 10Sp SR 0Fa 4Fa 5Fa 6Fa 7Fa 8Fa 9Fa 10Fa 2Wi 3Wi 4Wi 5Wi",
)


def retreat_rank_table() -> core.Table:
    t = table(*RETREAT_RANK, rest(3, *RETREAT_RANK))
    play(t, "0:1Sp 1:9Sp 2:2Sp")
    return t


def test_season_retreats_moves_the_season_back_one_step() -> None:
    t = retreat_rank_table()
    assert play(t, "1:SR") == [CardPlayed(seat=1, card="SR", season=Season.WINTER)]
    assert last_lines(t, 1) == ["seat 1 led SR: it's Winter now (SR counts as 1/2 Winter)"]
    assert t.view(2)["trick"] == [{"seat": 1, "card": "SR", "season": "Winter"}]
    assert t.legal_moves(2) == ["play 0Wi", "play 1Wi", "play 6Wi", "play 7Wi", "play 8Wi", "play 9Wi", "play 10Wi"]


def test_season_retreats_ranks_above_0_of_its_season() -> None:
    t = retreat_rank_table()
    events = play(t, "1:SR 2:0Wi 0:5Su")
    assert events[-1] == TrickWon(seat=1, card="SR")


def test_season_retreats_ranks_below_1_of_its_season() -> None:
    t = retreat_rank_table()
    events = play(t, "1:SR 2:1Wi 0:5Su")
    assert events[-1] == TrickWon(seat=2, card="1Wi")


# Seat 2 has no Winter: after Season Retreats (Spring -> Winter) it plays 0 Spring, advancing to
# Spring. Season Retreats stays a Winter card, so it does not count in Spring: 0 Spring wins.
RETREAT_LEFT_BEHIND = (
    "1Sp 0Su 1Su 2Su 3Su 4Su 5Su 6Su 7Su 8Su 9Su 10Su 1Fa 2Fa 3Fa",
    "9Sp 10Sp SR 0Fa 0Wi 1Wi 2Wi 3Wi 4Wi 5Wi 6Wi 7Wi 8Wi 9Wi 10Wi",
)


def test_season_retreats_keeps_its_season_when_the_season_moves_on() -> None:
    t = table(*RETREAT_LEFT_BEHIND, rest(3, *RETREAT_LEFT_BEHIND))
    play(t, "0:1Sp 1:9Sp 2:2Sp")
    events = play(t, "1:SR 2:0Sp 0:1Fa")
    assert [e.season for e in of_type(events, CardPlayed)] == [Season.WINTER, Season.SPRING, Season.SPRING]
    assert events[-1] == TrickWon(seat=2, card="0Sp")


# 5 players. Seat 1 wins trick 1 in Spring and leads Season Retreats (-> Winter); the season then
# advances round the whole cycle, Spring, Summer, Fall, back to Winter with 0 Winter. Season
# Retreats is still a Winter card: 1/2 beats 0 and seat 1 wins (taking the 7Fa king).
RETREAT_COMES_ROUND = (
    "1Sp 8Sp 9Sp 0Su 1Su 2Su 0Wi 1Wi 2Wi",
    "10Sp 3Su 4Su 5Su 0Fa 1Fa 3Wi 4Wi SR",
    "2Sp 5Sp 6Sp 7Su 8Su 2Fa 3Fa 4Fa 5Fa",
    "3Sp 6Su 9Su 10Su 6Fa 8Fa 5Wi 6Wi 7Wi",
    "0Sp 4Sp 7Sp 7Fa 9Fa 10Fa 8Wi 9Wi 10Wi",
)


def test_season_retreats_keeps_its_season_when_the_season_comes_round_again() -> None:
    t = table(*RETREAT_COMES_ROUND)
    play(t, "0:1Sp 1:10Sp 2:2Sp 3:3Sp 4:4Sp")
    events = play(t, "1:SR 2:5Sp 3:6Su 4:7Fa 0:0Wi")
    seasons = [e.season for e in of_type(events, CardPlayed)]
    assert seasons == [Season.WINTER, Season.SPRING, Season.SUMMER, Season.FALL, Season.WINTER]
    assert events[-1] == TrickWon(seat=1, card="SR")
    assert last_lines(t, 1) == ["seat 1 won the trick with SR (kings: 7Fa)"]


def test_season_retreats_is_optional_for_a_player_without_the_current_season() -> None:
    t = table(*DOUBLE_ADVANCE)
    play(t, "0:1Sp")
    assert "play SR" in t.legal_moves(1) and len(t.legal_moves(1)) == 9
    assert t.decide(1, "play 9Wi") == [CardPlayed(seat=1, card="9Wi", season=Season.SPRING)]


# --- Lead passing ------------------------------------------------------------------------------

# 5 players. Seat 1 wins trick 1 with 10 Spring; then seats 1 and 2 hold only Fall and Winter, so
# they cannot lead in Spring: the lead passes to seat 3, and seats 1 and 2 play last.
LEAD_PASSING = (
    "1Sp 9Sp 0Sp 6Sp 0Su 1Su 6Wi 7Wi 8Wi",
    "10Sp 1Fa 3Fa 4Fa 5Fa 6Fa 7Fa 8Fa 9Fa",
    "0Fa 2Fa 10Fa 0Wi 1Wi 2Wi 3Wi 4Wi 5Wi",
    "2Sp 4Sp 7Sp 2Su 3Su 4Su 5Su 9Wi 10Wi",
    "3Sp 5Sp 8Sp 6Su 7Su 8Su 9Su 10Su SR",
)


def test_lead_passes_clockwise_to_the_first_player_who_can_lead() -> None:
    t = table(*LEAD_PASSING)
    events = play(t, "0:1Sp 1:10Sp 2:0Fa 3:2Sp 4:3Sp")
    assert events[-2:] == [TrickWon(seat=1, card="10Sp"), LeadPassed(seat=3, passed=(1, 2))]
    assert last_lines(t, 2) == [
        "seat 1 won the trick with 10Sp (kings: 0Fa)",
        "seat 1 and seat 2 cannot lead Spring, Summer or SR: the lead passes to seat 3",
    ]
    assert t.to_act == (3,) and t.view(None)["leader"] == 3
    assert t.legal_moves(3) == ["play 4Sp", "play 7Sp", "play 2Su", "play 3Su", "play 4Su", "play 5Su"]


def test_players_passed_over_still_play_to_the_trick_after_the_new_leader() -> None:
    t = table(*LEAD_PASSING)
    play(t, "0:1Sp 1:10Sp 2:0Fa 3:2Sp 4:3Sp")
    order = []
    for card in ("4Sp", "5Sp", "9Sp", "1Fa", "2Fa"):
        seat = t.to_act[0]
        order.append(seat)
        events = t.play(seat, f"play {card}")
    assert order == [3, 4, 0, 1, 2]
    assert events[-1] == TrickWon(seat=0, card="9Sp")
    assert t.view(None)["tricks_won"] == [1, 1, 0, 0, 0]
    assert t.view(None)["hand_sizes"] == [7] * 5


def test_the_winner_who_can_lead_keeps_the_lead() -> None:
    t = table(*LEAD_PASSING)
    events = play(t, "0:1Sp 1:10Sp 2:0Fa 3:2Sp 4:3Sp 3:4Sp 4:5Sp 0:9Sp 1:1Fa 2:2Fa")
    assert of_type(events, LeadPassed) == [LeadPassed(seat=3, passed=(1, 2))]
    assert t.to_act == (0,)


# --- Out of season and scoring -----------------------------------------------------------------

# 4 players (no 0 Winter). Six tricks play out every Fall, Winter and SR card and end in Fall;
# then every hand holds only Spring or Summer, so nobody can lead: the round ends out of season.
OUT_OF_SEASON = (
    "1Sp 6Su 7Su 8Su 9Su 10Su 3Fa 4Fa 4Wi 5Wi SR",
    "0Su 1Su 2Su 3Su 4Su 5Su 5Fa 6Fa 7Fa 6Wi 7Wi",
    "0Sp 2Sp 3Sp 4Sp 5Sp 10Fa 8Fa 9Fa 8Wi 9Wi 10Wi",
    "6Sp 7Sp 8Sp 9Sp 10Sp 0Fa 1Fa 2Fa 1Wi 2Wi 3Wi",
)
SIX_TRICKS = (
    "0:1Sp 1:0Su 2:10Fa 3:0Fa "  # Spring -> Summer -> Fall; seat 2 wins, takes 0Fa
    "2:9Fa 3:1Fa 0:3Fa 1:5Fa "
    "2:8Fa 3:2Fa 0:4Fa 1:6Fa "
    "2:10Wi 3:1Wi 0:4Wi 1:6Wi "  # leading Winter advances to Winter
    "2:9Wi 3:2Wi 0:5Wi 1:7Wi "  # seat 2 takes its own 9Wi
    "2:8Wi 3:3Wi 0:SR 1:7Fa"  # SR: back to Fall; 7Fa wins
)


def out_of_season_table() -> core.Table:
    return table(*OUT_OF_SEASON)


def test_out_of_season_ends_the_round_and_unplayed_kings_do_not_score() -> None:
    t = out_of_season_table()
    events = play(t, SIX_TRICKS)
    assert events[-4:] == [
        TrickWon(seat=1, card="7Fa"),
        RoundEndedOutOfSeason(round=1),
        RoundScored(round=1, points=(5, 1, 3, 5)),
        events[-1],
    ]
    assert isinstance(events[-1], HandsDealt) and events[-1].round == 2
    lines = last_lines(t, 4)
    assert lines[:3] == [
        "seat 1 won the trick with 7Fa (kings: 7Fa)",
        "nobody can lead Fall, Winter or SR: round 1 ends out of season; "
        "the 20 cards left in hands are set aside and do not score",
        "round 1 scored: seat 0 +5 (no tricks), total 5; seat 1 +1 (kings 7Fa), total 1; "
        "seat 2 +3 (kings 0Fa, 9Wi), total 3; seat 3 +5 (no tricks), total 5",
    ]
    # 0Sp, 7Sp and 9Su stayed in hands: they scored nobody anything.
    assert t.view(None)["scores"] == [5, 1, 3, 5]
    assert t.view(None)["round_points"] == [5, 1, 3, 5]


def test_kings_won_and_tricks_won_are_shown_during_the_round() -> None:
    t = out_of_season_table()
    play(t, " ".join(SIX_TRICKS.split()[:20]))
    view = t.view(3)
    assert view["tricks_won"] == [0, 0, 5, 0]
    assert view["kings_taken"] == [[], [], ["0Fa", "9Wi"], []]
    assert view["season"] == "Winter" and view["round"] == 1


def test_the_next_round_is_reshuffled_and_dealt_from_the_seed() -> None:
    t = out_of_season_table()
    dealt = play(t, SIX_TRICKS)[-1]
    again = play(table(*OUT_OF_SEASON), SIX_TRICKS)[-1]
    other_seed = play(table(*OUT_OF_SEASON, seed=2), SIX_TRICKS)[-1]
    assert dealt == again and dealt != other_seed
    assert sorted(c for hand in dealt.hands for c in hand) == sorted(deck_texts(4))
    assert [len(hand) for hand in dealt.hands] == [11] * 4
    holder = next(seat for seat, hand in enumerate(dealt.hands) if "1Sp" in hand)
    view = t.view(holder)
    assert view["round"] == 2 and view["season"] == "Spring" and view["leader"] == holder
    assert view["hand"] == list(dealt.hands[holder]) and view["trick"] == []
    assert view["tricks_won"] == [0] * 4 and view["kings_taken"] == [[]] * 4
    assert view["scores"] == [5, 1, 3, 5] and view["hand_sizes"] == [11] * 4
    # Every round's first trick: the holder of 1 Spring must lead it, in Spring.
    assert t.to_act == (holder,) and t.legal_moves(holder) == ["play 1Sp"]
    # The deal is in the log: a replay without the seed rebuilds the same state.
    assert core.replay_table("holly-oak", t.events).state == t.state


def test_the_deal_narration_shows_only_the_seats_own_hand() -> None:
    t = out_of_season_table()
    dealt = play(t, SIX_TRICKS)[-1]
    holder = next(seat for seat, hand in enumerate(dealt.hands) if "1Sp" in hand)
    mine = last_lines(t, 1, seat=0)[0]
    public = last_lines(t, 1)[0]
    assert " ".join(dealt.hands[0]) in mine
    assert public == f"round 2: the cards are dealt, 11 to each seat; seat {holder} holds 1Sp and leads"


def test_a_full_round_is_scored_from_kings_or_the_no_trick_bonus() -> None:
    t = core.new_table("holly-oak", players=3, seed=13)
    kings: list[list[str]] = [[], [], []]
    tricks = [0, 0, 0]
    while True:
        seat = t.to_act[0]
        trick = [entry["card"] for entry in t.view(None)["trick"]]
        events = t.play(seat, t.legal_moves(seat)[0])
        won = of_type(events, TrickWon)
        if won:
            cards = trick + [of_type(events, CardPlayed)[0].card]
            kings[won[0].seat] += [c for c in cards if c in rules.KING_POINTS]
            tricks[won[0].seat] += 1
        scored = of_type(events, RoundScored)
        if scored:
            break
    assert not of_type(events, RoundEndedOutOfSeason) and sum(tricks) == 15
    assert 0 in tricks, "this seed was picked so that a seat takes no trick"
    expected = tuple(
        sum(rules.KING_POINTS[c] for c in kings[s]) if tricks[s] else rules.NO_TRICK_BONUS[3] for s in range(3)
    )
    assert scored[0] == RoundScored(round=1, points=expected)


# --- Game end ----------------------------------------------------------------------------------


def ending_with(prior: tuple[int, ...]) -> tuple[core.Table, list]:
    """The out-of-season round (round points 5, 1, 3, 5) played with `prior` points carried in
    from earlier rounds."""
    t = out_of_season_table()
    t.state = attrs.evolve(t.state, scores=prior)
    return t, play(t, SIX_TRICKS)


def test_the_game_ends_when_someone_reaches_13_with_4_players() -> None:
    t, events = ending_with((8, 0, 0, 0))
    assert events[-2:] == [GameEnded(scores=(13, 1, 3, 5), winners=(0,)), events[-1]]
    assert isinstance(events[-1], core.SeedRevealed)
    assert t.outcome == core.Outcome(scores=(13, 1, 3, 5), winners=(0,))
    assert t.to_act == () and last_lines(t, 2)[0] == "the game ends: seat 0 wins with 13 points"


def test_the_game_goes_on_below_the_threshold() -> None:
    t, events = ending_with((7, 11, 9, 7))
    assert t.view(None)["scores"] == [12, 12, 12, 12]
    assert isinstance(events[-1], HandsDealt) and t.outcome is None


def test_a_tie_goes_to_the_most_points_in_the_final_round() -> None:
    t, _ = ending_with((9, 13, 0, 0))
    assert t.outcome == core.Outcome(scores=(14, 14, 3, 5), winners=(0,))
    assert last_lines(t, 2)[0] == "the game ends: seat 0 wins with 14 points and the most points in the final round"


def test_a_tie_in_the_final_round_too_is_a_shared_win() -> None:
    t, _ = ending_with((9, 13, 0, 9))
    assert t.outcome == core.Outcome(scores=(14, 14, 3, 14), winners=(0, 3))
    assert last_lines(t, 2)[0] == "the game ends: seat 0 and seat 3 share the win with 14 points"


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_game_ends_after_the_first_round_reaching_the_threshold(players: int) -> None:
    t = core.new_table("holly-oak", players=players, seed=players)
    totals = [0] * players
    while t.to_act:
        seat = t.to_act[0]
        for event in t.play(seat, t.legal_moves(seat)[-1]):
            if isinstance(event, RoundScored):
                assert max(totals) < rules.WINNING_SCORE[players]
                totals = [a + b for a, b in zip(totals, event.points)]
    assert max(totals) >= rules.WINNING_SCORE[players]
    assert t.outcome.scores == tuple(totals)


# --- Views -------------------------------------------------------------------------------------


def test_a_view_shows_its_own_hand_and_the_public_table() -> None:
    t = double_advance_table()
    play(t, "2:3Fa 3:7Wi")
    view = t.view(4)
    assert view["hand"] == ["4Sp", "7Sp", "8Sp", "0Su", "1Su", "2Su", "6Su", "5Fa"]
    assert view["trick"] == [
        {"seat": 2, "card": "3Fa", "season": "Fall"},
        {"seat": 3, "card": "7Wi", "season": "Winter"},
    ]
    assert view["season"] == "Winter" and view["leader"] == 2 and view["round"] == 1
    assert view["hand_sizes"] == [8, 8, 7, 7, 8]
    assert view["scores"] == [0] * 5 and view["winning_score"] == 10 and view["no_trick_bonus"] == 3
    assert view["to_act"] == [4] and "play 4Sp" in view["legal_moves"]
    spectator = t.view(None)
    assert spectator["hand"] == [] and spectator["legal_moves"] == []
    assert {k: v for k, v in spectator.items() if k not in ("hand", "seat", "legal_moves")} == {
        k: v for k, v in view.items() if k not in ("hand", "seat", "legal_moves")
    }


def test_determinize_keeps_the_seats_view() -> None:
    t = double_advance_table()
    redealt = GAME.determinize(t.state, 4, core.Rng(3, 0))
    assert redealt.hands[4] == t.state.hands[4] and redealt != t.state
    assert [len(h) for h in redealt.hands] == [len(h) for h in t.state.hands]
    assert GAME.view(redealt, 4) == GAME.view(t.state, 4)


def test_cards_are_named_looked_up_and_told_kings_alike_whether_or_not_they_are_the_rules_own() -> None:
    # The rules' own cards are looked up by identity; an equal card (a snapshot's) by its text.
    for card in rules.ALL_CARDS:
        twin = rules.Card(card.season, card.rank)
        assert twin is not card and str(twin) == str(card) and str(card) in {"SR", f"{card.rank}{card.season and card.season.value[:2]}"}
        assert rules.is_king(twin) == rules.is_king(card) == (str(card) in rules.KING_POINTS)
        assert rules.card_of(str(card)) is card and rules.card_of(str(card).upper()) is card
    with pytest.raises(KeyError):
        rules.card_of("11Sp")


def test_the_table_keeps_the_trick_taken_last_for_the_page_at_the_end():
    """A finished game's view shows its final trick and who took it, not an empty table."""
    import random

    from core.games.holly_oak.events import CardPlayed, TrickWon

    table = core.new_table("holly-oak", players=3, seed=5)
    chooser = random.Random(5)
    while table.to_act:
        seat = table.to_act[0]
        table.play(seat, chooser.choice(table.legal_moves(seat)))
        view = table.view(None)
        if view["trick"]:
            continue
        won = max(i for i, e in enumerate(table.events) if isinstance(e, TrickWon)) if any(isinstance(e, TrickWon) for e in table.events) else None
        if won is None or view["last_winner"] is None:
            continue
        plays = [e for e in table.events[:won] if isinstance(e, CardPlayed)][-3:]
        assert [(p["seat"], p["card"]) for p in view["last_trick"]] == [(e.seat, e.card) for e in plays]
        assert view["last_winner"] == table.events[won].seat
    assert table.outcome is not None and len(table.view(0)["last_trick"]) == 3
