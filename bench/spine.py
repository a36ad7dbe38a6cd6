"""Benchmark of the log: checked appends vs bare XADD, the command path vs bare XADD round trips,
replays vs bare msgpack decoding, Holly Oak playouts. Prints figures and ratios measured side by
side in one run; asserts nothing.

    python bench/spine.py [--events N] [--code DIR] [--against DIR] [--rounds N] [--warm]

With --code, the modules measured are those of another checkout (e.g. a `git worktree add` of an
older commit): the same measuring code gives the before figures. With --against, two processes
measure at once, this checkout's modules and DIR's, each on an embedded Redis of its own, their
rounds alternated one by one (so a load that comes and goes on the machine weighs on both alike):
it prints both sides' figures and the ratio of this checkout's to DIR's, from the best round of
each, and the spread of the ratio over round pairs.

The command path is measured against bare XADD round trips two ways: through redis-py's
`client.xadd` (the issue's measure of "today") and sent straight on a connection as events.calls
sends the append script (without redis-py's per-command wrapper): its share of both is printed.
A round trip's length depends on whether a core had halted for want of work (bench/_common.py,
warm_cores): --warm keeps every core awake, which shortens bare round trips most, so the command
path's share of them is lowest, and steadiest, that way.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

CODE = Path(sys.argv[sys.argv.index("--code") + 1]) if "--code" in sys.argv else Path(__file__).parent.parent
sys.path.insert(0, str(CODE.resolve()))

import msgpack  # noqa: E402

import core  # noqa: E402
from bench._common import bench_redis  # noqa: E402
from core.rng import Rng  # noqa: E402
from events import keys  # noqa: E402
from events.commands import Games  # noqa: E402
from events.envelope import GENESIS, decode, seal  # noqa: E402
from events.store import Store  # noqa: E402


def ours(name: str):
    """A module of this checkout's bench/ (with --code, `bench` is DIR's, which may be older than
    it): it is part of the measuring, like this file, not of what is measured."""
    spec = importlib.util.spec_from_file_location(f"pbm_bench_{name.strip('_')}", Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def warm_cores(enabled: bool):
    """bench/_common.py's warm_cores, from this checkout's bench/ (`ours`)."""
    return ours("_common").warm_cores(enabled)


random_moves = ours("random_moves").random_moves  # bench/random_moves.py's, from this checkout's bench/


def random_playout(slug: str, players: int, seed: int) -> core.Table:
    table = core.new_table(slug, players=players, seed=seed)
    for _now, seat, move in random_moves(table, Rng(seed, 0)):
        table.play(seat, move)
    return table


def move_plan(seed: int) -> tuple[int, list[tuple[int, str]]]:
    """A Holly Oak game for 4 as the command path will see it: the seq after its opening events,
    and every (seat, move) of a random playout of it (chosen here, so choosing is not timed)."""
    table = core.new_table("holly-oak", players=4, seed=seed)
    start, plan = table.seq, []
    for _now, seat, move in random_moves(table, Rng(seed, 0)):
        plan.append((seat, move))
        table.play(seat, move)
    return start, plan


def direct_command(client):
    """events.calls's way of sending one command; for a checkout from before it (--code), the same
    steps written out here, so both sides of --against measure one and the same round trip."""
    try:
        from events.calls import Calls
    except ImportError:
        import hiredis

        def send(command):
            connection = client.connection_pool.get_connection()
            try:
                connection.send_packed_command((hiredis.pack_command(tuple(command)),))
                return connection.read_response()
            finally:
                client.connection_pool.release(connection)

        return send
    return Calls(client).command


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


class Rounds:
    """The measured work, one round at a time: each method does one round and returns (items,
    seconds), timing only the work (making fresh games for a round is not timed)."""

    def __init__(self, client, events_wanted: int, games_per_round: int) -> None:
        self.client = client
        self.store = Store(client)
        # A long Holly Oak log: games played one after another, their events re-sealed as one stream.
        events: list = []
        command_starts: list[bool] = []  # True where a player's command begins (the rest follow from it)
        seed = 1
        while len(events) < events_wanted:
            table = random_playout("holly-oak", 4, seed)
            events.extend(table.events)
            command_starts.extend(commands_begin(table.events))
            seed += 1
        self.payloads = sealed_log("bench", events[:events_wanted])
        # The events of each command, as the command path appends them: one call per command.
        self.commands, batch = [], []
        for seq, raw in enumerate(self.payloads):
            if batch and command_starts[seq]:
                self.commands.append(batch)
                batch = []
            batch.append(raw)
        self.commands.append(batch)
        # The command path: Holly Oak games for 4 whose moves are chosen beforehand.
        self.seeds = range(50, 50 + games_per_round)
        self.plans = [move_plan(seed) for seed in self.seeds]
        self.plan_count = sum(len(plan) for _start, plan in self.plans)
        self.one_event = sealed_log("bench", [core.SeedRevealed("00" * 32)])[0]
        # Replays: whole games read from Redis, decoded and folded, against msgpack alone.
        self.game_payloads = sealed_log("bench-replay", random_playout("holly-oak", 4, 1).events)
        self.replay_ids = []
        self.replay_events = 0
        while self.replay_events < events_wanted:
            game_id = f"bench-replay-{uuid.uuid4().hex}"
            self.store.append(game_id, 0, self.game_payloads)
            self.replay_ids.append(game_id)
            self.replay_events += len(self.game_payloads)
        self.raw_bytes = [raw for _ in self.replay_ids for raw in self.game_payloads]

    def append_bare(self) -> tuple[int, float]:
        key = keys.log(f"bench-bare-{uuid.uuid4().hex}")
        start = time.perf_counter()
        for seq, raw in enumerate(self.payloads):
            self.client.xadd(key, {"e": raw}, id=keys.entry_id(seq))
        return len(self.payloads), time.perf_counter() - start

    def append_checked(self) -> tuple[int, float]:
        game_id = f"bench-checked-{uuid.uuid4().hex}"
        start = time.perf_counter()
        for seq, raw in enumerate(self.payloads):
            self.store.append(game_id, seq, [raw], command_id=f"c{seq}")
        return len(self.payloads), time.perf_counter() - start

    def append_commands(self) -> tuple[int, float]:
        game_id = f"bench-commands-{uuid.uuid4().hex}"
        seq = 0
        start = time.perf_counter()
        for number, batch in enumerate(self.commands):
            self.store.append(game_id, seq, batch, command_id=f"c{number}")
            seq += len(batch)
        return len(self.payloads), time.perf_counter() - start

    def commands_bare(self) -> tuple[int, float]:
        """Bare XADD round trips, as many as the command path's round has commands."""
        key = keys.log(f"bench-bare-{uuid.uuid4().hex}")
        start = time.perf_counter()
        for seq in range(self.plan_count):
            self.client.xadd(key, {"e": self.one_event}, id=keys.entry_id(seq))
        return self.plan_count, time.perf_counter() - start

    def commands_bare_direct(self) -> tuple[int, float]:
        """The same bare XADD round trips sent as the command path sends its append: straight on a
        connection (events.calls), without redis-py's per-command wrapper (about 35 us here)."""
        send = direct_command(self.client)
        key = keys.log(f"bench-bare-{uuid.uuid4().hex}")
        start = time.perf_counter()
        for seq in range(self.plan_count):
            send(("XADD", key, keys.entry_id(seq), "e", self.one_event))
        return self.plan_count, time.perf_counter() - start

    def commands_submit(self) -> tuple[int, float]:
        """The command path as a server or a worker runs it: with the expected seq of the table it
        holds (no read before a move), one append round trip a move."""
        games = Games(self.store)
        # Every planned move is sent, the only ones too (forced_moves "ask"): with pbm playing them, the
        # plan's forced moves would already be played and its next expected seq stale.
        made = [games.create("holly-oak", 4, seed=seed, game_id=f"bench-cmd-{uuid.uuid4().hex}", forced_moves="ask") for seed in self.seeds]
        start = time.perf_counter()
        for game_id, (seq, plan) in zip(made, self.plans):
            for seat, move in plan:
                submitted = games.submit(game_id, seat, move, expected_seq=seq)
                seq = submitted.seq + len(submitted.events)
        return self.plan_count, time.perf_counter() - start

    def replay_bare(self) -> tuple[int, float]:
        start = time.perf_counter()
        for raw in self.raw_bytes:
            msgpack.unpackb(raw)
        return self.replay_events, time.perf_counter() - start

    def replay_read(self) -> tuple[int, float]:
        start = time.perf_counter()
        for game_id in self.replay_ids:
            self.store.read_raw(game_id)
        return self.replay_events, time.perf_counter() - start

    def replay_full(self) -> tuple[int, float]:
        start = time.perf_counter()
        for game_id in self.replay_ids:
            envelopes = self.store.read(game_id)
            table = core.replay_table("holly-oak", [env.event for env in envelopes])
            assert table.outcome is not None
        return self.replay_events, time.perf_counter() - start

    def replay_fold(self) -> tuple[int, float]:
        start = time.perf_counter()
        for _ in self.replay_ids:
            core.replay_table("holly-oak", [decode(raw).event for raw in self.game_payloads])
        return self.replay_events, time.perf_counter() - start

    def playouts(self) -> tuple[int, float]:
        start = time.perf_counter()
        for number in range(10):
            random_playout("holly-oak", 4, 1000 + number)
        return 10, time.perf_counter() - start


