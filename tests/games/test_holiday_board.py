"""Holiday! scenario tests: every rule, house decision and example of the rulebook, from exact deals."""

from __future__ import annotations

import json

import pytest

import core
from core.games.holiday_board import board as board_module
from core.games.holiday_board import rules
from core.games.holiday_board.board import SHIPPED, SHIPPED_TEXT, load_board, parse_board
from core.games.holiday_board.events import (
    AuctionOpened,
    BidMade,
    CharterForfeited,
    DayAdvanced,
    Dealt,
    DieRolled,
    EndReason,
    GameEnded,
    Passed,
    PlaneChartered,
    PlaneFlew,
    SightSeen,
    SightSkipped,
)
from core.games.holiday_board.rules import Bid, Fly, Pass, Phase, See, Skip
from core.rng import Rng

SLUG = "holiday-board"
# Cities no scenario below flies to: filler cards come from here, so they never interfere.
FAR_AWAY = ("tokyo", "honolulu", "lima", "mexico-city", "montego-bay", "rio-de-janeiro", "hong-kong", "singapore")


# ---- helpers ----

def hands_with(players: int, fixed: dict[int, list[str]], filler_cities=FAR_AWAY) -> list[list[str]]:
    """Hands of the right size: each seat's `fixed` cards, filled up with cards of `filler_cities`."""
    size = rules.hand_size(players)
    used = {card for cards in fixed.values() for card in cards}
    spare = [c.id for c in SHIPPED.cards if c.id not in used and c.city in filler_cities]
    spare += [c.id for c in SHIPPED.cards if c.id not in used and c.city not in filler_cities]
    hands = []
    for seat in range(players):
        hand = list(fixed.get(seat, []))
        while len(hand) < size:
            hand.append(spare.pop(0))
        hands.append(hand)
    return hands


def table(players=3, fixed=None, die=1, seed=1, **options):
    deal = {"hands": hands_with(players, fixed or {})}
    if die is not None:
        deal["die"] = die
    return core.new_table(SLUG, players=players, seed=seed, deal=deal, options=options)


def charter(t, winner: int, amount: int = 100) -> list:
    """Play an auction that `winner` wins with `amount`: they bid once, everyone else passes."""
    events, bid = [], False
    while t.state.phase is Phase.BIDDING:
        seat = t.to_act[0]
        if seat == winner and not bid:
            events += t.play(seat, f"bid {amount}")
            bid = True
        else:
            events += t.play(seat, "pass")
    return events


def play(t, *moves: tuple[int, str]) -> list:
    events = []
    for seat, text in moves:
        events += t.play(seat, text)
    return events


def kinds(events) -> list[type]:
    return [type(e) for e in events]


def refused(t, seat: int, text: str, match: str) -> None:
    before = t.state
    with pytest.raises(core.IllegalMove, match=match):
        t.play(seat, text)
    assert t.state is before


def board_json(**changes) -> str:
    data = json.loads(SHIPPED_TEXT)
    data.update(changes)
    return json.dumps(data)


def small_board(cities: dict[str, list[str]], cards: list[dict] | None = None) -> dict:
    days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    if cards is None:
        cards = [{"city": name, "sight": f"{name} {day}", "best_day": day} for name in cities for day in days]
    return {"cities": [{"name": n, "links": links} for n, links in cities.items()], "cards": cards}


# ---- the board ----

def test_shipped_board_has_21_cities_and_64_cards():
    assert len(SHIPPED.cities) == 21 and len(SHIPPED.cards) == 64
    assert SHIPPED.days == ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    per_city = {city.slug: sum(card.city == city.slug for card in SHIPPED.cards) for city in SHIPPED.cities}
    assert per_city["rome"] == 4 and all(n == 3 for slug, n in per_city.items() if slug != "rome")
    assert all(card.id == f"{card.city}@{SHIPPED.days[card.best_day]}" for card in SHIPPED.cards)


def test_shipped_board_keeps_the_printed_connection_rows():
    # Rows Abi Djan .. Lima of the rulebook's chart, verbatim.
    assert SHIPPED.city_by_slug["delhi"].links == (
        "copenhagen", "hong-kong", "istanbul", "jerusalem", "moscow", "nairobi", "singapore"
    )
    assert SHIPPED.city_by_slug["abi-djan"].links == ("cairo", "hong-kong", "lima", "montego-bay", "nairobi", "rome")
    assert SHIPPED.city_by_slug["hong-kong"].name == "Hong Kong"


def test_shipped_board_links_go_both_ways_and_house_links_are_there():
    for city in SHIPPED.cities:
        for other in city.links:
            assert city.slug in SHIPPED.city_by_slug[other].links
    for a, b in json.loads(SHIPPED_TEXT)["house_links"]:
        assert board_module.slugify(b) in SHIPPED.city_by_slug[board_module.slugify(a)].links


