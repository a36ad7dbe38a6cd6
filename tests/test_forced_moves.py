"""Forced moves: a person's only legal move is played for them by the command path (real Redis,
real Games), recorded with origin "forced", told to that seat alone."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core
from events import envelope
from events.commands import Games, forced_command_id, forced_move
from events.store import Store
from pbm import turn_report
from replays.log import Log
from replays.verify import verify

NOTE = " (played for you: it was your only legal move)"


def leader(table: core.Table) -> int:
    [seat] = table.to_act
    return seat


def test_the_opening_lead_is_played_for_its_holder_through_the_command_path(games: Games, store: Store):
    asked = games.create("holly-oak", 3, seed=7, forced_moves="ask")
    lead = leader(games.table(asked))
    assert games.table(asked).legal_moves(lead) == ["play 1Sp"]  # the holder of 1Sp must lead it
    game_id = games.create("holly-oak", 3, seed=7)
    envelopes = store.read(game_id)
    played = [env for env in envelopes if env.command is not None]
    assert len(played) == 1
    [env] = played
    assert (env.actor, env.command, env.command_id, env.origin, env.schema) == (lead, "play 1Sp", forced_command_id(env.seq, lead), "forced", envelope.SCHEMA_ORIGIN)
    assert all(other.origin is None and other.schema == envelope.SCHEMA for other in envelopes if other is not env)
    assert store.forced_moves(game_id) == "auto" and store.forced_moves(asked) == "ask"
    assert not any(env.command for env in store.read(asked))  # "ask": the lead waits for its holder
    # The log replays and verifies as ordinary moves: the forced one is re-decided like any other.
    assert core.replay_table("holly-oak", [e.event for e in envelopes]).state == games.table(game_id).state
    assert verify(Log(f"game {game_id}", envelopes), seed=7).ok


def test_forced_moves_is_auto_or_ask(games: Games):
    with pytest.raises(core.SetupError, match="forced_moves is auto or ask, not 'sometimes'"):
        games.create("holly-oak", 3, seed=1, forced_moves="sometimes")


def test_a_bots_seat_is_not_forced(games: Games, store: Store):
    lead = leader(games.table(games.create("holly-oak", 3, seed=7, forced_moves="ask")))
    game_id = games.create("holly-oak", 3, seed=7, bots={lead: "random"})
    assert not any(env.command for env in store.read(game_id))  # its bot's job plays it


def test_another_seat_cannot_tell_a_forced_move_from_the_same_move_by_hand(games: Games, store: Store):
    by_hand = games.create("holly-oak", 3, seed=7, forced_moves="ask")
    lead = leader(games.table(by_hand))
    games.submit(by_hand, lead, "play 1Sp", command_id="web:x")
    forced = games.create("holly-oak", 3, seed=7)
    hand_table, forced_table = games.table(by_hand), games.table(forced)
    assert hand_table.seq == forced_table.seq
    for seat in range(3):
        hand_report = turn_report.since_last_move(hand_table, store.read(by_hand), seat)
        forced_report = turn_report.since_last_move(forced_table, store.read(forced), seat)
        assert forced_table.view(seat) == hand_table.view(seat)
        if seat == lead:  # only its own seat is told it was played for it (from the start: it has sent nothing)
            assert forced_report[-1] == hand_report[-1] + NOTE and forced_report[:-1] == [line for _s, line in hand_table.narrate(seat)][:-1]
        else:
            assert forced_report == hand_report
    assert forced_table.view(None) == hand_table.view(None)
    assert turn_report.story(forced_table, None) == turn_report.story(hand_table, None)


def test_a_forced_move_is_not_where_the_seats_report_starts(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=7)
    table = games.table(game_id)
    lead = next(env.actor for env in store.read(game_id) if env.origin == "forced")
    # The seat has not sent a move itself: its report runs from the start, the forced lead marked.
    assert store.since_move(game_id, lead, table.seq - 1) == store.read(game_id)
    report = turn_report.since_last_move(table, store.since_move(game_id, lead, table.seq - 1), lead)
    assert report[0] == table.narrate(lead)[0][1] and sum(line.endswith(NOTE) for line in report) == 1


class Recorder:
    """A dispatch hook that keeps what it was handed (the states the game waits in)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, tuple[int, ...]]] = []
        self.pending: list[tuple[int, str]] = []

    def __call__(self, game_id: str, table: core.Table, reach=None) -> None:
        self.calls.append((table.seq, tuple(table.to_act)))
        found = forced_move(table)
        if found is not None:
            self.pending.append(found)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), slug=st.sampled_from(["holly-oak", "holidays", "tranquility", "holiday-board"]))