# (measure, what it is), in the order they print; the groups' rounds interleave as in one process.
GROUPS = {
    "append": ("append_bare", "append_checked", "append_commands"),
    "commands": ("commands_bare", "commands_bare_direct", "commands_submit"),
    "replay": ("replay_bare", "replay_read", "replay_fold", "replay_full"),
    "playouts": ("playouts",),
}


def report(rate: dict[str, float], count: int, commands: int, per_command: float) -> list[str]:
    bare, decode_bare = rate["append_bare"], rate["replay_bare"]
    return [
        f"append   bare XADD, one event per call     {bare:10,.0f} events/s",
        f"append   checked, one event per call       {rate['append_checked']:10,.0f} events/s  {rate['append_checked'] / bare:6.1%} of bare  (target >= 90%)",
        f"append   checked, one command per call     {rate['append_commands']:10,.0f} events/s  {rate['append_commands'] / bare:6.1%} of bare"
        f"  ({per_command:.2f} events a command)",
        f"commands bare XADD round trips (redis-py) {rate['commands_bare']:10,.0f} /s",
        f"commands bare XADD round trips (direct)   {rate['commands_bare_direct']:10,.0f} /s  (as events.calls sends the append)",
        f"commands Games.submit in one process     {rate['commands_submit']:10,.0f} commands/s  {rate['commands_submit'] / rate['commands_bare']:6.1%} of bare"
        f" (redis-py; target >= 50%), {rate['commands_submit'] / rate['commands_bare_direct']:6.1%} of direct  ({commands} commands a round)",
        f"replay   bare msgpack decode         {decode_bare:10,.0f} events/s",
        f"replay   XRANGE read only            {rate['replay_read']:10,.0f} events/s   {rate['replay_read'] / decode_bare:6.1%} of bare decode",
        f"replay   decode + fold               {rate['replay_fold']:10,.0f} events/s   {rate['replay_fold'] / decode_bare:6.1%} of bare decode (bytes in memory)",
        f"replay   read + decode + fold        {rate['replay_full']:10,.0f} events/s   {rate['replay_full'] / decode_bare:6.1%} of bare decode   (target >= 50%)",
        f"playouts holly-oak 4p                {rate['playouts']:10,.1f} games/s",
    ]


