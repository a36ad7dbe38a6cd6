"""Playing at the terminal as a newcomer does: `help` for the moves, honest command ids, stale views
refused, bot seats guarded, readable views, errors as JSON in --json mode."""

from __future__ import annotations

import json

import pytest

from tests.test_view_text import RAW_DUMP
from workers.dispatch import AI_QUEUE
from workers.worker import running_workers


@pytest.fixture(autouse=True)
def no_bot_turn_left_queued(redis_client):
    """The bot games here have no worker: their queued turns are removed, so that the worker tests
    after these find only their own jobs in the queue."""
    from rq import Queue
    from rq.job import Job

    queue = Queue(AI_QUEUE, connection=redis_client)
    before = set(queue.job_ids)
    yield
    for job_id in set(queue.job_ids) - before:
        Job.fetch(job_id, connection=redis_client).delete()


def new_game(pbm, *args: str) -> str:
    return pbm("new", "holly-oak", "--players", "3", "--forced-moves", "ask", "--seed", "5", *args).stdout.strip()  # the opening lead (1Sp) is played by hand here


def events_of(pbm, game_id: str) -> list[dict]:
    return json.loads(pbm("log", game_id, "--json").stdout)


@pytest.mark.parametrize("word", ["help", "?", " HELP "])
def test_help_as_a_move_lists_the_seats_moves_and_plays_nothing(pbm, word: str) -> None:
    game_id = new_game(pbm)
    before = events_of(pbm, game_id)
    out = pbm("play", game_id, "--as", "1", word).stdout
    assert "your moves: play 1Sp" in out and "pbm rules holly-oak" in out
    assert "no move now" in pbm("play", game_id, "--as", "0", word).stdout
    assert json.loads(pbm("play", game_id, "--as", "1", word, "--json").stdout)["legal_moves"] == ["play 1Sp"]
    assert events_of(pbm, game_id) == before


def test_a_command_id_reused_for_another_move_is_an_error(pbm) -> None:
    game_id = new_game(pbm)
    pbm("play", game_id, "--as", "1", "play 1Sp", "--command-id", "abc")
    assert "already played" in pbm("play", game_id, "--as", "1", "PLAY 1sp", "--command-id", "abc").stdout
    before = events_of(pbm, game_id)
    seat, move = 2, json.loads(pbm("show", game_id, "--as", "2", "--json").stdout)["legal_moves"][0]
    reused = pbm("play", game_id, "--as", str(seat), move, "--command-id", "abc", ok=False)
    assert reused.exit_code == 1 and reused.stderr.strip() == "error: command id 'abc' was used for another move"
    assert events_of(pbm, game_id) == before


def test_expect_seq_refuses_a_move_made_on_a_stale_view(pbm) -> None:
    game_id = new_game(pbm)
    seen = json.loads(pbm("show", game_id, "--as", "1", "--json").stdout)
    last = events_of(pbm, game_id)[-1]["seq"]
    assert seen["seq"] == last + 1  # a view's seq is the next event's
    played = json.loads(pbm("play", game_id, "--as", "1", "play 1Sp", "--expect-seq", str(seen["seq"]), "--json").stdout)
    assert played["seq"] == seen["seq"] == played["events"][0]["seq"]
    move = json.loads(pbm("show", game_id, "--as", "2", "--json").stdout)["legal_moves"][0]
    stale = pbm("play", game_id, "--as", "2", move, "--expect-seq", str(seen["seq"]), ok=False)
    assert stale.exit_code == 1 and f"not {seen['seq']}: someone moved first" in stale.stderr
    assert events_of(pbm, game_id)[-1]["seq"] == seen["seq"]


def test_a_person_plays_a_bots_seat_only_with_force(pbm) -> None:
    game_id = new_game(pbm, "--bot", "1=random")
    before = events_of(pbm, game_id)
    refused = pbm("play", game_id, "--as", "1", "play 1Sp", ok=False)
    assert "seat 1 is played by a bot (random): --force" in refused.stderr
    assert events_of(pbm, game_id) == before
    assert "you led 1Sp" in pbm("play", game_id, "--as", "1", "play 1Sp", "--force").stdout


def test_new_with_a_bot_warns_when_no_worker_runs(pbm, redis_client) -> None:
    result = pbm("new", "holly-oak", "--players", "3", "--bot", "2=random")
    warned = "warning: no worker is running" in result.stderr
    assert warned == (running_workers(redis_client) == 0)
    assert result.stdout.strip().startswith("holly-oak-")  # the id alone on stdout, for $(...)
    assert "warning" not in pbm("new", "holly-oak", "--players", "3").stderr


