"""Benchmark of the CLI's start-up: `pbm games`, `pbm show G --as 0` and `pbm play` as processes,
against the floor of `python -c "import redis, click"` measured in the same rounds. Prints figures
and ratios; asserts nothing. Target (issue 14): each command at most 2x the floor.

    python bench/cli.py [--rounds N]

Each round runs the floor and the three commands once, interleaved, so a load that comes and goes
on the machine weighs on all of them alike; the figures are the median and the best of the rounds.
Uses REDIS_URL if set (its games are removed afterwards), else an embedded Redis in a fresh PBM_HOME.
The commands run with bytecode caching on, as an installed pbm has it (PYTHONDONTWRITEBYTECODE is
dropped from their environment: without .pyc files, compiling pbm's own sources costs about 0.1 s).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from events import keys  # noqa: E402
from events.commands import Games  # noqa: E402
from events.server import EmbeddedRedis, connect  # noqa: E402
from events.store import Store  # noqa: E402


def pbm_command() -> list[str]:
    """The installed console script beside this interpreter (what a user runs), else -m pbm."""
    script = shutil.which("pbm", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "pbm"]


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds

    home = Path(tempfile.mkdtemp(prefix="pbm-bench-cli-"))
    env = os.environ.copy()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PBM_HOME", str(home))
    os.environ.update(PBM_HOME=env["PBM_HOME"])
    pbm = pbm_command()
    games = Games(Store(connect()))  # starts the embedded server, which the commands then reuse
    created: list[str] = []

    def fresh_game() -> str:
        out = subprocess.run([*pbm, "new", "holly-oak", "--players", "3"], env=env, check=True, capture_output=True, text=True)
        created.append(out.stdout.strip())
        return created[-1]

    game_id = fresh_game()  # also writes the .pyc files the later runs read
    subprocess.run([*pbm, "--help"], env=env, check=True, stdout=subprocess.DEVNULL)
    work = {
        "floor: import redis, click": lambda: [sys.executable, "-c", "import redis, click"],
        "pbm games": lambda: [*pbm, "games"],
        "pbm show G --as 0": lambda: [*pbm, "show", game_id, "--as", "0"],
    }
    times: dict[str, list[float]] = {name: [] for name in [*work, "pbm play G --as S MOVE"]}
    try:
        for _ in range(rounds):
            for name, argv in work.items():
                times[name].append(timed(argv(), env))
            table = games.table(game_id)
            if not table.to_act:
                game_id = fresh_game()
                table = games.table(game_id)
            seat = table.to_act[0]
            move = table.legal_moves(seat)[0]
            times["pbm play G --as S MOVE"].append(timed([*pbm, "play", game_id, "--as", str(seat), move], env))
    finally:
        client = games.store.redis
        for gid in created:
            for key in client.scan_iter(match=f"{keys.PREFIX}:{{{gid}}}:*"):
                client.delete(key)
            client.zrem(keys.GAMES, gid)
        if "REDIS_URL" not in os.environ:
            EmbeddedRedis(Path(env["PBM_HOME"])).stop()
        shutil.rmtree(home, ignore_errors=True)

    floor = times["floor: import redis, click"]
    floor_median, floor_best = statistics.median(floor), min(floor)
    print(f"{rounds} rounds, {' '.join(pbm)}; ratios against the floor of the same rounds (target <= 2.0x)")
    print(f"{'':28} {'median':>9} {'best':>9} {'x floor (median)':>17} {'x floor (best)':>15}")
    for name, seconds in times.items():
        median, best = statistics.median(seconds), min(seconds)
        print(
            f"{name:28} {median * 1000:7.0f}ms {best * 1000:7.0f}ms "
            f"{median / floor_median:16.2f}x {best / floor_best:14.2f}x"
        )


if __name__ == "__main__":
    main()
