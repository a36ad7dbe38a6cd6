"""A seat handed to a bot mid-game and back, recorded as a BotsSeated lifecycle event through the
command path: the bot's turn is dispatched and played by a real rq worker, the log still verifies,
and recovery finds a game whose bots were seated after the opening."""

from __future__ import annotations

import random

import pytest
from rq.job import Job

import core
from events.commands import CommandIdReused, Games
from events.store import Store
from replays.log import from_store
from replays.verify import verify
from workers import bots
from workers.dispatch import Dispatcher, turn_job_id

from tests.workers.test_rq import run_worker


@pytest.fixture
def dispatching(store: Store) -> Games:
    return Games(store, dispatch=Dispatcher(store.redis))


def play_people(games: Games, game_id: str, chooser: random.Random, moves: int | None = None) -> None:
    """Random legal moves for seats no bot plays, until a bot is to act, the end, or `moves`."""
    table = games.table(game_id)
    while table.to_act and moves != 0:
        people = [s for s in table.to_act if s not in bots.bot_seats(table.events)]
        if not people:
            return
        seat = chooser.choice(people)
        games.submit(game_id, seat, chooser.choice(table.legal_moves(seat)), command_id=f"p{table.seq}")
        table = games.table(game_id)
        moves = None if moves is None else moves - 1


def test_a_seat_handed_to_a_bot_and_back_plays_on_and_verifies(dispatching: Games, store: Store, cli_env):
    game_id = dispatching.create("holly-oak", 3, seed=21)
    chooser = random.Random(4)
    play_people(dispatching, game_id, chooser, moves=20)
    table = dispatching.table(game_id)
    seat = table.to_act[0]
    handed = dispatching.seat_bots(game_id, {seat: "random"}, command_id="autopilot-1")
    assert handed.events[0].kind == core.BotsSeated.kind and handed.events[0].actor is None
    assert bots.bot_seats(dispatching.table(game_id).events) == {seat: "random"}
    assert Job.exists(turn_job_id(game_id, handed.seq + 1, seat), connection=store.redis)
    # Recovery's candidates come from the index, its work from the row: both know the handover.
    found = {info.game_id: info for info in store.bot_games()}
    assert game_id in found and found[game_id].status.bots == (seat,) and found[game_id].status.waiting_on_bot
    again = dispatching.seat_bots(game_id, {seat: "random"}, command_id="autopilot-1")
    assert again.duplicate and again.seq == handed.seq

    result = run_worker(cli_env, "--burst", "--no-recover")
    assert result.returncode == 0, result.stderr
    after_bot = store.read(game_id)
    assert any(env.actor == seat and env.command_id and env.command_id.startswith("bot:") for env in after_bot)

    back = dispatching.seat_bots(game_id, {})  # the person is back: the latest mapping wins
    assert bots.bot_seats(dispatching.table(game_id).events) == {}
    assert dispatching.table(game_id).narrate(None, start=back.seq)[0][1] == "people play every seat"
    play_people(dispatching, game_id, chooser)
    log = from_store(store, game_id)
    assert log.table().outcome is not None
    report = verify(log)
    assert report.ok, report.lines()
    # Every command is re-decided; neither handover is counted into the command before it.
    assert all(ruling.status == "ok" for ruling in report.rulings)
    assert all(log.envelopes[first + count - 1].kind != core.BotsSeated.kind for first, count in log.commands())


def test_handing_seats_over_refuses_a_bad_seat_or_a_finished_game(games: Games, store: Store):
    game_id = games.create("tranquility", 2, seed=3)
    length = store.length(game_id)
    with pytest.raises(core.SetupError):
        games.seat_bots(game_id, {5: "random"})
    with pytest.raises(core.SetupError):
        games.seat_bots(game_id, {0: ""})
    assert store.length(game_id) == length
    chooser = random.Random(1)
    table = games.table(game_id)
    while table.to_act:
        seat = table.to_act[0]
        games.submit(game_id, seat, chooser.choice(table.legal_moves(seat)))
        table = games.table(game_id)
    with pytest.raises(core.SetupError, match="is over"):
        games.seat_bots(game_id, {0: "random"})
    assert store.length(game_id) == table.seq


def test_a_command_id_reused_for_another_handover_or_a_move_is_refused(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=5, forced_moves="ask")  # seat 1 leads 1Sp by hand
    handed = games.seat_bots(game_id, {1: "random"}, command_id="swap-1")
    again = games.seat_bots(game_id, {1: "random"}, command_id="swap-1")  # the same handover: its answer
    assert again.duplicate and (again.seq, again.events) == (handed.seq, handed.events)
    games.submit(game_id, 1, "play 1Sp", command_id="move-1")
    length = store.length(game_id)
    for mapping, used in (({1: "heuristic"}, "swap-1"), ({}, "swap-1"), ({2: "random"}, "swap-1"), ({1: "random"}, "move-1")):
        with pytest.raises(CommandIdReused, match=f"command id '{used}' was used for another handover of seats"):
            Games(store).seat_bots(game_id, mapping, command_id=used)
    assert store.length(game_id) == length
    assert bots.bot_seats(games.table(game_id).events) == {1: "random"}
