"""Benchmark of a seat's view (GET /api/me, the seat's page, a turn notice) of games of 40, 400,
4,000 and 10,000+ events: its table, clock and report since the seat's last move, read as the
server reads them (the clock from its cache and the events since, the report from the seat's
latest move, narrated from the table's nearest mark) against reading and folding the whole log
(what every view did before), in the same run. Prints p50 in milliseconds and ratios to the
40-event game; asserts nothing.

    python bench/views.py [--reads 25]

The long logs are bench/cold.py's: Holly Oak games for 4 played one after another and sealed as
one stream, here with each card play sealed as its seat's move (actor and move text), as the
command path seals them. The table is held by the reading process (a server's Games), as it is
between one view and the next; the clock's cache is as the previous view left it.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import bench_redis  # noqa: E402
from bench.cold import LENGTHS, long_stream, store_sealed  # noqa: E402
from core.table import apply, narrate  # noqa: E402
from events import clock as clocks, index, keys  # noqa: E402
from events.commands import Games  # noqa: E402
from events.envelope import GENESIS, seal  # noqa: E402
from events.store import Store  # noqa: E402
from pbm import turn_report  # noqa: E402

SEAT = 2


def write_game(store: Store, events: list) -> str:
    """The stream as the command path would have sealed it: a card play is its seat's move."""
    game_id = f"bench-views-{uuid.uuid4().hex[:8]}"
    raw, prev = [], GENESIS
    for seq, event in enumerate(events):
        played = type(event).__name__ == "CardPlayed"
        env = seal(game_id, seq, event, prev, actor=event.seat if played else None,
                   command=f"play {event.card}" if played else None, command_id=None, time_ms=seq)
        raw.append(env.encode())
        prev = env.hash
    store_sealed(store, game_id, raw)
    return game_id


def view_now(games: Games, game_id: str) -> list[str]:
    """pbm.web.api.seat_view's reads."""
    table, _clock = games.table_with_clock(game_id)
    return turn_report.since_last_move(table, games.store.since_move(game_id, SEAT, table.seq - 1), SEAT)


def view_before(games: Games, game_id: str) -> list[str]:
    """What every view did before: the whole log read and its clock folded, and the report
    narrated by folding from the game's start."""
    table = games.table(game_id)
    envelopes = games.store.read(game_id)
    clocks.Clock.read(envelopes)
    start = turn_report.last_move_seq(envelopes, SEAT) or 0
    lines, state = [], None
    for seq, event in enumerate(table.events):
        if seq >= start:
            lines.append(narrate(table.game, state, event, SEAT))
        state = apply(table.game, state, event)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reads", type=int, default=25, help="views per game and way")
    args = parser.parse_args()
    stream = long_stream(max(LENGTHS))
    with bench_redis() as (client, where):
        store = Store(client)
        games = Games(store)
        game_ids = {length: write_game(store, stream[:length]) for length in LENGTHS}
        for game_id in game_ids.values():
            assert view_now(games, game_id) == view_before(games, game_id)  # the same lines, both ways
        print(f"pbm seat-view benchmark on {where}; seat {SEAT} of Holly Oak for 4; {args.reads} views each")
        results: dict[tuple[int, str], list[float]] = {}
        for _round in range(args.reads):  # interleaved, so the machine's load weighs on all alike
            for length, game_id in game_ids.items():
                for way, view in (("now", view_now), ("whole log", view_before)):
                    gc.collect()  # the whole log's garbage is not collected in the next view's time
                    start = time.perf_counter()
                    view(games, game_id)
                    results.setdefault((length, way), []).append((time.perf_counter() - start) * 1000)
        base = statistics.median(results[(LENGTHS[0], "now")])
        print(f"{'events':>7}  {'way':<10} {'p50 ms':>8} {'p50 / 40-event game':>20}")
        for (length, way), times in sorted(results.items()):
            p50 = statistics.median(times)
            print(f"{length:>7}  {way:<10} {p50:8.2f} {p50 / base:19.2f}x")
        for game_id in game_ids.values():
            client.delete(*keys.of_game(game_id, 4))
            for key in index.ALL:
                client.zrem(key, game_id)


if __name__ == "__main__":
    main()
