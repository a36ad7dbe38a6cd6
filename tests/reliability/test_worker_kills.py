"""Workers SIGKILLed about every second (no faster than a worker starts on the machine then) while
20 bot-only games run: every game finishes and is summarized, no move is played twice, and no game
in play waits longer for its next move than recovery's bound (30 s) and a worker's start. The
scenario is bench/chaos.py's; it prints its figures (the longest stall among them)."""

from __future__ import annotations

from bench import chaos
from workers.worker import RECOVERY_BOUND_S


def test_20_bot_only_games_finish_with_workers_killed_every_second(cli_env) -> None:
    # A kill about every second while the games run: under load they take minutes (dozens of
    # kills); a quiet machine finished them in 2-3 s, before a second kill, so there it plays 20
    # more until 3 kills have happened.
    figures = chaos.worker_kills(cli_env, games=20, specs=(("holiday-board", 3), ("tranquility", 2)), limit_s=200, min_kills=3)
    print(figures)
    assert figures["kills"] >= 3, "the games ended before the kills began"
    assert figures["finished"] == figures["summarized"] == figures["verified"] == figures["games"] >= 20
    assert figures["double_moves"] == 0
    # Lost work is queued again within RECOVERY_BOUND_S by a worker at work, and the one that does
    # may be a replacement still starting: at a load of 20, a start took many seconds.
    assert figures["longest_stall_s"] < RECOVERY_BOUND_S + figures["longest_start_s"]