def test_the_shipped_board_is_read_once_and_the_empty_option_means_it():
    assert load_board("") is SHIPPED
    assert core.new_table(SLUG, players=2, seed=1).state.board is SHIPPED


def test_a_board_option_replaces_the_board():
    text = json.dumps(small_board({"Alpha": ["Beta", "Gamma"], "Beta": ["Alpha"], "Gamma": ["Alpha"]}))
    t = core.new_table(SLUG, players=2, seed=3, deal={"hands": [
        ["alpha@mon", "alpha@tue", "alpha@wed", "alpha@thu", "alpha@fri", "alpha@sat", "alpha@sun", "beta@mon", "beta@tue", "beta@wed"],
        ["gamma@mon", "gamma@tue", "gamma@wed", "gamma@thu", "gamma@fri", "gamma@sat", "gamma@sun", "beta@thu", "beta@fri", "beta@sat"],
    ], "die": 2}, options={"board": text})
    assert t.started.options == (("board", text), ("open_destinations", False))  # the log keeps the board
    charter(t, 0)
    assert t.legal_moves(0) == ["fly alpha", "fly beta", "fly gamma"]
    t.play(0, "fly beta")
    assert t.view(0)["destinations"] == ["alpha"]
    assert t.legal_moves(0) == ["skip", "see beta@mon", "see beta@tue", "see beta@wed"]
    events = t.play(0, "see beta@tue")
    assert SightSeen(0, "beta@tue", 7000) in events


def test_board_links_and_cards_may_name_cities_by_name_or_slug():
    data = small_board({"Alpha City": ["beta"], "Beta": ["alpha-city"]})
    data["cards"][0]["city"] = "alpha-city"
    board = parse_board(json.dumps(data))
    assert board.city_by_slug["alpha-city"].links == ("beta",)
    assert board.cards[0].id == "alpha-city@mon"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "board: not valid JSON"),
        ("[]", "expected a JSON object"),
        (json.dumps({"cities": [], "cards": []}), "at least two cities"),
        (json.dumps(small_board({"A": ["B", "Atlantis"], "B": ["A"]})), "'A' links to unknown city 'Atlantis'"),
        (json.dumps(small_board({"A": ["B"], "B": ["A"], "C": ["A"]})), "one-way link: 'C' links to 'A' but 'A' does not link back"),
        (json.dumps(small_board({"A": ["A", "B"], "B": ["A"]})), "'A' links to itself"),
        (json.dumps(small_board({"A": ["B", "B"], "B": ["A"]})), "'A' lists the link to 'B' twice"),
        (json.dumps(small_board({"A": [], "B": []})), "'A' needs 'links'"),
        (json.dumps({"cities": [{"name": "A", "links": ["A2"]}, {"name": "A", "slug": "a2", "links": ["a"]}], "cards": []}),
         "two cities have the name 'A'"),
        (json.dumps(small_board({"A": ["B"], "B": ["A"]}, [{"city": "A", "sight": "x", "best_day": "mon"}] * 2)),
         "duplicate card 'a@mon'"),
        (json.dumps(small_board({"A": ["B"], "B": ["A"]}, [{"city": "A", "sight": "x", "best_day": "monday"}])),
         "bad best day 'monday'"),
        (json.dumps(small_board({"A": ["B"], "B": ["A"]}, [{"city": "Atlantis", "sight": "x", "best_day": "mon"}])),
         "card 1: unknown city 'Atlantis'"),
        (json.dumps(small_board({"A": ["B"], "B": ["A"]}, [{"city": "A", "sight": "", "best_day": "mon"}])),
         "'sight' must name the sight"),
        (json.dumps(small_board({"A": ["B"], "B": ["A"]}, [{"id": "b@mon", "city": "A", "sight": "x", "best_day": "mon"}])),
         "id 'b@mon' must read 'a@<word>'"),
        (json.dumps({**small_board({"A": ["B"], "B": ["A"]}), "days": ["mon", "tue"]}), "7 days of the week"),
        (json.dumps(small_board({"A": ["B"], "B": ["A"]}, [])), "'cards' must list"),
    ],
)
def test_bad_boards_are_refused_clearly(text, message):
    with pytest.raises(core.SetupError, match=message):
        parse_board(text)
    with pytest.raises(core.SetupError, match=message):
        core.new_table(SLUG, players=2, seed=1, options={"board": text})


def test_a_board_with_too_few_cards_for_the_players_is_refused():
    text = json.dumps(small_board({"A": ["B", "C"], "B": ["A", "C"], "C": ["A", "B"]}))  # 21 cards
    assert core.new_table(SLUG, players=2, seed=1, options={"board": text}).state.board.cards[20].id == "c@sun"
    with pytest.raises(core.SetupError, match="it has 21 cards; 3 players need 30"):
        core.new_table(SLUG, players=3, seed=1, options={"board": text})


