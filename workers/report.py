"""The simulation report: Markdown with matplotlib charts as PNG, from game summaries. It writes
only into the directory it is given; it never touches Redis.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402

from workers.analytics import players_text  # noqa: E402


def write(directory: Path, game: str, players: int, kinds: list[str], summaries: list[dict[str, Any]], result: dict[str, Any]) -> Path:
    """report.md and its charts. A cooperative game's report gives the team's win rate over games,
    never per-seat rates, a fair share or the winning score of a game nobody won."""
    directory.mkdir(parents=True, exist_ok=True)
    cooperative = result["cooperative"]
    rows = result["team_win_rate_by_team"] if cooperative else result["win_rate_by_kind"]
    wins_png = directory / "win-rates.png"
    figure, axes = plt.subplots(figsize=(6, 3.5))
    names = list(rows)
    rates = [rows[n]["rate"] for n in names]
    errors = [[r - rows[n]["low"] for n, r in zip(names, rates)], [rows[n]["high"] - r for n, r in zip(names, rates)]]
    axes.bar(names, rates, yerr=errors, capsize=6, color="#4c72b0")
    if not cooperative:
        axes.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label="a seat's fair share")
        axes.legend(loc="upper right")
    axes.set_ylabel("team win rate over games" if cooperative else "win rate per seat-game")
    axes.set_ylim(0, 1)
    axes.set_title(f"{game}, {players} players: {'team win rate' if cooperative else 'win rate by player'} (95% Wilson)")
    figure.tight_layout()
    figure.savefig(wins_png, dpi=110)
    plt.close(figure)

    scores_png = directory / "scores.png"
    scores = defaultdict(list)
    for s in summaries:
        if cooperative:  # one score per game, shared by the team
            scores[players_text(s["seats"])].append(s["scores"][0])
        else:
            for seat, kind in enumerate(s["seats"]):
                scores[kind].append(s["scores"][seat])
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.hist(list(scores.values()), label=list(scores), bins=20)
    axes.set_xlabel("final score")
    axes.set_ylabel("games" if cooperative else "seat-games")
    axes.legend()
    axes.set_title("score distribution by " + ("team" if cooperative else "player"))
    figure.tight_layout()
    figure.savefig(scores_png, dpi=110)
    plt.close(figure)

    lengths_png = directory / "lengths.png"
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.hist([sum(s["moves"]) for s in summaries], bins=20, color="#55a868")
    axes.set_xlabel("moves per game")
    axes.set_ylabel("games")
    axes.set_title("game length")
    figure.tight_layout()
    figure.savefig(lengths_png, dpi=110)
    plt.close(figure)

    who = players_text([kinds[0]] * players) if len(kinds) == 1 else f"{', '.join(kinds)} (rotated over the seats from game to game)"
    team = result.get("team_win_rate")
    lines = [
        f"# Simulation: {game}, {players} players, {len(summaries)} games",
        "",
        f"Players: {who}",
        "",
        "## Who wins how often",
        "",
        *(
            [
                "A cooperative game: everyone wins or nobody does, so each game is one trial of the team. "
                f"Team win rate: {team['rate']:.1%} ({team['low']:.1%} - {team['high']:.1%}, 95% Wilson score "
                f"interval over {team['games']} games).",
                "",
                "| team | games | wins | win rate | 95% interval |",
                "|---|---|---|---|---|",
                *(f"| {n} | {r['games']} | {r['wins']} | {r['rate']:.1%} | {r['low']:.1%} - {r['high']:.1%} |" for n, r in rows.items()),
            ]
            if cooperative
            else [
                f"A shared win counts as a win. Intervals: 95% Wilson score intervals. A seat's fair share "
                f"of the wins in a competitive game is 1/{players} = {1 / players:.1%}.",
                "",
                "| player | seat-games | wins | win rate | 95% interval |",
                "|---|---|---|---|---|",
                *(f"| {n} | {r['games']} | {r['wins']} | {r['rate']:.1%} | {r['low']:.1%} - {r['high']:.1%} |" for n, r in rows.items()),
                "",
                f"Games with a winner: {result['games_with_a_winner']['rate']:.1%} "
                f"({result['games_with_a_winner']['low']:.1%} - {result['games_with_a_winner']['high']:.1%})",
                "",
                "| seat | win rate | 95% interval |",
                "|---|---|---|",
                *(f"| {seat} | {r['rate']:.1%} | {r['low']:.1%} - {r['high']:.1%} |" for seat, r in result["win_rate_by_seat"].items()),
            ]
        ),
        "",
        f"![win rates]({wins_png.name})",
        "",
        "## Scores and length",
        "",
        *(distribution_line(name, result[name]) for name in ("scores", "winning_scores", "length_moves")),
        "",
        f"![scores]({scores_png.name})",
        "",
        f"![lengths]({lengths_png.name})",
        "",
    ]
    path = directory / "report.md"
    path.write_text("\n".join(lines))
    return path


def distribution_line(name: str, d: dict[str, Any]) -> str:
    if not d["n"]:
        return f"- {name.replace('_', ' ')}: none" + (" (no game was won)" if name == "winning_scores" else "")
    return f"- {name.replace('_', ' ')}: min {d['min']}, median {d['median']}, mean {d['mean']}, max {d['max']}"