def test_show_says_your_turn_names_the_bots_and_reads_long_move_lists_by_pattern(pbm) -> None:
    game_id = new_game(pbm, "--bot", "2=heuristic")
    shown = pbm("show", game_id, "--as", "1").stdout
    assert "Your turn." in shown and "seat 2 (bot)" in shown and "as seat 1" in shown and "you lead this trick" in shown
    assert "Your turn" not in pbm("show", game_id, "--as", "0").stdout
    board = pbm("new", "holiday-board", "--players", "3", "--seed", "1").stdout.strip()
    pbm("play", board, "--as", "0", "bid 100")
    summary = pbm("show", board, "--as", "1").stdout
    # The least bid, the seat's own money ($10,000) and one between, and what a bid may be.
    assert "your moves (300 in all; --all lists them):" in summary
    assert "  bid <amount>: 299 moves, e.g. bid 200, bid 700, bid 10000" in summary
    assert "($200 (the least) to $30,000, in hundreds; you have $10,000)" in summary
    assert "bid 29900" not in summary and len(summary.split("your moves")[1].splitlines()) <= 4
    every = pbm("show", board, "--as", "1", "--all").stdout
    assert "bid 29900" in every and "bid <amount>" not in every
    assert len(json.loads(pbm("show", board, "--as", "1", "--json").stdout)["legal_moves"]) == 300


def test_piped_output_is_not_wrapped_at_80_columns(pbm) -> None:
    out = pbm("games").stdout
    assert max(len(line) for line in out.splitlines()) > 100
    assert "the JSON text of a board file" in out  # one line, not cut across two


def test_the_whole_state_shows_each_seats_hand_on_its_own_line(pbm) -> None:
    game_id = new_game(pbm)
    out = pbm("replay", "show", game_id, "--referee").stdout.splitlines()
    hands = out.index("hands:")
    assert [line.split(":")[0].strip() for line in out[hands + 1 : hands + 4]] == ["seat 0", "seat 1", "seat 2"]
    assert not any(RAW_DUMP.search(line) for line in out)


def test_tranquility_draws_its_sea_as_a_grid(pbm) -> None:
    game_id = pbm("new", "tranquility", "--players", "1", "--seed", "4").stdout.strip()
    out = pbm("show", game_id, "--as", "0").stdout.splitlines()
    header = next(i for i, line in enumerate(out) if line.split() == list("abcdef"))
    assert [line.split()[0] for line in out[header + 1 : header + 7]] == ["6", "5", "4", "3", "2", "1"]


@pytest.mark.parametrize(
    ("args", "status"),
    [(["show", "no-such-game", "--json"], 1), (["show", "--json"], 2), (["no-such-command", "--json"], 2)],
)
def test_errors_in_json_mode_are_json_on_stderr(pbm, args: list[str], status: int) -> None:
    result = pbm(*args, ok=False)
    error = json.loads(result.stderr)
    assert result.exit_code == status == error["status"] and error["error"]
    assert result.stdout == ""


def test_every_command_takes_json_but_the_long_running_servers() -> None:
    import click

    from pbm.cli import main

    ctx = click.Context(main)
    lacking = []

    def walk(command: click.Command, path: str) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), f"{path} {name}".strip())
        elif not any("--json" in param.opts for param in command.params):
            lacking.append(path)

    walk(main, "")
    # The servers run until stopped: what they print is a log, not a result.
    assert set(lacking) <= {"worker", "serve", "mail-server"}, lacking


def test_stepping_as_a_seat_never_shows_another_seats_move_text(pbm) -> None:
    game_id = pbm("new", "tranquility", "--players", "2", "--seed", "3").stdout.strip()
    hand = json.loads(pbm("show", game_id, "--as", "0", "--json").stdout)["hand"]
    discard = next(m for m in json.loads(pbm("show", game_id, "--as", "0", "--json").stdout)["legal_moves"] if m.startswith("discard"))
    pbm("play", game_id, "--as", "0", discard)
    def steps(*who: str) -> list[dict]:
        out = pbm("replay", "step", game_id, *who, "--script", "n" * 20, "--json").stdout
        return [json.loads(line) for line in out.splitlines()]

    assert all(step["command"] is None for step in steps("--as", "1"))
    assert not any(card in step["event"].split() for step in steps("--as", "1") for card in discard.split()[1:])
    assert {"seat": 0, "move": discard} in [step["command"] for step in steps("--as", "0")]
    assert set(discard.split()[1:]) <= set(hand)
    assert discard not in pbm("replay", "step", game_id, "--public", "--script", "n" * 20).stdout


def test_show_reads_tranquilitys_190_moves_as_patterns_with_examples(pbm) -> None:
    game_id = pbm("new", "tranquility", "--players", "2", "--seed", "1").stdout.strip()
    legal = json.loads(pbm("show", game_id, "--as", "0", "--json").stdout)["legal_moves"]
    shown = pbm("show", game_id, "--as", "0").stdout
    block = shown.split("your moves", 1)[1].splitlines()
    assert block[0] == f" ({len(legal)} in all; --all lists them):" and len(legal) > 100
    assert len(block) <= 4 and block[1].startswith("  play <card> <cell>: ") and block[2].startswith("  discard <two cards>: ")
    examples = [move.strip() for line in block[1:] for move in line.split("e.g. ", 1)[1].split(",")]
    assert len(examples) == 6 and set(examples) <= set(legal)
    helped = pbm("play", game_id, "--as", "0", "help").stdout  # the same lines for `play ... help`
    assert "play <card> <cell>: " in helped and len(helped.splitlines()) <= 5