def test_the_board_option_must_be_text():
    with pytest.raises(core.SetupError, match="option 'board' takes a str"):
        core.new_table(SLUG, players=2, seed=1, options={"board": {"cities": []}})


# ---- setup and deals ----

@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 10), (6, 10), (7, 9), (8, 8)])
def test_each_player_gets_10000_dollars_and_10_9_or_8_cards(players, size):
    t = core.new_table(SLUG, players=players, seed=players)
    dealt = t.events[1]
    assert isinstance(dealt, Dealt) and dealt.die == 0
    assert [len(hand) for hand in dealt.hands] == [size] * players
    everything = [card for hand in dealt.hands for card in hand]
    assert len(set(everything)) == players * size and set(everything) <= set(SHIPPED.card_by_id)
    assert t.view(None)["money"] == [10_000] * players and t.view(None)["points"] == [0] * players


def test_the_rulebooks_starting_money_is_10000():
    # Preparation: 6 x $1000, 6 x $500 and 10 x $100 each.
    assert 6 * 1000 + 6 * 500 + 10 * 100 == rules.STARTING_MONEY


def test_undealt_cards_are_out_of_the_game():
    t = core.new_table(SLUG, players=3, seed=9)
    out = set(SHIPPED.card_by_id) - {card for hand in t.state.hands for card in hand}
    assert len(out) == 64 - 30
    view = t.view(0)
    assert sum(view["hand_sizes"]) == 30 and not out & set(view["hand"])


def test_a_deal_fixes_hands_and_first_die():
    hands = hands_with(2, {0: ["rome@mon"]})
    t = core.new_table(SLUG, players=2, seed=1, deal={"hands": hands, "die": 4})
    assert t.events[1] == Dealt(hands=tuple(tuple(sorted(h)) for h in hands), die=4)
    assert t.view(0)["hand"] == sorted(hands[0])


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ({"hands": hands_with(2, {})[:1]}, "must list 2 hands"),
        ({"hands": [hands_with(2, {})[0][:9], hands_with(2, {})[1]]}, "seat 0's hand must have exactly 10 cards"),
        ({"hands": [hands_with(2, {})[0], hands_with(2, {})[0]]}, "card .* is dealt twice"),
        ({"hands": [["atlantis@mon", *hands_with(2, {})[0][1:]], hands_with(2, {})[1]]}, "'atlantis@mon' .* is not a card"),
        ({"hands": hands_with(2, {}), "die": 7}, "'die' must be a whole number from 1 to 6"),
        ({"hands": hands_with(2, {}), "die": True}, "'die' must be"),
        ({"hands": hands_with(2, {}), "pot": []}, "not 'pot'"),
        ({"nonsense": []}, "not 'nonsense'"),
    ],
)
def test_bad_deals_are_refused_clearly(deal, message):
    with pytest.raises(core.SetupError, match=message):
        core.new_table(SLUG, players=2, seed=1, deal=deal)


def test_deal_hand_sizes_follow_the_player_count():
    with pytest.raises(core.SetupError, match="exactly 9 cards with 7 players"):
        core.new_table(SLUG, players=7, seed=1, deal={"hands": hands_with(8, {})[:7]})
    core.new_table(SLUG, players=8, seed=1, deal={"hands": hands_with(8, {})})  # all 64 cards


# ---- moves ----

@pytest.mark.parametrize(
    ("text", "move", "canonical"),
    [
        ("bid 500", Bid(500), "bid 500"),
        ("  BID   1200 ", Bid(1200), "bid 1200"),
        ("bid 300 to Hong-Kong", Bid(300, "hong-kong"), "bid 300 to hong-kong"),
        ("pass", Pass(), "pass"),
        ("Fly ROME", Fly("rome"), "fly rome"),
        ("see rome@SAT", See("rome@sat"), "see rome@sat"),
        ("skip", Skip(), "skip"),
    ],
)
def test_moves_parse_to_their_canonical_text(text, move, canonical):
    assert rules.parse_move(text) == move and str(move) == canonical


@pytest.mark.parametrize("text", ["bid $500", "bid 5,000", "bid", "bid 500 rome", "fly", "see rome", "pass now", "", "hop"])
def test_malformed_moves_are_refused(text):
    with pytest.raises(core.IllegalMove, match="malformed move"):
        rules.parse_move(text)


def test_bids_are_plain_digits():
    with pytest.raises(core.IllegalMove, match="plain digits"):
        rules.parse_move("bid $1,200")


# ---- the auction ----

def test_the_first_auction_opens_with_seat_0_and_goes_clockwise():
    t = table(players=3)
    assert t.events[2] == AuctionOpened(opener=0, cap=30_000)
    assert t.to_act == (0,)
    assert play(t, (0, "bid 100")) == [BidMade(0, 100, "")]
    assert t.to_act == (1,)
    play(t, (1, "bid 200"))
    assert t.to_act == (2,)