def test_random_playouts_settle_every_forced_move_and_replay_to_the_live_state(store: Store, seed: int, slug: str):
    recorder = Recorder()
    games = Games(store, dispatch=recorder)
    game = core.GAMES[slug]
    players = max(game.min_players, min(3, game.max_players))
    game_id = games.create(slug, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(60):
        table = games.table(game_id)
        if table.outcome is not None:
            break
        seat = table.to_act[0]
        before = len(recorder.calls)
        games.submit(game_id, seat, rng.choice(table.legal_moves(seat)), command_id=f"hand:{table.seq}:{seat}")
        assert len(recorder.calls) == before + 1  # one dispatch per submit, however many follow-ups
    assert recorder.pending == []  # never dispatched a state that still had a forced move in it
    envelopes = store.read(game_id)
    events = [env.event for env in envelopes]
    for env in envelopes:
        if env.origin == "forced":
            at = core.replay_table(slug, events[: env.seq])
            assert at.legal_moves(env.actor) == [env.command] and env.actor in at.to_act
            assert env.command_id == forced_command_id(env.seq, env.actor)
    live = games.table(game_id)
    assert core.replay_table(slug, events).state == live.state
    assert verify(Log(f"game {game_id}", envelopes), seed=seed).ok


FROZEN_FORCED = bytes.fromhex(
    "9c02a3672d3101af70626d2e626f74735f73656174656481a4626f74739002a8706c617920315370aa666f726365643a313a32"
    "cf0000018bcfe56800a6666f72636564c4200000000000000000000000000000000000000000000000000000000000000000"
    "c42030854ba28d137f935392158999aa3b6cda6a58413c8c9acfff360a1616669e55"
)


def test_the_origin_is_schema_2_bytes_frozen_here_and_covered_by_the_hash():
    env = envelope.decode(FROZEN_FORCED)
    assert (env.schema, env.origin, env.command_id, env.actor) == (2, "forced", "forced:1:2", 2)
    assert env.encode() == FROZEN_FORCED and env.expected_hash() == env.hash
    assert env.replace(origin="order").expected_hash() != env.hash  # an origin cannot be changed unseen
    resealed, raw = envelope.sealed("g-1", 1, core.BotsSeated(bots=()), bytes(32), actor=2, command="play 1Sp",
                                    command_id="forced:1:2", time_ms=1700000000000, origin="forced")
    assert raw == FROZEN_FORCED and resealed == env
    with pytest.raises(ValueError, match="an origin is one of forced, order"):
        envelope.sealed("g-1", 1, core.BotsSeated(bots=()), bytes(32), actor=2, command="x", command_id=None, time_ms=1, origin="bot")
    from events import codec

    bad = codec.unpack(FROZEN_FORCED)
    bad[9] = "mine"
    with pytest.raises(envelope.DecodeError, match="bad origin"):
        envelope.decode(codec.pack(bad))
    with pytest.raises(envelope.DecodeError, match="schema 2 is an array of 12"):
        envelope.decode(codec.pack(bad[:9] + bad[10:]))


def test_pbm_new_and_the_api_store_the_setting(pbm, store: Store):
    game_id = pbm("new", "holly-oak", "--players", "3", "--forced-moves", "ask").stdout.strip()
    assert store.forced_moves(game_id) == "ask"
    assert "forced" not in str([env.command_id for env in store.read(game_id)])
    refused = pbm("new", "holly-oak", "--players", "3", "--forced-moves", "never", ok=False)
    assert "never" in refused.output


def test_the_audit_names_a_forced_move_as_such(games: Games, store: Store):
    from replays.audit import audit

    game_id = games.create("holly-oak", 3, seed=7)
    text, report = audit(Log(f"game {game_id}", store.read(game_id)), seed=7)
    assert report.ok
    [row] = [line for line in text.splitlines() if "`play 1Sp`" in line]
    assert "(forced: the seat's only legal move, played by pbm)" in row and row.endswith("| yes |")


class Watched(Store):
    """The real store, noting the log's length after each append: every state a reader of the log
    (another process's page, its event stream) could ever be shown."""

    def __init__(self, client) -> None:
        super().__init__(client)
        self.lengths: list[int] = []

    def append(self, game_id, expected_seq, envelopes, *args, **kwargs):
        appended = super().append(game_id, expected_seq, envelopes, *args, **kwargs)
        if not appended.duplicate:
            self.lengths.append(appended.first + appended.count)
        return appended


@pytest.mark.parametrize("slug", ["holly-oak", "holidays"])
def test_no_reader_ever_sees_a_turn_that_is_about_to_be_played_for_its_seat(redis_client, slug: str):
    # The race the whole-game browser test found: a forced move was an append of its own after the
    # move that led to it, so a page redrawn in between (another process's move: a bot's, a mail's)
    # offered a turn whose only move was being played, and its click got a 409. Now the forced moves
    # are in the append of the move that led to them: no state between them is ever in the log.
    store = Watched(redis_client)
    games = Games(store)
    rng = random.Random(5)
    forced = 0
    for seed in range(2):
        game_id = games.create(slug, 3, seed=seed)
        store.lengths.clear()  # the creation's own forced lead is a follow-up of its own (nobody holds a link yet)
        for _ in range(150):  # enough moves for many forced ones; a whole game of Holidays is long
            if (table := games.table(game_id)).outcome is not None:
                break
            seat = table.to_act[0]
            games.submit(game_id, seat, rng.choice(table.legal_moves(seat)), command_id=f"hand:{table.seq}:{seat}")
        envelopes = store.read(game_id)
        events = [env.event for env in envelopes]
        forced += sum(env.origin == "forced" for env in envelopes)
        shown, at = core.replay_table(slug, events[: store.lengths[0]]), store.lengths[0]
        for length in store.lengths:
            shown.extend(events[at:length])
            at = length
            assert forced_move(shown) is None, (seed, length)  # no log a reader gets calls for a forced move
        # Each forced move keeps its own command id: another process that finds it appends nothing.
        for env in envelopes:
            if env.origin == "forced":
                done = store.command(game_id, env.command_id)
                assert done.first == env.seq and done.count >= 1
    assert forced > 10  # the games had forced moves to fold


def test_a_move_and_its_forced_follow_up_are_one_append_and_its_repeat_answers_the_move_alone(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=3)
    for _ in range(200):
        table = games.table(game_id)
        seat = table.to_act[0]
        move = table.legal_moves(seat)[0]
        length = store.length(game_id)
        submitted = games.submit(game_id, seat, move, command_id=f"web:{seat}:{table.seq}")
        after = store.read(game_id, length)
        if any(env.origin == "forced" for env in after):
            break
    else:
        pytest.fail("no forced move followed a move in 200")
    [first_forced] = [env for env in after if env.origin == "forced"][:1]
    assert [env.seq for env in submitted.events] == list(range(length, first_forced.seq))  # the move's own events
    assert store.command(game_id, f"web:{seat}:{table.seq}").count == first_forced.seq - length
    again = games.submit(game_id, seat, move, command_id=f"web:{seat}:{table.seq}")
    assert again.duplicate and [env.seq for env in again.events] == [env.seq for env in submitted.events]
    assert Games(store).settle(game_id) == store.length(game_id)  # another process finds nothing left to play
    assert verify(Log(f"game {game_id}", store.read(game_id))).ok
