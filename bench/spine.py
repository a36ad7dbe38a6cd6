"""Benchmark of the log: checked appends vs bare XADD, the command path vs bare XADD round trips,
replays vs bare msgpack decoding, Holly Oak playouts. Prints figures and ratios measured side by
side in one run; asserts nothing.

    python bench/spine.py [--events N] [--code DIR]

With --code, the modules measured are those of another checkout (e.g. a `git worktree add` of an
older commit): the same measuring code gives the before figures.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

import msgpack

CODE = Path(sys.argv[sys.argv.index("--code") + 1]) if "--code" in sys.argv else Path(__file__).parent.parent
sys.path.insert(0, str(CODE.resolve()))

import core  # noqa: E402
from bench._common import bench_redis, rates  # noqa: E402
from core.rng import Rng  # noqa: E402
from events import keys  # noqa: E402
from events.commands import Games  # noqa: E402
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


def move_plan(seed: int) -> tuple[int, list[tuple[int, str]]]:
    """A Holly Oak game for 4 as the command path will see it: the seq after its opening events,
    and every (seat, move) of a random playout of it (chosen here, so choosing is not timed)."""
    table = core.new_table("holly-oak", players=4, seed=seed)
    start, pick, plan = table.seq, Rng(seed, 0), []
    while table.to_act:
        seat = table.to_act[pick.below(len(table.to_act))]
        moves = table.legal_moves(seat)
        plan.append((seat, moves[pick.below(len(moves))]))
        table.play(seat, plan[-1][1])
    return start, plan


def command_path_rates(client, store: Store, games_per_round: int, rounds: int = 5) -> tuple[float, float, int]:
    """(commands/s through Games.submit, bare XADD round trips/s, commands a round), best of
    `rounds`, the two interleaved. The command path runs as a server or a worker does: with the
    expected seq of the table it holds (no read before a move), one append round trip a move."""
    seeds = range(50, 50 + games_per_round)
    plans = [move_plan(seed) for seed in seeds]
    count = sum(len(plan) for _start, plan in plans)
    payload = sealed_log("bench", [core.SeedRevealed("00" * 32)])[0]
    best_commands = best_bare = float("inf")
    for _ in range(rounds):
        key = keys.log(f"bench-bare-{uuid.uuid4().hex}")
        start = time.perf_counter()
        for seq in range(count):
            client.xadd(key, {"e": payload}, id=keys.entry_id(seq))
        best_bare = min(best_bare, time.perf_counter() - start)
        games = Games(store)
        made = [games.create("holly-oak", 4, seed=seed, game_id=f"bench-cmd-{uuid.uuid4().hex}") for seed in seeds]
        start = time.perf_counter()
        for game_id, (seq, plan) in zip(made, plans):
            for seat, move in plan:
                submitted = games.submit(game_id, seat, move, expected_seq=seq)
                seq = submitted.seq + len(submitted.events)
        best_commands = min(best_commands, time.perf_counter() - start)
    return count / best_commands, count / best_bare, count


def commands_begin(events: list) -> list[bool]:
    """Holly Oak's commands are card plays: each starts with CardPlayed."""
    return [type(event).__name__ == "CardPlayed" for event in events]


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
    parser.add_argument("--games", type=int, default=8, help="Holly Oak games a round of the command path plays")
    parser.add_argument("--code", help="measure the modules of this checkout instead (the before figures)")
    args = parser.parse_args()

    # A long Holly Oak log: games played one after another, their events re-sealed as one stream.
    events: list = []
    command_starts: list[bool] = []  # True where a player's command begins (the rest follow from it)
    seed = 1
    while len(events) < args.events:
        table = random_playout("holly-oak", 4, seed)
        events.extend(table.events)
        command_starts.extend(commands_begin(table.events))
        seed += 1
    game = core.GAMES["holly-oak"]
    first = random_playout("holly-oak", 4, 1).events
    events = events[: args.events]

    with bench_redis() as (client, where):
        store = Store(client)
        print(f"pbm spine benchmark on {where}, {len(events)} events of Holly Oak, code from {CODE.resolve()}")

        def bare_xadd() -> None:
            key = keys.log(f"bench-bare-{uuid.uuid4().hex}")
            for seq, raw in enumerate(payloads):
                client.xadd(key, {"e": raw}, id=keys.entry_id(seq))

        def checked_append() -> None:
            game_id = f"bench-checked-{uuid.uuid4().hex}"
            for seq, raw in enumerate(payloads):
                store.append(game_id, seq, [raw], command_id=f"c{seq}")

        def checked_commands() -> None:
            game_id = f"bench-commands-{uuid.uuid4().hex}"
            seq = 0
            for number, batch in enumerate(commands):
                store.append(game_id, seq, batch, command_id=f"c{number}")
                seq += len(batch)

        payloads = sealed_log("bench", events)
        # The events of each command, as the command path appends them: one call per command.
        commands, batch = [], []
        for seq, raw in enumerate(payloads):
            if batch and command_starts[seq]:
                commands.append(batch)
                batch = []
            batch.append(raw)
        commands.append(batch)
        measured = rates(len(payloads), {"bare": bare_xadd, "checked": checked_append, "commands": checked_commands})
        bare, checked, per_command = measured["bare"], measured["checked"], measured["commands"]
        print(f"append   bare XADD, one event per call     {bare:10,.0f} events/s")
        print(f"append   checked, one event per call       {checked:10,.0f} events/s  {checked / bare:6.1%} of bare  (target >= 90%)")
        print(
            f"append   checked, one command per call     {per_command:10,.0f} events/s  {per_command / bare:6.1%} of bare"
            f"  ({len(payloads) / len(commands):.2f} events a command)"
        )

        per_process, bare_trips, count = command_path_rates(client, store, args.games)
        print(f"commands bare XADD round trips           {bare_trips:10,.0f} /s")
        print(
            f"commands Games.submit in one process     {per_process:10,.0f} commands/s  {per_process / bare_trips:6.1%} of bare"
            f"  (target >= 50%; {count} commands a round)"
        )

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

        measured = rates(total, {"bare": bare_decode, "read": read_only, "replay": replay, "fold": decode_fold})
        bare_rate, read_rate, replay_rate, fold_rate = (measured[k] for k in ("bare", "read", "replay", "fold"))
        print(f"replay   bare msgpack decode         {bare_rate:10,.0f} events/s")
        print(f"replay   XRANGE read only            {read_rate:10,.0f} events/s   {read_rate / bare_rate:6.1%} of bare decode")
        print(f"replay   decode + fold               {fold_rate:10,.0f} events/s   {fold_rate / bare_rate:6.1%} of bare decode (bytes in memory)")
        print(f"replay   read + decode + fold        {replay_rate:10,.0f} events/s   {replay_rate / bare_rate:6.1%} of bare decode   (target >= 50%)")

    start = time.perf_counter()
    played = 0
    while time.perf_counter() - start < 3:
        random_playout("holly-oak", 4, 1000 + played)
        played += 1
    print(f"playouts holly-oak 4p                {played / (time.perf_counter() - start):10,.1f} games/s ({game.title})")


if __name__ == "__main__":
    main()