def test_a_pass_leaves_the_auction_and_the_last_bidder_wins_and_pays():
    t = table(players=3)
    play(t, (0, "bid 100"), (1, "pass"), (2, "bid 300"))
    assert t.to_act == (0,)  # seat 1 passed: it is not asked again
    events = play(t, (0, "bid 400"), (2, "pass"))
    assert events[-1] == PlaneChartered(0, 400, "")
    assert t.view(None)["money"] == [9_600, 10_000, 10_000]
    assert t.to_act == (0,) and t.view(None)["phase"] == "flying"


def test_bids_go_in_100_dollar_steps_above_the_high_bid_up_to_all_the_money_in_play():
    t = table(players=2)
    assert t.legal_moves(0)[:3] == ["pass", "bid 100", "bid 200"]
    assert t.legal_moves(0)[-1] == "bid 20000" and len(t.legal_moves(0)) == 1 + 200
    refused(t, 0, "bid 150", "steps of \\$100")
    refused(t, 0, "bid 0", "at least \\$100")
    refused(t, 0, "bid 20100", "highest bid in this auction is \\$20,000")
    play(t, (0, "bid 700"))
    refused(t, 1, "bid 700", "above the high bid of \\$700")
    assert t.legal_moves(1)[:2] == ["pass", "bid 800"]


def test_a_bid_may_exceed_the_bidders_money():
    t = table(players=2)
    assert play(t, (0, "bid 15000")) == [BidMade(0, 15_000, "")]


def test_a_bid_at_the_cap_still_waits_for_the_others_to_pass():
    t = table(players=2)
    play(t, (0, "bid 20000"))
    assert t.to_act == (1,) and t.legal_moves(1) == ["pass"]


def test_a_winner_who_cannot_pay_forfeits_all_money_and_the_others_bid_again():
    t = table(players=3)
    play(t, (0, "bid 100"), (1, "pass"), (2, "bid 12000"), (0, "pass"))
    assert t.events[-2:] == [CharterForfeited(2, 12_000, 10_000), AuctionOpened(opener=0, cap=20_000)]
    assert t.view(None)["money"] == [10_000, 10_000, 0]
    # The same seat opens; seats 0 and 1, who had passed, bid again; seat 2 has no money now.
    assert t.to_act == (0,)
    play(t, (0, "pass"))
    assert t.to_act == (1,)
    events = play(t, (1, "bid 100"))
    assert events[-1] == PlaneChartered(1, 100, "")


def test_a_forfeiter_can_still_see_sights():
    t = table(players=2, fixed={1: ["rome@mon"]})
    play(t, (0, "bid 11000"), (1, "pass"))
    assert t.view(None)["money"] == [0, 10_000]
    charter(t, 1)
    t.play(1, "fly rome")
    assert t.to_act == (1,)
    t.play(1, "see rome@mon")
    assert t.view(None)["points"] == [0, 7_000]


def test_players_without_money_are_skipped_in_the_auction():
    t = table(players=3)
    play(t, (0, "bid 10100"), (1, "pass"), (2, "pass"))  # seat 0 forfeits
    assert t.to_act == (1,)  # the new auction is opened by seat 0's turn, but seat 0 has no money
    play(t, (1, "bid 100"))
    assert t.to_act == (2,)
    play(t, (2, "bid 200"))
    assert t.to_act == (1,)  # seat 0 is skipped


def test_later_auctions_open_with_the_seat_after_the_charterer():
    t = table(players=3)
    charter(t, 1)
    t.play(1, "fly paris")  # nobody holds a Paris card: the day passes at once
    assert t.events[-1] == AuctionOpened(opener=2, cap=29_900)
    assert t.to_act == (2,)
    charter(t, 2)
    t.play(2, "fly rome")
    assert t.events[-1] == AuctionOpened(opener=0, cap=29_800)


def test_nobody_bidding_ends_the_game_and_ties_share_the_win():
    t = table(players=3)
    events = play(t, (0, "pass"), (1, "pass"), (2, "pass"))
    assert GameEnded(EndReason.NO_BID) in events
    assert t.outcome == core.Outcome(scores=(10_000, 10_000, 10_000), winners=(0, 1, 2))
    assert isinstance(t.events[-1], core.SeedRevealed)
    assert t.to_act == () and t.view(None)["ended"] == "no_bid"


def test_the_game_ends_when_nobody_has_money_to_bid():
    t = table(players=2)
    play(t, (0, "bid 10100"), (1, "pass"))  # seat 0 forfeits; the new auction's cap is seat 1's $10,000
    assert t.events[-1] == AuctionOpened(opener=0, cap=10_000) and t.to_act == (1,)
    assert t.play(1, "bid 10000")[-1] == PlaneChartered(1, 10_000, "")  # the only bidder wins at once
    events = t.play(1, "fly paris")
    assert events[-3:-1] == [AuctionOpened(opener=0, cap=0), GameEnded(EndReason.NO_BID)]
    assert t.outcome == core.Outcome(scores=(0, 0), winners=(0, 1))
    lines = [line for _, line in t.narrate(None)]
    assert lines[-3] == "nobody has money left to charter the plane"
    assert lines[-2].startswith("nobody has money to charter the plane: the game is over")


