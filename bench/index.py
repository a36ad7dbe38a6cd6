"""Benchmark of the index: `pbm list` and `pbm recover` over many games, against folding every game
(what `pbm list` did before rows were kept), measured in the same run. Prints figures; asserts nothing.

    python bench/index.py [--games 10000] [--bot-games 500] [--finished 200]

The games are real ones made through the command path: Holly Oak for 3, most with one move made,
some with a bot to act (their jobs queued, as dispatch leaves them), some played to the end.
`pbm list` and `pbm recover` run as the user runs them (a fresh process: `python -m pbm ...`), and
their work alone in this process (the same functions, without Python's start-up).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from click.testing import CliRunner  # noqa: E402

from events import keys  # noqa: E402
from events.commands import Games  # noqa: E402
from events.server import EmbeddedRedis  # noqa: E402
from events.store import Store  # noqa: E402
from pbm.cli import main as pbm_main  # noqa: E402
from workers.dispatch import Dispatcher  # noqa: E402
from workers.recovery import recover  # noqa: E402


def timed(run, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def make_games(games: Games, total: int, bot_games: int, finished: int) -> None:
    pick = random.Random(1)
    for number in range(total):
        bots = {0: "random"} if number < bot_games else None
        game_id = games.create("holly-oak", 3, seed=number, bots=bots)
        table = games.table(game_id)
        # Bot games stop where the bot is to act; finished ones are played out; the rest, one move.
        moves = 1 if number >= bot_games + finished else 10**6
        while table.to_act and moves and not (bots and 0 in table.to_act):
            seat = table.to_act[0]
            games.submit(game_id, seat, pick.choice(table.legal_moves(seat)))
            table = games.table(game_id)
            moves -= 1
        if number % 1000 == 999:
            print(f"  made {number + 1:,} games", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--bot-games", type=int, default=500, help="games waiting on a bot, their jobs queued")
    parser.add_argument("--finished", type=int, default=200, help="games played to the end")
    parser.add_argument("--fold-sample", type=int, default=500, help="games folded for the before figure")
    parser.add_argument("--keep", metavar="DIR", help="make the games once in DIR and keep them (to measure again)")
    args = parser.parse_args()

    home = Path(args.keep or tempfile.mkdtemp(prefix="pbm-bench-index-"))
    server = EmbeddedRedis(home)
    env = {**os.environ, "PBM_HOME": str(home)}
    env.pop("REDIS_URL", None)
    try:
        client = server.client()
        store = Store(client)
        started = time.perf_counter()
        if not client.exists(keys.GAMES):
            make_games(Games(store, dispatch=Dispatcher(client)), args.games, args.bot_games, args.finished)
        print(f"pbm index benchmark on embedded Redis, {args.games:,} games of Holly Oak "
              f"({args.bot_games} waiting on a bot, {args.finished} finished), made in {time.perf_counter() - started:.0f} s")

        runner = CliRunner()

        def cli(*words: str) -> None:
            result = runner.invoke(pbm_main, list(words), env={"PBM_HOME": str(home)}, catch_exceptions=False)
            assert result.exit_code == 0, result.output

        def process(*words: str) -> None:
            subprocess.run([sys.executable, "-m", "pbm", *words], env=env, check=True, stdout=subprocess.DEVNULL)

        rows = len(store.games())
        running, finished = len(store.games("running")), len(store.games("finished"))
        queued = len(recover(client))  # the first pass queues nothing: dispatch queued every job
        figures = {
            "Store.games() (rows of every game)": timed(lambda: store.games()),
            "pbm list --json, in process": timed(lambda: cli("list", "--json")),
            "pbm list, in process (text columns)": timed(lambda: cli("list")),
            "pbm list --json, fresh process": timed(lambda: process("list", "--json"), repeat=2),
            "pbm list, fresh process": timed(lambda: process("list"), repeat=2),
            "recover() (index + rows + jobs)": timed(lambda: recover(client)),
            "pbm recover, fresh process": timed(lambda: process("recover"), repeat=2),
            "python -c 'import pbm.cli', fresh process": timed(
                lambda: subprocess.run([sys.executable, "-c", "import pbm.cli"], env=env, check=True), repeat=2
            ),
        }
        sample = [info.game_id for info in store.games()[: args.fold_sample]]
        fold_s = timed(lambda: [Games(store).table(game_id) for game_id in sample], repeat=1)
        folded_all = fold_s / len(sample) * rows

        print(f"rows listed {rows:,} (running {running:,}, finished {finished:,}); recovery queued {queued} job(s)")
        for name, seconds in figures.items():
            print(f"  {name:<44} {seconds * 1000:8.0f} ms   (target < 1000 ms)" if "pbm" in name and "import" not in name
                  else f"  {name:<44} {seconds * 1000:8.0f} ms")
        print(f"  before: folding every game (from {len(sample)})      {folded_all * 1000:8.0f} ms   "
              f"{folded_all / figures['Store.games() (rows of every game)']:.0f}x Store.games()")
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
