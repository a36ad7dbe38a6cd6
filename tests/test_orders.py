"""Standing orders through the command path (real Redis, real Games): an order fires once, when its
seat is to act, its move legal and its conditions true; one that can never fire is dropped and
its seat alone is told; a seat's orders change nothing another seat is shown until they fire."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core
from core.orders import MAX_ORDERS, BadOrder, Context, parse_orders
from events import keys
from events.commands import Games, order_command_id
from events.orders import Orders, clear, leave
from events.store import OrderGone, Store
from pbm import turn_report
from replays.log import Log
from replays.verify import verify


def to_act(table: core.Table) -> int:
    [seat] = table.to_act
    return seat


def next_seat(table: core.Table) -> tuple[int, int]:
    """(the seat to act now, the seat after it) in a trick of Holly Oak."""
    seat = to_act(table)
    return seat, (seat + 1) % table.players


def test_an_order_fires_when_its_seat_is_to_act_and_is_used_once(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)  # the forced lead of 1Sp is played
    table = games.table(game_id)
    now, after = next_seat(table)
    hand = table.view(after)["hand"]
    spring = [card for card in hand if card.endswith("Sp")]
    stored = leave(games, game_id, after, [f"if Spring is led: play {spring[0]}", f"if Winter is led: play {hand[-1]}"])
    assert [order.text for order in stored] == [f"if Spring is led: play {spring[0]}", f"if Winter is led: play {hand[-1]}"]
    seq = table.seq
    games.submit(game_id, now, table.legal_moves(now)[0], command_id="hand:1")
    fired = [env for env in store.read(game_id) if env.origin == "order"]
    assert len(fired) == 1
    [env] = fired
    assert (env.actor, env.command, env.command_id) == (after, f"play {spring[0]}", order_command_id(stored[0].id, seq + 1))
    assert [order.text for order in Orders(store).read(game_id, after)] == [stored[1].text]  # the other one waits
    envelopes = store.read(game_id)
    assert verify(Log(f"game {game_id}", envelopes), seed=7).ok
    # The seat's own report says the move was played for it by an order; nobody else's does.
    mine = turn_report.since_last_move(games.table(game_id), envelopes, after)
    assert any(line.endswith("(played for you: one of your orders)") for line in mine)
    assert not any("orders" in line for line in turn_report.since_last_move(games.table(game_id), envelopes, now))


def test_holly_oaks_trick_conditions_fire_on_the_trick_as_it_is(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)  # seat 1 leads 1Sp; seat 2 follows, seat 0 last
    table = games.table(game_id)
    assert to_act(table) == 2 and "play 9Sp" in table.legal_moves(2)
    assert {"7Sp", "10Sp"} <= set(table.view(0)["hand"])
    stored = leave(
        games,
        game_id,
        0,
        [
            "if 7Sp beats the trick: play 7Sp",  # 9Sp is above it; it fires when seat 0 leads
            "if 10Sp does not beat the trick: play 10Sp",
            "if the trick holds a king: play 10Sp",  # 1Sp and 9Sp are not kings
            "if 10Sp beats the trick and I play last and the trick holds no king and I have won no trick: play 10Sp",
        ],
    )
    games.submit(game_id, 2, "play 9Sp", command_id="hand:1")
    fired = [(env.actor, env.command, env.command_id) for env in store.read(game_id) if env.origin == "order"]
    # 10Sp takes the trick; seat 0 leads the next one, into which any card that may lead beats.
    assert fired == [(0, "play 10Sp", order_command_id(stored[3].id, table.seq + 1)), (0, "play 7Sp", order_command_id(stored[0].id, table.seq + 3))]
    assert Orders(store).read(game_id, 0) == []  # the 10Sp orders are dropped: it left the hand
    assert verify(Log(f"game {game_id}", store.read(game_id)), seed=7).ok


def test_an_order_not_legal_now_is_skipped_and_kept(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    now, after = next_seat(table)
    hand = table.view(after)["hand"]
    off_season = next(card for card in hand if not card.endswith("Sp") and card != "SR")
    if not any(card.endswith("Sp") for card in hand):
        pytest.skip("this deal leaves the seat without Spring")
    leave(games, game_id, after, [f"next: play {off_season}"])
    games.submit(game_id, now, table.legal_moves(now)[0], command_id="hand:1")
    assert not any(env.origin == "order" for env in store.read(game_id))
    assert [order.move for order in Orders(store).read(game_id, after)] == [f"play {off_season}"]


def test_an_order_that_can_never_fire_is_dropped_and_only_its_seat_is_told(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7, forced_moves="ask")
    table = games.table(game_id)
    lead = to_act(table)
    other = (lead + 1) % 3
    # The leader leaves an order for its lead card, then plays the card by hand: the order's card
    # has left the hand; at its next turn the order is dropped, with a note for its report only.
    leave(games, game_id, lead, ["after %d play 0Wi: play 1Sp" % other])
    games.submit(game_id, lead, "play 1Sp", command_id="hand:lead")
    table = games.table(game_id)
    while lead not in table.to_act:
        seat = to_act(table)
        games.submit(game_id, seat, table.legal_moves(seat)[0], command_id=f"hand:{table.seq}")
        table = games.table(game_id)
    assert Orders(store).read(game_id, lead) == []
    [note] = Orders(store).notes(game_id, lead)
    assert note["why"] == "1Sp is not in your hand"
    envelopes = store.read(game_id)
    report = turn_report.since_last_move(table, envelopes, lead, Orders(store).notes(game_id, lead))
    assert report[-1] == f"your order `after {other} play 0Wi: play 1Sp` was dropped: 1Sp is not in your hand"
    assert Orders(store).notes(game_id, other) == []


def test_a_broken_chain_drops_the_order(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    now, after = next_seat(table)
    played = table.legal_moves(now)[0]
    other_card = next(move for move in ["play 10Wi", "play 9Wi", "play 8Wi"] if move != played)
    leave(games, game_id, after, [f"after {now} {other_card}: {table.legal_moves(after)[0] if after in table.to_act else 'play ' + table.view(after)['hand'][0]}"])
    games.submit(game_id, now, played, command_id="hand:1")
    assert Orders(store).read(game_id, after) == []
    [note] = Orders(store).notes(game_id, after)
    assert note["why"] == f"it waited for seat {now} to {other_card}, and seat {now}'s move was {played}"


def test_a_matching_chain_fires(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    now, after = next_seat(table)
    played = table.legal_moves(now)[0]
    hand = table.view(after)["hand"]
    spring = [card for card in hand if card.endswith("Sp")] or hand
    leave(games, game_id, after, [f"after {now} {played}: play {spring[-1]}"])
    games.submit(game_id, now, played, command_id="hand:1")
    assert [env.command for env in store.read(game_id) if env.origin == "order"] == [f"play {spring[-1]}"]


def test_a_bots_seat_keeps_its_orders_unfired_until_handed_back(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    now, after = next_seat(table)
    leave(games, game_id, after, ["next: play " + c for c in table.view(after)["hand"]])
    games.seat_bots(game_id, {after: "random"})
    games.submit(game_id, now, table.legal_moves(now)[0], command_id="hand:1")
    assert not any(env.origin == "order" for env in store.read(game_id))
    assert len(Orders(store).read(game_id, after)) == len(table.view(after)["hand"])
    games.seat_bots(game_id, {})  # handed back: the seat is to act and its orders fire
    assert [env.actor for env in store.read(game_id) if env.origin == "order"][:1] == [after]


def test_bad_orders_are_refused_whole_naming_the_order(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    _now, after = next_seat(table)
    card = table.view(after)["hand"][0]
    leave(games, game_id, after, [f"next: play {card}"])
    cases = {
        f"order 2 (`if Sprig is led: play {card}`): unknown condition 'Sprig is led'": [f"next: play {card}", f"if Sprig is led: play {card}"],
        "order 1 (`next: play`): malformed move": ["next: play"],
        "order 1 (`after 5 play 3Su: play": [f"after 5 play 3Su: play {card}"],
        f"{MAX_ORDERS + 1} orders: a seat may leave at most {MAX_ORDERS}": [f"next: play {card}"] * (MAX_ORDERS + 1),
        "order 1 (`next: play 99Zz`)": ["next: play 99Zz"],
        "could never be played": ["next: play " + next(c for c in ["1Sp", "SR", "10Wi", "0Fa"] if c not in table.view(after)["hand"])],
    }
    for expected, orders in cases.items():
        with pytest.raises(BadOrder) as refused:
            leave(games, game_id, after, orders)
        assert expected in str(refused.value) and "\n" not in str(refused.value)
        assert [order.move for order in Orders(store).read(game_id, after)] == [f"play {card}"]
    with pytest.raises(core.IllegalMove):
        leave(games, game_id, 9, [f"next: play {card}"])
    clear(games, game_id, after)
    assert Orders(store).read(game_id, after) == []


def test_an_order_fires_once_even_when_two_processes_look(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    _now, after = next_seat(table)
    [order] = leave(games, game_id, after, ["next: play " + table.view(after)["hand"][0]])
    Orders(store).replace(game_id, after, [])
    with pytest.raises(OrderGone):  # the firing's append finds the order gone: nothing appended
        store.append(game_id, table.seq, [b"x"], order_command_id(order.id, table.seq), None, consume=(after, order.id))
    assert store.length(game_id) == table.seq


def test_orders_keys_are_the_games(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    assert keys.orders(game_id, 2) in keys.of_game(game_id, 3)
    assert keys.orders(game_id, 2).startswith(f"pbm:{{{game_id}}}:")


# ---------------------------------------------------------------------------------------------
# Random orders, random play: against a twin game without orders


def random_orders(rng: random.Random, table: core.Table, seat: int) -> list[str]:
    """Up to 6 orders a seat could leave now: moves of its hand, with the game's conditions."""
    game = table.game
    view = table.view(seat)
    moves = list(dict.fromkeys(view["legal_moves"] + [m for s in table.to_act for m in table.legal_moves(s)]))
    conditions = {
        "holly-oak": ["Spring is led", "Winter is led", "Summer is current", "I lead", "10Wi beats the trick", "5Sp does not beat the trick", "the trick holds a king", "I play last", "I have won no trick"],
        "holidays": ["the destination is venice", "the destination is not cruise", "the value is at least 12", "the best set-off is below 15"],
        "holiday-board": ["the bid is above $1,000", "the bid is at most $2,000", "the minimum bid is at most $1,500"],
        "tranquility": ["the Start's discard is on", "the Start's discard is not on", "c3 is empty"],
    }[game.slug]
    hand_moves = {
        "holly-oak": [f"play {card}" for card in view["hand"]],
        "holidays": ["accept", "confirm"] + [f"propose {d}" for d in ("venice", "park")],
        "holiday-board": ["pass", "bid min", "skip"],
        "tranquility": [f"discard {a} {b}" for a, b in zip(view["hand"], view["hand"][1:])],
    }[game.slug] + moves[:10]
    orders = []
    for _ in range(rng.randrange(7)):
        move = rng.choice(hand_moves)
        kind = rng.randrange(3)
        others = [s for s in range(table.players) if s != seat]
        if kind == 0:
            orders.append(f"next: {move}")
        elif kind == 1:
            orders.append(f"if {rng.choice(conditions)}: {move}")
        elif others:
            other = rng.choice(others)
            guess = rng.choice(table.legal_moves(other) or ["pass"]) if other in table.to_act else rng.choice(hand_moves)
            orders.append(f"after {other} {guess}: {move}")
    valid = []
    for text in orders:
        try:
            parse_orders([text], Context(game, table.players, seat, view), ids=["x"])
        except (BadOrder, core.IllegalMove, ValueError):
            continue
        valid.append(text)
    return valid


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), slug=st.sampled_from(["holly-oak", "holidays", "tranquility", "holiday-board"]))
def test_random_orders_are_legal_in_turn_invisible_until_fired_and_replay(store: Store, seed: int, slug: str):
    games = Games(store)
    game = core.GAMES[slug]
    players = max(game.min_players, min(3, game.max_players))
    with_orders = games.create(slug, players, seed=seed)
    plain = games.create(slug, players, seed=seed)
    rng = random.Random(seed)
    holder = rng.randrange(players)
    fired_yet = False
    for step in range(50):
        table = games.table(with_orders)
        if table.outcome is not None:
            break
        if step % 5 == 0:
            try:
                leave(games, with_orders, holder, random_orders(rng, table, holder))
            except BadOrder:
                pass
            table = games.table(with_orders)
        fired_yet = fired_yet or any(env.origin == "order" for env in store.read(with_orders))
        twin = games.table(plain)
        if not fired_yet:
            # Until an order fires, every other seat is shown exactly what the twin game shows it.
            assert table.seq == twin.seq
            for seat in range(players):
                if seat != holder:
                    assert table.view(seat) == twin.view(seat)
                    assert turn_report.since_last_move(table, store.read(with_orders), seat) == turn_report.since_last_move(twin, store.read(plain), seat)
            assert table.view(None) == twin.view(None)
        if table.outcome is not None:
            break
        seat = table.to_act[0]
        move = rng.choice(table.legal_moves(seat))
        games.submit(with_orders, seat, move, command_id=f"hand:{table.seq}")
        if not fired_yet and table.seq == twin.seq:
            games.submit(plain, seat, move, command_id=f"hand:{table.seq}")
    envelopes = store.read(with_orders)
    events = [env.event for env in envelopes]
    for env in envelopes:
        if env.origin == "order":
            before = core.replay_table(slug, events[: env.seq])
            assert env.actor in before.to_act and env.actor not in before.bots  # in turn, a person's seat
            assert env.command in before.legal_moves(env.actor)  # never an illegal move
            assert env.command_id.startswith("order:") and env.command_id.endswith(f":{env.seq}")
    assert core.replay_table(slug, events).state == games.table(with_orders).state
    assert verify(Log(f"game {with_orders}", envelopes), seed=seed).ok


