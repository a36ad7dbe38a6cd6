"""Benchmark: rebuilding a long game from Redis and from a replay file, against bare msgpack
decoding of the same bytes in the same run. Prints figures; asserts nothing.

    /tmp/venv/bin/python -m bench.replays [--events 10000] [--runs 5]   (from the repository root;
    as a module, because a script named replays.py would hide the replays package)

The game: Holiday! for 8 seats whose players almost always raise by the smallest step, the
longest real game the registered games make (no game here reaches 10,000 events by itself: when
it ends first, the figures are for the events it has, and per-event rates compare directly).
With REDIS_URL unset, a private embedded Redis in a temporary directory is used.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import msgpack

import core
from bench._common import bench_redis
from events import envelope, keys
from events.store import Store
from replays import archive
from replays.log import from_store

GAME, PLAYERS = "holiday-board", 8


def long_game(limit: int, seed: int = 3) -> tuple[core.Table, dict[int, tuple[int, str]]]:
    """The game, and its commands: first seq -> (seat, move)."""
    table = core.new_table(GAME, PLAYERS, seed=seed)
    chooser = random.Random(seed)
    commands = {}
    while table.to_act and len(table.events) < limit:
        seat = table.to_act[0]
        legal = table.legal_moves(seat)
        bids = [m for m in legal if m.startswith("bid")]
        others = [m for m in legal if not m.startswith("bid")] or legal
        move = bids[0] if bids and chooser.random() < 0.999 else chooser.choice(others)
        commands[table.seq] = (seat, move)
        table.play(seat, move)
    return table, commands


def sealed(game_id: str, table: core.Table, commands: dict[int, tuple[int, str]]) -> list[bytes]:
    """The envelopes as the command path seals them (actor and command on a command's first event)."""
    out, prev, actor = [], envelope.GENESIS, None
    for seq, event in enumerate(table.events):
        actor, move = commands.get(seq, (actor, None))
        env = envelope.seal(
            game_id, seq, event, prev,
            actor=None if isinstance(event, core.SeedRevealed) else actor,
            command=move, command_id=None, time_ms=1_767_225_600_000 + seq,
        )
        out.append(env.encode())
        prev = env.hash
    return out


def best(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    table, commands = long_game(args.events)
    game_id = "bench-replays"
    raw = sealed(game_id, table, commands)
    count = len(raw)
    game_keys = (keys.log(game_id), keys.commands(game_id), keys.seed(game_id), keys.meta(game_id))
    with bench_redis() as (client, where), tempfile.TemporaryDirectory(prefix="pbm-bench-file-") as workdir:
        store = Store(client)
        client.delete(*game_keys)
        store.create(game_id, GAME, PLAYERS, 0, 1, raw[:1])
        store.append(game_id, 1, raw[1:])
        path = Path(workdir) / ("bench" + archive.SUFFIX)
        path.write_bytes(archive.dumps(from_store(store, game_id)))
        blob = b"".join(raw)

        def bare_each() -> None:
            for data in raw:
                msgpack.unpackb(data, raw=False)

        def bare_stream() -> None:
            unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(blob))
            unpacker.feed(blob)
            for _value in unpacker:
                pass

        results = {
            "bare msgpack, one unpackb per envelope": best(args.runs, bare_each),
            "bare msgpack, one stream": best(args.runs, bare_stream),
            "Redis XRANGE alone (bytes, no decoding)": best(args.runs, lambda: store.read_raw(game_id)),
            "rebuild from the file (decode, events, fold)": best(args.runs, lambda: archive.read_unchecked(path).table()),
            "rebuild from Redis (read, decode, events, fold)": best(args.runs, lambda: from_store(store, game_id).table()),
            "  + hash chain check, from Redis": best(args.runs, lambda: from_store(store, game_id).check_integrity().table()),
        }
        bare = results["bare msgpack, one unpackb per envelope"]
        print(f"{GAME}, {PLAYERS} seats: {count} events (asked for {args.events}), "
              f"{len(blob) / count:.0f} bytes each, best of {args.runs}, {where}")
        for name, seconds in results.items():
            rate = count / seconds
            print(f"  {name:<50} {seconds * 1000:8.1f} ms  {rate / 1000:8.1f}k events/s  "
                  f"{bare / seconds:6.1%} of bare  ~{10_000 / rate * 1000:6.1f} ms per 10k events")
        print(f"  (median of the from-Redis rebuild over {args.runs} runs: "
              f"{statistics.median([best(1, lambda: from_store(store, game_id).table()) for _ in range(args.runs)]) * 1000:.1f} ms)")
        client.delete(*game_keys)
        client.zrem(keys.GAMES, game_id)

if __name__ == "__main__":
    main()
