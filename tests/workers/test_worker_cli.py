"""The workers' commands: `pbm new --bot`, `pbm stats`, `pbm recover`, `pbm simulate` (with a real
worker process), and their one-line refusals that write nothing."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from rq.job import Job

from events.commands import Games
from events.store import Store
from workers import analytics
from workers.dispatch import turn_job_id


def test_new_with_bots_records_them_in_the_log_and_queues_the_first_turn(pbm, games: Games, store: Store) -> None:
    made = json.loads(pbm("new", "holly-oak", "-p", "3", "--seed", "4", "--bot", "1=random", "--bot", "2=ismcts:50", "--json").stdout)
    game_id = made["game_id"]
    assert made["bots"] == {"1": "random", "2": "ismcts:50"}
    story = json.loads(pbm("log", game_id, "--json").stdout)
    assert any(row["text"] == "bots play seat 1 (random), seat 2 (ismcts:50)" for row in story)
    table = games.table(game_id)
    for seat in table.to_act:
        assert Job.exists(turn_job_id(game_id, table.seq, seat), connection=store.redis) == (seat != 0)


@pytest.mark.parametrize(
    "bot, words",
    [("0=chess", "unknown bot kind"), ("5=random", "seats 0 to 2"), ("x", "SEAT=KIND"), ("0=ismcts:-3", "bad ismcts budget")],
)
def test_a_bad_bot_is_one_line_and_creates_nothing(pbm, store: Store, bot: str, words: str) -> None:
    before = len(store.games())
    result = pbm("new", "holly-oak", "-p", "3", "--bot", bot, ok=False)
    assert words in result.output and len(result.output.strip().splitlines()) == 1
    assert len(store.games()) == before


def finished_game(games: Games, seed: int) -> str:
    game_id = games.create("holly-oak", 3, seed=seed)
    chooser = random.Random(seed)
    table = games.table(game_id)
    while table.to_act:
        seat = table.to_act[0]
        games.submit(game_id, seat, chooser.choice(table.legal_moves(seat)))
        table = games.table(game_id)
    return game_id


def test_stats_shows_a_summary_and_the_aggregates(pbm, games: Games, store: Store) -> None:
    game_id = finished_game(games, 8)
    result = pbm("stats", game_id, ok=False)
    assert "no summary yet" in result.output
    summary = analytics.store_summary(store, game_id)
    assert summary == json.loads(pbm("stats", game_id, "--json").stdout)
    table = games.table(game_id)
    assert summary["scores"] == list(table.outcome.scores) and summary["seats"] == ["human"] * 3
    assert sum(summary["moves"]) == sum(1 for env in store.read(game_id) if env.command is not None)
    assert sum(summary["tricks"]) == summary["per_seat"]["trick_won"][0] + summary["per_seat"]["trick_won"][1] + summary["per_seat"]["trick_won"][2]
    assert summary["rounds"] >= 1 and all(k >= 0 for k in summary["kings"])
    shown = pbm("stats", game_id).stdout
    assert "tricks" in shown and "kings" in shown
    everything = json.loads(pbm("stats", "--game", "holly-oak", "--json").stdout)
    assert everything["games"] >= 1 and "human" in everything["win_rate_by_kind"]
    assert "win rate" in pbm("stats", "--game", "holly-oak").stdout
    assert "no game" in pbm("stats", "nope-123", ok=False).output
    assert "not both" in pbm("stats", ok=False).output
    assert "unknown game" in pbm("stats", "--game", "chess", ok=False).output


def test_recover_queues_the_summary_nobody_wrote(pbm, games: Games, store: Store) -> None:
    game_id = finished_game(games, 9)  # written without dispatch: no summary job was queued
    queued = json.loads(pbm("recover", "--json").stdout)["queued"]
    assert f"pbm-summary-{game_id}" in queued
    assert f"pbm-summary-{game_id}" not in json.loads(pbm("recover", "--json").stdout)["queued"]


def test_simulate_plays_on_workers_and_writes_a_report(pbm, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = pbm(
        "simulate", "holiday-board", "--games", "6", "--players", "2", "--bots", "heuristic,random",
        "--workers", "1", "--seed", "3", "--out", str(out), "--json",
    )
    report = json.loads(result.stdout)
    aggregate = report["aggregate"]
    assert aggregate["games"] == 6
    assert aggregate["win_rate_by_kind"]["heuristic"]["games"] == 6
    assert aggregate["win_rate_by_kind"]["random"]["games"] == 6
    text = (out / "report.md").read_text()
    assert "| heuristic | 6 |" in text and "Wilson" in text
    for chart in ("win-rates.png", "scores.png", "lengths.png"):
        assert (out / chart).read_bytes()[:4] == b"\x89PNG"


def test_simulate_refuses_a_mismatch_of_bots_and_seats(pbm) -> None:
    result = pbm("simulate", "holidays", "--players", "3", "--bots", "random,heuristic", ok=False)
    assert "2 kinds for 3 seats" in result.output
