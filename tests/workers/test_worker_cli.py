"""The workers' commands: `pbm new --bot`, `pbm stats`, `pbm recover`, `pbm simulate` (with a real
worker process), and their one-line refusals that write nothing."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import pytest
from rq.job import Job

from events import keys
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
    assert everything["games"] >= 1 and "human" in everything["by_players"]["3"]["win_rate_by_kind"]
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
    # Its games are tagged, and gone once the report is written.
    assert all(game_id.startswith("sim-holiday-board-") for game_id in report["games"]) and report["kept"] is False
    listed = {row["game_id"] for row in json.loads(pbm("list", "--json").stdout)}
    assert listed.isdisjoint(report["games"])


def test_simulate_keeps_its_games_with_keep(pbm, tmp_path: Path) -> None:
    result = pbm("simulate", "holidays", "--games", "2", "--players", "2", "--workers", "1", "--seed", "4",
                 "--out", str(tmp_path), "--keep")
    assert "are kept in the log" in result.stdout
    listed = {row["game_id"] for row in json.loads(pbm("list", "--finished", "--json").stdout)}
    assert len({game_id for game_id in listed if game_id.startswith("sim-holidays-")}) >= 2


def test_simulate_refuses_a_mismatch_of_bots_and_seats(pbm) -> None:
    result = pbm("simulate", "holidays", "--players", "3", "--bots", "random,heuristic", ok=False)
    assert "2 kinds for 3 seats" in result.output


def cooperative_summary(game_id: str, players: int, won: bool) -> dict:
    return {"game_id": game_id, "game": "tranquility", "players": players, "seats": ["random"] * players,
            "scores": [30 if won else 12] * players, "winners": list(range(players)) if won else [],
            "events": 50, "moves": [10] * players}


def test_cooperative_reports_give_the_team_rate_over_games_and_no_fair_share(tmp_path: Path) -> None:
    from workers import report

    summaries = [cooperative_summary(f"g{i}", 3, won=i < 2) for i in range(10)]
    result = analytics.aggregate(summaries)
    assert result["cooperative"] and result["team_win_rate"]["games"] == 10 and result["team_win_rate"]["wins"] == 2
    assert "win_rate_by_seat" not in result and "win_rate_by_kind" not in result
    assert result["scores"]["n"] == 10  # one shared score a game, not one a seat
    assert result["team_win_rate_by_team"] == {"3 random players": result["team_win_rate"]}
    lost = analytics.aggregate([cooperative_summary("l", 1, won=False)])
    assert lost["winning_scores"]["n"] == 0 and "1 random player" in lost["team_win_rate_by_team"]
    text = report.write(tmp_path, "tranquility", 3, ["random"], summaries, result).read_text()
    assert "fair share" not in text and "over 10 games" in text and "3 random players" in text
    lost_text = report.write(tmp_path / "lost", "tranquility", 1, ["random"], [cooperative_summary("l", 1, False)], lost).read_text()
    assert "winning scores: none (no game was won)" in lost_text and "1 random player" in lost_text
    assert "1 random players" not in lost_text


def test_stats_separates_player_counts(pbm, store: Store) -> None:
    made = []
    for i, players in enumerate((1, 1, 2)):
        summary = cooperative_summary(f"coop-{uuid.uuid4().hex[:8]}-{i}", players, won=i == 0)
        made.append(summary["game_id"])
        store.redis.set(keys.summary(summary["game_id"]), json.dumps(summary))
        store.redis.zadd(keys.summaries("tranquility"), {summary["game_id"]: i})
    stats = json.loads(pbm("stats", "--game", "tranquility", "--json").stdout)
    assert {"1", "2"} <= set(stats["by_players"])
    assert stats["by_players"]["2"]["players"] == {"2": stats["by_players"]["2"]["games"]}
    shown = pbm("stats", "--game", "tranquility").stdout
    assert "tranquility, 1 player:" in shown and "tranquility, 2 players:" in shown and "team win rate" in shown
    for game_id in made:
        store.redis.delete(keys.summary(game_id))
        store.redis.zrem(keys.summaries("tranquility"), game_id)