def alone(args: argparse.Namespace) -> None:
    """Every measure in this process, rounds interleaved, best of `rounds`."""
    with bench_redis() as (client, where), warm_cores(args.warm) as cores:
        rounds = Rounds(client, args.events, args.games)
        print(f"pbm spine benchmark on {where}, {args.events} events of Holly Oak, code from {CODE.resolve()}; {cores}")
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for group in GROUPS.values():
                for name in group:
                    items, seconds = getattr(rounds, name)()
                    best[name] = max(best.get(name, 0.0), items / seconds)
        per_command = len(rounds.payloads) / len(rounds.commands)
        print("\n".join(report(best, args.events, rounds.plan_count, per_command)))


def serve(args: argparse.Namespace) -> None:
    """A measuring process for --against: does the round named on each stdin line, answers JSON."""
    with bench_redis() as (client, where):
        rounds = Rounds(client, args.events, args.games)
        print(json.dumps({"where": where, "code": str(CODE.resolve()), "commands": rounds.plan_count,
                          "per_command": len(rounds.payloads) / len(rounds.commands)}), flush=True)
        for line in sys.stdin:
            items, seconds = getattr(rounds, line.strip())()
            print(json.dumps([items, seconds]), flush=True)


def against(args: argparse.Namespace) -> None:
    """This checkout and `args.against` measured by two processes, round by round alternated."""
    me = Path(__file__).resolve()
    command = [sys.executable, str(me), "--serve", "--events", str(args.events), "--games", str(args.games)]
    sides = {
        "before": subprocess.Popen([*command, "--code", args.against], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
        "after": subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
    }
    try:
        info = {side: json.loads(process.stdout.readline()) for side, process in sides.items()}
        rates: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
        order = list(sides)
        with warm_cores(args.warm) as cores:
            for number in range(args.rounds):
                for group in GROUPS.values():
                    for name in group:
                        for side in order if number % 2 == 0 else order[::-1]:  # who goes first alternates too
                            process = sides[side]
                            process.stdin.write(name + "\n")
                            process.stdin.flush()
                            items, seconds = json.loads(process.stdout.readline())
                            rates[side].setdefault(name, []).append(items / seconds)
    finally:
        for process in sides.values():
            process.stdin.close()
            process.wait()
    print(f"== {cores}")
    for side in sides:
        print(f"== {side}: code from {info[side]['code']}, on {info[side]['where']}")
        best = {name: max(values) for name, values in rates[side].items()}
        print("\n".join(report(best, args.events, info[side]["commands"], info[side]["per_command"])))
    print(f"== after / before, from each side's best round (and the range over the {args.rounds} round pairs)")
    for group in GROUPS.values():
        for name in group:
            after, before = rates["after"][name], rates["before"][name]
            pairs = [a / b for a, b in zip(after, before)]
            print(f"  {name:<20} {max(after) / max(before):5.2f}x   ({min(pairs):.2f}-{max(pairs):.2f})")
    for bare_name, how in (("commands_bare", "through redis-py (the issue's measure)"), ("commands_bare_direct", "sent directly")):
        for side in sides:
            submit, bare = rates[side]["commands_submit"], rates[side][bare_name]
            shares = sorted(s / b for s, b in zip(submit, bare))
            print(f"  commands/s as a share of bare XADD round trips {how}, {side}: {max(submit) / max(bare):.1%} from the best rounds,"
                  f" median {shares[len(shares) // 2]:.1%} of the rounds ({shares[0]:.1%}-{shares[-1]:.1%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=5000, help="events per append/replay measurement")
    parser.add_argument("--games", type=int, default=8, help="Holly Oak games a round of the command path plays")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each measure (the best counts)")
    parser.add_argument("--code", help="measure the modules of this checkout instead (the before figures)")
    parser.add_argument("--against", metavar="DIR", help="measure this checkout and DIR's side by side, rounds alternated")
    parser.add_argument("--warm", action="store_true", help="keep every core awake while measuring (bench/_common.py, warm_cores)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
    elif args.against:
        against(args)
    else:
        alone(args)


if __name__ == "__main__":
    main()
