"""Benchmark of the log: checked appends vs bare XADD, replays vs bare msgpack decoding, Holly Oak
playouts. Prints figures and ratios measured side by side in one run; asserts nothing.

    python bench/spine.py [--events N]
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from bench._common import bench_redis, rate  # noqa: E402
from core.rng import Rng  # noqa: E402
from events import keys  # noqa: E402
from events.envelope import GENESIS, decode, seal  # noqa: E402
from events.store import Store  # noqa: E402


def random_playout(slug: str, players: int, seed: int) -> core.Table:
    table = core.new_table(slug, players=players, seed=seed)
    pick = Rng(seed, 0)
    while table.to_act:
        seat = table.to_act[pick.below(len(table.to_act))]
        moves = table.legal_moves(seat)
        table.play(seat, moves[pick.below(len(moves))])
    return table


def sealed_log(game_id: str, events: list) -> list[bytes]:
    out, prev = [], GENESIS
    for seq, event in enumerate(events):
        env = seal(game_id, seq, event, prev, actor=None, command=None, command_id=None, time_ms=seq)
        out.append(env.encode())
        prev = env.hash
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=5000, help="events per append/replay measurement")
    args = parser.parse_args()

    # A long Holly Oak log: games played one after another, their events re-sealed as one stream.
    events: list = []
    seed = 1
    while len(events) < args.events:
        events.extend(random_playout("holly-oak", 4, seed).events)
        seed += 1
    game = core.GAMES["holly-oak"]
    first = random_playout("holly-oak", 4, 1).events
    events = events[: args.events]

    with bench_redis() as (client, where):
        store = Store(client)
        print(f"pbm spine benchmark on {where}, {len(events)} events of Holly Oak")

        def bare_xadd() -> None:
            key = keys.log(f"bench-bare-{uuid.uuid4().hex}")
            for seq, raw in enumerate(payloads):
                client.xadd(key, {"e": raw}, id=keys.entry_id(seq))

        def checked_append() -> None:
            game_id = f"bench-checked-{uuid.uuid4().hex}"
            for seq, raw in enumerate(payloads):
                store.append(game_id, seq, [raw], command_id=f"c{seq}")

        payloads = sealed_log("bench", events)
        bare = rate(len(payloads), bare_xadd)
        checked = rate(len(payloads), checked_append)
        print(f"append   bare XADD          {bare:10,.0f} events/s")
        print(f"append   checked (Lua)      {checked:10,.0f} events/s   {checked / bare:6.1%} of bare   (target >= 90%)")

        # Replays: whole games read from Redis, decoded and folded, against msgpack alone.
        game_payloads = sealed_log("bench-replay", first)
        replay_ids = []
        total = 0
        while total < args.events:
            game_id = f"bench-replay-{uuid.uuid4().hex}"
            store.append(game_id, 0, game_payloads)
            replay_ids.append(game_id)
            total += len(game_payloads)
        raw_bytes = [raw for _ in replay_ids for raw in game_payloads]

        def bare_decode() -> None:
            for raw in raw_bytes:
                msgpack.unpackb(raw)

        def read_only() -> None:
            for game_id in replay_ids:
                store.read_raw(game_id)

        def replay() -> None:
            for game_id in replay_ids:
                envelopes = store.read(game_id)
                table = core.replay_table("holly-oak", [env.event for env in envelopes])
                assert table.outcome is not None

        def decode_fold() -> None:
            for _ in replay_ids:
                core.replay_table("holly-oak", [decode(raw).event for raw in game_payloads])

        bare_rate = rate(total, bare_decode)
        read_rate = rate(total, read_only)
        replay_rate = rate(total, replay)
        fold_rate = rate(total, decode_fold)
        print(f"replay   bare msgpack decode {bare_rate:10,.0f} events/s")
        print(f"replay   XRANGE read only    {read_rate:10,.0f} events/s   {read_rate / bare_rate:6.1%} of bare decode")
        print(f"replay   decode + fold       {fold_rate:10,.0f} events/s   {fold_rate / bare_rate:6.1%} of bare decode (bytes in memory)")
        print(f"replay   read + decode + fold{replay_rate:10,.0f} events/s   {replay_rate / bare_rate:6.1%} of bare decode   (target >= 50%)")

    start = time.perf_counter()
    played = 0
    while time.perf_counter() - start < 3:
        random_playout("holly-oak", 4, 1000 + played)
        played += 1
    print(f"playouts holly-oak 4p        {played / (time.perf_counter() - start):10,.1f} games/s ({game.title})")


if __name__ == "__main__":
    main()
