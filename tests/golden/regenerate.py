"""Regenerate the golden logs: several finished games per registered game, played by seeded random
players through the real command path (a private embedded Redis), exported as replay files, each
with a JSON of what its replay must give (outcome, final views). It writes only under tests/golden/.
The golden texts beside them (what a seat reads mid-game and at the end) are the tests' own:
tests/test_golden_texts.py writes them with PBM_GOLDEN_TEXTS=write.

    /tmp/venv/bin/python tests/golden/regenerate.py            # games that have no golden logs yet
    /tmp/venv/bin/python tests/golden/regenerate.py holidays   # just these games (missing files)
    /tmp/venv/bin/python tests/golden/regenerate.py --force    # rewrite all: only with a new rules
                                                               # version (old logs must still replay)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # run as a script: the checkout's tests/ and bench/

import core  # noqa: E402
from events.commands import Games  # noqa: E402
from events.server import EmbeddedRedis  # noqa: E402
from events.store import Store  # noqa: E402
from replays import archive  # noqa: E402
from replays.log import from_store  # noqa: E402
from tests.replays.conftest import play_random  # noqa: E402

START_MS = 1_767_225_600_000  # 2026-01-01 00:00 UTC: fixed times make the bytes reproducible
SEEDS = (1, 2)


def plans(game: core.Game) -> list[tuple[int, int]]:
    """(players, seed): the fewest and the most players, and one count between when there is one."""
    counts = sorted({game.min_players, (game.min_players + game.max_players + 1) // 2, game.max_players})
    return [(players, seed) for players in counts for seed in SEEDS[: 2 if players == counts[0] else 1]]


def name(slug: str, players: int, seed: int) -> str:
    return f"{slug}-{players}p-seed{seed}"


def play(store: Store, slug: str, players: int, seed: int) -> str:
    """One whole game between seeded random players; returns its game id."""
    game_id = f"golden-{name(slug, players, seed)}"
    clock = iter(range(START_MS, START_MS + 10**12, 60_000))  # one minute per command
    games = Games(store, clock=lambda: next(clock))
    games.create(slug, players, seed=seed, game_id=game_id)
    play_random(games, game_id, chooser_seed=seed)
    return game_id


def expected(log) -> dict:
    table = log.table()
    return {
        "game_id": log.game_id,
        "game": log.game.slug,
        "rules_version": log.started.rules_version,
        "players": log.started.players,
        "events": len(log.events),
        "last_hash": log.envelopes[-1].hash.hex(),
        "outcome": table.outcome.to_dict(),
        "views": {"public": table.view(None), **{str(seat): table.view(seat) for seat in range(log.started.players)}},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="slugs (default: every registered game)")
    parser.add_argument("--force", action="store_true", help="rewrite golden logs that exist")
    args = parser.parse_args(argv)
    slugs = args.games or sorted(core.GAMES)
    failed = 0
    home = Path(tempfile.mkdtemp(prefix="pbm-golden-"))
    embedded = EmbeddedRedis(home)
    try:
        store = Store(embedded.client())
        for slug in slugs:
            game = core.get_game(slug)
            folder = HERE / slug
            for players, seed in plans(game):
                path = folder / (name(slug, players, seed) + archive.SUFFIX)
                if path.exists() and not args.force:
                    print(f"kept   {path.relative_to(HERE)}")
                    continue
                try:
                    game_id = play(store, slug, players, seed)
                    log = from_store(store, game_id)
                    want = json.dumps(expected(log), indent=1) + "\n"
                except Exception as error:  # a game still being written: say so, write nothing for it
                    print(f"FAILED {path.relative_to(HERE)}: {type(error).__name__}: {error}")
                    failed += 1
                    continue
                folder.mkdir(exist_ok=True)
                path.write_bytes(archive.dumps(log))
                path.with_suffix(".json").write_text(want)
                print(f"wrote  {path.relative_to(HERE)}: {len(log.events)} events")
    finally:
        embedded.stop()
        shutil.rmtree(home, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