# ---- flights and the week ----

def test_the_first_flight_goes_anywhere_and_the_die_sets_the_day():
    t = table(players=2, die=6)
    charter(t, 0)
    assert len(t.legal_moves(0)) == 21
    events = t.play(0, "fly tokyo")
    assert events[:2] == [PlaneFlew(0, "tokyo"), DieRolled(6)]
    assert t.view(None)["city"] == "tokyo"


def test_without_a_fixed_die_the_roll_comes_from_the_seed_and_is_logged():
    days = set()
    for seed in range(12):
        t = table(players=2, die=None, seed=seed)
        charter(t, 0)
        rolled = [e for e in t.play(0, "fly paris") if isinstance(e, DieRolled)]
        assert len(rolled) == 1 and 1 <= rolled[0].roll <= 6
        assert core.replay_table(SLUG, t.events).state == t.state  # the replay needs no seed
        days.add(rolled[0].roll)
    assert len(days) > 2


def test_later_flights_only_go_to_a_linked_city():
    t = table(players=2)
    charter(t, 0)
    t.play(0, "fly paris")
    charter(t, 1)
    assert t.legal_moves(1) == ["fly copenhagen", "fly london", "fly madrid", "fly moscow", "fly rome"]
    refused(t, 1, "fly paris", "cannot fly from Paris to Paris")
    refused(t, 1, "fly tokyo", "cannot fly from Paris to Tokyo: they are not linked")
    refused(t, 1, "fly atlantis", "no city 'atlantis'")
    refused(t, 1, "bid 100", "does not fit now")
    t.play(1, "fly london")
    assert t.view(None)["city"] == "london"


def test_the_day_advances_after_each_city_and_sunday_becomes_monday():
    t = table(players=2, die=6)  # Saturday
    charter(t, 0)
    assert t.play(0, "fly paris")[-2:] == [DayAdvanced(6), AuctionOpened(1, 19_900)]
    assert t.view(None)["day"] == "sun"
    charter(t, 0)
    assert DayAdvanced(0) in t.play(0, "fly london")
    assert t.view(None)["day"] == "mon"


def test_a_city_where_nobody_holds_a_card_passes_at_once():
    t = table(players=3)
    charter(t, 2)
    events = t.play(2, "fly paris")
    assert kinds(events) == [PlaneFlew, DieRolled, SightSkipped, SightSkipped, SightSkipped, DayAdvanced, AuctionOpened]
    assert [e.seat for e in events if isinstance(e, SightSkipped)] == [2, 0, 1]
    assert all(not e.held_card for e in events if isinstance(e, SightSkipped))


# ---- sightseeing ----

def test_sightseeing_goes_clockwise_from_the_charterer_and_skips_players_without_a_card():
    t = table(players=4, fixed={0: ["rome@mon"], 1: ["rome@tue"], 3: ["rome@fri", "rome@thu"]})
    charter(t, 1)
    events = t.play(1, "fly rome")
    assert t.to_act == (1,)  # the charterer first
    play(t, (1, "see rome@tue"))
    # seat 2 holds no Rome card: skipped automatically; then seat 3
    assert t.events[-1] == SightSkipped(2, held_card=False) and t.to_act == (3,)
    assert t.legal_moves(3) == ["skip", "see rome@fri", "see rome@thu"]
    play(t, (3, "see rome@thu"))
    assert t.to_act == (0,)
    events = play(t, (0, "skip"))
    assert events[0] == SightSkipped(0, held_card=True)
    assert isinstance(events[1], DayAdvanced)
    # one card per visit: seat 3 still holds its other Rome card
    assert "rome@fri" in t.state.hands[3] and t.view(None)["seen"] == [[], ["rome@tue"], [], ["rome@thu"]]


def test_the_charterer_needs_no_card_of_the_city():
    t = table(players=2, fixed={1: ["rome@mon"]})
    charter(t, 0)
    t.play(0, "fly rome")
    assert t.events[-1] == SightSkipped(0, held_card=False) and t.to_act == (1,)


@pytest.mark.parametrize(
    ("die", "points"),
    [(2, 7000), (3, 6000), (4, 5000), (5, 4000), (6, 3000)],
)
def test_points_are_7000_on_the_best_day_and_1000_fewer_per_day_late(die, points):
    t = table(players=2, fixed={0: ["rome@tue"]}, die=die)
    charter(t, 0)
    t.play(0, "fly rome")
    assert t.play(0, "see rome@tue")[0] == SightSeen(0, "rome@tue", points)
    assert t.view(None)["points"] == [points, 0]


