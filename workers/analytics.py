"""Analytics from the log: a finished game's summary, and aggregates over summaries. It reads the
log and writes only summaries (events/keys.py names their keys); it never writes a game's log.

A summary holds the outcome, the length, the moves and the thinking time of each seat (the wall
time from the event that handed a seat the turn to that seat's move, from the envelopes' clocks:
for a bot it includes the queue), who was a bot, how many of each kind of event each seat caused,
and what matters per game (in Holly Oak: tricks and kings taken).
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import core
from core.table import apply, bot_seats
from events import index, keys
from events.envelope import Envelope
from events.store import Store

HUMAN = "human"


def summarize(game_id: str, envelopes: list[Envelope]) -> dict[str, Any]:
    events = [env.event for env in envelopes]
    started = events[0]
    table = core.replay_table(started.game, events)
    outcome = table.outcome
    if outcome is None:
        raise ValueError(f"game {game_id} is not over: nothing to summarize yet")
    players = started.players
    bots = bot_seats(events)
    moves = [0] * players
    think_ms = [0] * players
    per_seat: dict[str, list[int]] = defaultdict(lambda: [0] * players)
    for previous, env in zip(envelopes, envelopes[1:]):
        if env.command is not None and env.actor is not None:
            moves[env.actor] += 1
            think_ms[env.actor] += max(0, env.time_ms - previous.time_ms)
        seat = env.data.get("seat") if isinstance(env.data, dict) else None
        if type(seat) is int and 0 <= seat < players:
            per_seat[env.kind.split(".", 1)[1]][seat] += 1
    summary = {
        "game_id": game_id,
        "game": started.game,
        "players": players,
        "seats": [bots.get(seat, HUMAN) for seat in range(players)],
        "scores": list(outcome.scores),
        "winners": list(outcome.winners),
        "events": len(envelopes),
        "moves": moves,
        "think_ms": think_ms,
        "duration_ms": envelopes[-1].time_ms - envelopes[0].time_ms,
        "ended_ms": envelopes[-1].time_ms,
        "per_seat": dict(per_seat),
    }
    extra = EXTRAS.get(started.game)
    if extra is not None:
        summary.update(extra(table.game, events, players))
    return summary


def holly_oak_extras(game: core.Game, events: list[Any], players: int) -> dict[str, Any]:
    """Tricks and kings (and their points) each seat took over the whole game."""
    from core.games.holly_oak import rules

    tricks, kings, king_points = [0] * players, [0] * players, [0] * players
    rounds = 0
    state = None
    for event in events:
        if isinstance(event, rules.TrickWon):
            tricks[event.seat] += 1
            for played in state.trick:
                points = rules.KING_POINTS.get(str(played.card))
                if points is not None:
                    kings[event.seat] += 1
                    king_points[event.seat] += points
        elif isinstance(event, rules.RoundScored):
            rounds += 1
        state = apply(game, state, event)
    return {"rounds": rounds, "tricks": tricks, "kings": kings, "king_points": king_points}


EXTRAS: dict[str, Callable[[core.Game, list[Any], int], dict[str, Any]]] = {"holly-oak": holly_oak_extras}


def store_summary(store: Store, game_id: str) -> dict[str, Any]:
    summary = summarize(game_id, store.read(game_id))
    # Three keys in three slots (no transaction spans them on a Cluster), in the order that lets
    # a crash lose nothing: listed among its game's summaries (readers skip a missing summary),
    # then the summary, then off the owed list (recovery drops an entry whose summary exists).
    store.redis.zadd(keys.summaries(summary["game"]), {game_id: summary["ended_ms"]})
    store.redis.set(keys.summary(game_id), json.dumps(summary))
    index.summarized(store.redis, [game_id])
    return summary


def load_summary(store: Store, game_id: str) -> dict[str, Any] | None:
    raw = store.redis.get(keys.summary(game_id))
    return None if raw is None else json.loads(raw)


def load_summaries(store: Store, slug: str) -> list[dict[str, Any]]:
    ids = [raw.decode() for raw in store.redis.zrange(keys.summaries(slug), 0, -1)]
    pipe = store.redis.pipeline(transaction=False)
    for game_id in ids:
        pipe.get(keys.summary(game_id))
    return [json.loads(raw) for raw in pipe.execute() if raw is not None]


# ---------------------------------------------------------------------------------------------
# Aggregates


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def distribution(values: Iterable[float]) -> dict[str, float]:
    values = sorted(values)
    if not values:
        return {"n": 0}
    quartiles = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return {
        "n": len(values),
        "min": values[0],
        "p25": quartiles[0],
        "median": quartiles[1],
        "p75": quartiles[2],
        "max": values[-1],
        "mean": round(statistics.fmean(values), 3),
    }


def rate(wins: float, trials: int) -> dict[str, float]:
    low, high = wilson(wins, trials)
    return {"wins": wins, "games": trials, "rate": round(wins / trials, 4) if trials else 0.0, "low": round(low, 4), "high": round(high, 4)}


def players_text(kinds: Iterable[str]) -> str:
    """`1 random player`, `2 heuristic players and 1 random player`."""
    counts = Counter(kinds)
    parts = [f"{n} {kind} player{'s' if n != 1 else ''}" for kind, n in sorted(counts.items())]
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 2 else parts)


def aggregate(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Win rates with 95% Wilson intervals, score and length distributions.

    Competitive games: by seat and by bot kind, over seat-games (a shared win counts as won).
    Cooperative games (everyone wins or nobody does): the team's win rate over games, and by team
    (its players' kinds); a team's seats are one trial, not several, so no per-seat rates.
    The winning score is over games somebody won.
    """
    by_players = Counter(s["players"] for s in summaries)
    won = [s for s in summaries if s["winners"]]
    cooperative = bool(summaries) and all(core.GAMES[s["game"]].cooperative for s in summaries if s["game"] in core.GAMES)
    result: dict[str, Any] = {
        "games": len(summaries),
        "players": dict(sorted(by_players.items())),
        "cooperative": cooperative,
        "games_with_a_winner": rate(len(won), len(summaries)),
        # A cooperative game's seats share one score: counted once per game.
        "scores": distribution(score for s in summaries for score in (s["scores"][:1] if cooperative else s["scores"])),
        "winning_scores": distribution(max(s["scores"]) for s in won),
        "length_moves": distribution(sum(s["moves"]) for s in summaries),
        "length_events": distribution(s["events"] for s in summaries),
    }
    if cooperative:
        teams: defaultdict[str, list[bool]] = defaultdict(list)
        for s in summaries:
            teams[players_text(s["seats"])].append(bool(s["winners"]))
        result["team_win_rate"] = result["games_with_a_winner"]
        result["team_win_rate_by_team"] = {team: rate(sum(wins), len(wins)) for team, wins in sorted(teams.items())}
        return result
    by_seat_wins: Counter = Counter()
    by_seat_games: Counter = Counter()
    by_kind_wins: Counter = Counter()
    by_kind_games: Counter = Counter()
    for s in summaries:
        for seat, kind in enumerate(s["seats"]):
            won_here = seat in s["winners"]
            by_seat_games[seat] += 1
            by_seat_wins[seat] += won_here
            by_kind_games[kind] += 1
            by_kind_wins[kind] += won_here
    result["win_rate_by_seat"] = {seat: rate(by_seat_wins[seat], by_seat_games[seat]) for seat in sorted(by_seat_games)}
    result["win_rate_by_kind"] = {kind: rate(by_kind_wins[kind], by_kind_games[kind]) for kind in sorted(by_kind_games)}
    return result


def aggregate_by_players(summaries: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """One aggregate per player count: win rates of 2- and 5-player games do not mix."""
    groups: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
    for s in summaries:
        groups[s["players"]].append(s)
    return {players: aggregate(group) for players, group in sorted(groups.items())}