def test_the_deadlines_look_fires_an_order_a_dead_process_left_unplayed(games: Games, store: Store):
    """Orders stored while the seat was to act, with no follow-up after (a process died): settle,
    which the deadline job runs before it times a seat out, plays the order instead."""
    from core.orders import Order

    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    seat = to_act(table)
    move = table.legal_moves(seat)[0]
    Orders(store).replace(game_id, seat, [Order("dead1", move, left_at=table.seq, scope=table.view(seat)["round"])])
    store.redis.hset(keys.meta(game_id), "orders", "1")
    assert games.settle(game_id) == table.seq + 1
    [env] = [env for env in store.read(game_id) if env.origin == "order"]
    assert (env.actor, env.command, env.command_id) == (seat, move, order_command_id("dead1", table.seq))


def test_the_audit_lists_each_fired_order_with_its_seq_seat_move_and_id(games: Games, store: Store):
    from replays.audit import audit

    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    now, after = next_seat(table)
    hand = table.view(after)["hand"]
    stored = leave(games, game_id, after, [f"next: play {card}" for card in hand])
    games.submit(game_id, now, table.legal_moves(now)[0], command_id="hand:1")
    env = next(env for env in store.read(game_id) if env.origin == "order")
    text, report = audit(Log(f"game {game_id}", store.read(game_id)), seed=7)
    assert report.ok
    order_id = env.command_id.split(":")[1]
    assert order_id in {order.id for order in stored}
    assert f"| {env.seq} | seat {after} | `{order_id}` | `{env.command}` |" in text
    assert "(a standing order of the seat)" in text and "next:" not in text  # the order's text stays the seat's