def test_six_days_late_is_one_day_early_and_gives_1000():
    assert rules.sight_points(today=0, best_day=1) == 1000  # Monday for a Tuesday sight
    assert rules.sight_points(today=0, best_day=6) == 6000  # Monday for a Sunday sight
    assert rules.sight_points(today=6, best_day=0) == 1000  # Sunday for a Monday sight
    t = table(players=2, fixed={0: ["rome@tue"]}, die=1)
    charter(t, 0)
    t.play(0, "fly rome")
    assert t.play(0, "see rome@tue")[0].points == 1000


def test_only_a_held_card_of_this_city_can_be_seen():
    t = table(players=2, fixed={0: ["rome@mon", "paris@mon"], 1: ["rome@tue"]})
    charter(t, 0)
    t.play(0, "fly rome")
    refused(t, 0, "see paris@mon", "paris@mon is a sight of Paris; the plane is in Rome")
    refused(t, 0, "see rome@tue", "you do not hold rome@tue")
    refused(t, 0, "see rome@wed", "no card 'rome@wed'")
    refused(t, 0, "fly paris", "does not fit now")


# ---- the end ----

TOUR = ["rome", "athens", "istanbul", "copenhagen", "london", "paris", "madrid", "cairo", "nairobi", "delhi"]
SEAT0_TOUR_CARDS = ["rome@mon", "athens@tue", "istanbul@thu", "copenhagen@sun", "london@sun",
                    "paris@fri", "madrid@tue", "cairo@fri", "nairobi@wed", "delhi@tue"]


def test_a_whole_game_ends_after_the_city_where_a_player_used_the_last_card():
    t = table(players=2, fixed={0: SEAT0_TOUR_CARDS, 1: ["rome@tue"]}, die=1)
    for city, card in zip(TOUR, SEAT0_TOUR_CARDS, strict=True):
        charter(t, 0)
        t.play(0, f"fly {city}")
        t.play(0, f"see {card}")
        if city == "rome":
            assert t.to_act == (1,)
            t.play(1, "see rome@tue")  # Monday for a Tuesday sight: 1000
    # Rome Mon 7000, Athens Tue 7000, Istanbul Wed 1000, Copenhagen Thu 3000, London Fri 2000,
    # Paris Sat 6000, Madrid Sun 2000, Cairo Mon 4000, Nairobi Tue 1000, Delhi Wed 6000.
    assert t.view(None)["points"] == [39_000, 1_000]
    assert t.view(None)["money"] == [9_000, 10_000]
    # The day still advances after the last city (to Thursday); then the game is over.
    assert t.events[-3:-1] == [DayAdvanced(3), GameEnded(EndReason.LAST_CARD)]
    assert t.outcome == core.Outcome(scores=(48_000, 11_000), winners=(0,))
    assert t.view(1)["hand_sizes"] == [0, 9]  # seat 1's remaining cards are simply discarded


def test_the_others_still_see_sights_in_the_last_city():
    fixed = {0: SEAT0_TOUR_CARDS[1:] + ["rome@tue"], 1: ["rome@mon"], 2: ["rome@fri"]}
    t = table(players=3, fixed=fixed, die=2)
    # Seat 0 uses nine cards on the tour from Athens to Delhi, its last one back in Rome.
    for city, card in zip(TOUR[1:], SEAT0_TOUR_CARDS[1:], strict=True):
        charter(t, 0)
        t.play(0, f"fly {city}")
        t.play(0, f"see {card}")
    assert t.state.hands[0] == ("rome@tue",)
    for city in ("istanbul", "rome"):
        charter(t, 0)
        t.play(0, f"fly {city}")
    t.play(0, "see rome@tue")  # the last card: the others still have their turn in Rome
    assert t.outcome is None and t.to_act == (1,)
    t.play(1, "see rome@mon")
    events = t.play(2, "see rome@fri")
    assert kinds(events)[-3:] == [DayAdvanced, GameEnded, core.SeedRevealed]
    assert t.view(None)["points"][1:] == [rules.sight_points(t.state.day - 1, 0), rules.sight_points(t.state.day - 1, 4)]
    assert t.view(None)["ended"] == "last_card"
    line = t.narrate(None)[-2][1]
    assert line.startswith("seat 0 has used their last card: the game is over; final scores (points + dollars): seat 0 ")


# ---- open destinations (the rulebook's variation) ----

def test_naming_a_destination_needs_the_option():
    t = table(players=2)
    assert not any(" to " in move for move in t.legal_moves(0))
    refused(t, 0, "bid 100 to rome", "open_destinations option is off")


def test_with_open_destinations_a_winning_bid_names_the_city_and_the_plane_flies_there_at_once():
    t = table(players=3, fixed={1: ["rome@mon"]}, open_destinations=True)
    legal = t.legal_moves(0)
    assert "bid 100 to rome" in legal and "bid 100" in legal and len(legal) == 1 + 300 * 22
    play(t, (0, "bid 100 to paris"), (1, "bid 200 to rome"))
    assert t.view(0)["auction"]["destination"] == "rome"
    events = play(t, (2, "pass"), (0, "pass"))
    assert kinds(events)[-4:] == [Passed, PlaneChartered, PlaneFlew, DieRolled]
    assert events[-2] == PlaneFlew(1, "rome")
    assert t.to_act == (1,) and t.legal_moves(1) == ["skip", "see rome@mon"]
    lines = [line for _, line in t.narrate(2)]
    assert "seat 1 bids $200 to fly to Rome" in lines and lines[-2:] == [
        "seat 1 flies the plane to Rome", "the die shows 1: it is Monday"
    ]


def test_a_named_destination_must_be_reachable_and_a_plain_bid_still_lets_the_winner_choose():
    t = table(players=2, open_destinations=True)
    charter(t, 0)
    t.play(0, "fly paris")
    refused(t, 1, "bid 100 to tokyo", "cannot fly from Paris to Tokyo")
    refused(t, 1, "bid 100 to paris", "cannot fly from Paris to Paris")
    play(t, (1, "pass"), (0, "bid 100"))
    assert t.to_act == (0,) and t.legal_moves(0)[0] == "fly copenhagen"


def test_a_named_destination_lapses_after_a_forfeit():
    t = table(players=2, open_destinations=True)
    play(t, (0, "bid 10100 to rome"), (1, "pass"))
    assert t.events[-2:] == [CharterForfeited(0, 10_100, 10_000), AuctionOpened(0, 10_000)]
    assert t.view(None)["auction"]["destination"] is None
    play(t, (1, "bid 100"))
    assert t.to_act == (1,) and t.view(None)["phase"] == "flying"


# ---- views, narration, determinize ----

def test_a_seat_sees_its_own_cards_and_only_the_counts_of_the_others():
    t = table(players=3, fixed={0: ["rome@mon"], 1: ["rome@tue"]})
    view = t.view(1)
    assert view["hand"] == sorted(t.state.hands[1]) and "rome@tue" in view["hand"]
    assert view["hand_sizes"] == [10, 10, 10]
    assert "rome@mon" not in json.dumps(view) and t.view(None)["hand"] == []
    charter(t, 0)
    t.play(0, "fly rome")
    t.play(0, "see rome@mon")
    public = t.view(2)
    assert public["seen"] == [["rome@mon"], [], []] and public["points"] == [7000, 0, 0]
    assert public["city"] == "rome" and public["day"] == "mon" and public["money"] == [9_900, 10_000, 10_000]
    assert public["charterer"] == 0 and public["to_act"] == [1]


def test_the_auction_is_public():
    t = table(players=3)
    play(t, (0, "bid 300"), (1, "pass"))
    assert t.view(2)["auction"] == {
        "opener": 0, "cap": 30_000, "high_bid": 300, "high_bidder": 0, "destination": None, "passed": [1],
    }


def test_determinize_redeals_only_what_the_seat_cannot_see():
    t = table(players=3, fixed={0: ["rome@mon"]})
    charter(t, 0)
    t.play(0, "fly rome")
    t.play(0, "see rome@mon")
    state = t.state
    redealt = rules.determinize(state, 1, Rng(5, 0))
    assert redealt.hands[1] == state.hands[1]
    assert [len(h) for h in redealt.hands] == [len(h) for h in state.hands]
    assert redealt.hands != state.hands
    assert "rome@mon" not in {c for h in redealt.hands for c in h}  # a used card stays used
    assert rules.view(redealt, 1) == rules.view(state, 1)
    # Cards out of the game are hidden too: they may come into another hand.
    undealt = set(SHIPPED.card_by_id) - {c for h in state.hands for c in h} - {"rome@mon"}
    assert undealt & {c for seat in (0, 2) for c in redealt.hands[seat]}


def test_narration_tells_the_auction_the_flight_and_each_sight_and_hides_hands():
    t = table(players=2, fixed={0: ["rome@tue"], 1: ["rome@mon"]}, die=3)
    play(t, (0, "bid 100"), (1, "bid 300"), (0, "pass"))
    t.play(1, "fly rome")
    t.play(1, "see rome@mon")
    t.play(0, "skip")
    lines = [line for _, line in t.narrate(0)]
    assert lines[1].startswith("each player is dealt 10 sightseeing cards; seat 0 holds ") and "rome@tue" in lines[1]
    assert "rome@mon" not in lines[1]
    assert lines[2:] == [
        "seat 0 opens the auction for the plane (bids up to $20,000)",
        "seat 0 bids $100",
        "seat 1 bids $300",
        "seat 0 passes",
        "seat 1 charters the plane for $300",
        "seat 1 flies the plane to Rome",
        "the die shows 3: it is Wednesday",
        "seat 1 sees Trevi Fountain in Rome (rome@mon) on Wednesday: 5000 points",
        "seat 0 sees nothing in Rome",
        "the day advances to Thursday",
        "seat 0 opens the auction for the plane (bids up to $19,700)",  # the seat after the charterer
    ]
    assert [line for _, line in t.narrate(None)][1] == "each player is dealt 10 sightseeing cards"


def test_players_without_a_card_are_skipped_with_a_narrated_line():
    t = table(players=2, fixed={1: ["rome@mon"]})
    charter(t, 1)
    t.play(1, "fly rome")
    t.play(1, "skip")
    lines = [line for _, line in t.narrate(None)]
    assert "seat 1 sees nothing in Rome" in lines and "seat 0 has no sight to see in Rome" in lines


# ---- legal moves are exactly what decide accepts; every game ends ----

@pytest.mark.parametrize(("players", "open_destinations"), [(2, True), (5, False), (8, True)])
def test_random_games_end_and_legal_moves_are_all_accepted(players, open_destinations):
    for seed in range(3):
        t = core.new_table(SLUG, players=players, seed=seed, options={"open_destinations": open_destinations})
        pick = Rng(seed, 1)
        for _ in range(2_000):
            if not t.to_act:
                break
            seat = t.to_act[0]
            legal = t.legal_moves(seat)
            t.play(seat, legal[pick.below(len(legal))])
        assert t.outcome is not None
        assert core.replay_table(SLUG, t.events).state == t.state


def next_hop(here: str, goals: set[str]) -> str:
    """The first city on a shortest route from `here` to any of `goals` (breadth first)."""
    first_hop = {city: city for city in SHIPPED.city_by_slug[here].links}
    frontier = list(first_hop)
    while frontier:
        city = frontier.pop(0)
        if city in goals:
            return first_hop[city]
        for other in SHIPPED.city_by_slug[city].links:
            if other not in first_hop and other != here:
                first_hop[other] = first_hop[city]
                frontier.append(other)
    raise AssertionError("the shipped board is connected")


def test_frugal_travellers_play_to_the_last_card():
    """Bots that bid $100 when nobody has bid, fly towards the nearest city where anyone holds a
    sight, and see a sight whenever they can: the game ends by a last card."""
    t = core.new_table(SLUG, players=4, seed=21)
    for _ in range(3_000):
        if not t.to_act:
            break
        seat = t.to_act[0]
        state = t.state
        if state.phase is Phase.BIDDING:
            move = "bid 100" if state.auction.high_bidder is None else "pass"
        elif state.phase is Phase.FLYING:
            goals = {SHIPPED.card_by_id[c].city for hand in state.hands for c in hand}
            move = f"fly {min(goals) if not state.city else next_hop(state.city, goals)}"
        else:
            move = t.legal_moves(seat)[-1]  # see a card when there is one
        t.play(seat, move)
    assert t.view(None)["ended"] == "last_card"
    assert t.outcome.scores == tuple(p + m for p, m in zip(t.state.points, t.state.money, strict=True))


def test_deal_card_ids_are_read_like_move_texts():
    hands = hands_with(2, {0: ["rome@mon"]})
    shouted = [[" " + card.upper() for card in hand] for hand in hands]
    t = core.new_table(SLUG, players=2, seed=1, deal={"hands": shouted})
    assert t.view(0)["hand"] == sorted(hands[0])
    with pytest.raises(core.SetupError, match="17 .* is not a card"):
        core.new_table(SLUG, players=2, seed=1, deal={"hands": [[17, *hands[0][1:]], hands[1]]})


def test_a_board_may_name_its_own_days():
    days = ["ma", "di", "wo", "do", "vr", "za", "zo"]
    cities = {"Alpha": ["Beta", "Gamma"], "Beta": ["Alpha", "Gamma"], "Gamma": ["Alpha", "Beta"]}
    cards = [{"city": city, "sight": f"{city} {day}", "best_day": day} for city in cities for day in days]
    text = json.dumps({**small_board(cities, cards), "days": days})
    everything = [f"{city}@{day}" for city in ("alpha", "beta", "gamma") for day in days]
    t = core.new_table(SLUG, players=2, seed=1, options={"board": text},
                       deal={"hands": [everything[:10], everything[10:20]], "die": 4})
    charter(t, 0)
    t.play(0, "fly alpha")
    assert t.view(None)["day"] == "do"
    assert t.play(0, "see alpha@do")[0] == SightSeen(0, "alpha@do", 7000)
    assert t.narrate(None)[-4][1] == "seat 0 sees Alpha do in Alpha (alpha@do) on do: 7000 points"
