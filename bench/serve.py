"""Benchmark of the front door: moves per second through POST /api/me/moves on one `pbm serve`
process, with p50/p99 latency, against the same moves through Games.submit in process, in the same
run. Prints; asserts nothing.

    python bench/serve.py [--games 40] [--moves 30] [--clients 20] [--rounds 3]

The moves are scripted beforehand: each game is played offline on its seed by a seeded random
chooser, so the in-process run and the HTTP run submit exactly the same (seat, move, expected seq)
to fresh games with the same seeds. Each client owns its own games (no two clients contend for one
game) and plays them move by move, one request in flight per client; the in-process baseline is
one writer in a loop, the rate a single server process can reach without HTTP. Both sides append
through the same command path with a dispatcher, as `pbm serve` does. Rounds alternate the two
sides; best of each. On the embedded Redis by default; with REDIS_URL set, on that server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

import core  # noqa: E402
from bench._common import bench_redis  # noqa: E402
from events.commands import Games  # noqa: E402
from events.seats import Seats  # noqa: E402
from events.store import Store  # noqa: E402
from workers.dispatch import Dispatcher  # noqa: E402

GAME, PLAYERS = "holly-oak", 4
ADMIN = "bench-admin-token"


def script(seed: int, moves: int) -> list[tuple[int, str, int]]:
    """(seat, move, expected seq) of the game's first `moves` moves on `seed`."""
    table = core.new_table(GAME, players=PLAYERS, seed=seed)
    chooser = random.Random(seed)
    played = []
    while table.to_act and len(played) < moves:
        seat = chooser.choice(table.to_act)
        move = chooser.choice(table.legal_moves(seat))
        played.append((seat, move, table.seq))
        table.play(seat, move)
    return played


def in_process(games: Games, scripts: dict[int, list], tag: str) -> tuple[float, list[float]]:
    ids = {seed: games.create(GAME, PLAYERS, seed=seed, game_id=f"bench-{tag}-{seed}") for seed in scripts}
    latencies = []
    start = time.perf_counter()
    # Interleaved across games, as the HTTP clients' moves arrive: a move per game in turn.
    for step in range(max(len(s) for s in scripts.values())):
        for seed, moves in scripts.items():
            if step < len(moves):
                seat, move, seq = moves[step]
                began = time.perf_counter()
                games.submit(ids[seed], seat, move, expected_seq=seq)
                latencies.append(time.perf_counter() - began)
    return sum(map(len, scripts.values())) / (time.perf_counter() - start), latencies


async def through_http(url: str, games: Games, seats: Seats, scripts: dict[int, list], clients: int, tag: str) -> tuple[float, list[float]]:
    ids = {seed: games.create(GAME, PLAYERS, seed=seed, game_id=f"bench-{tag}-{seed}") for seed in scripts}
    tokens = {(seed, seat): seats.issue(ids[seed], seat) for seed in scripts for seat in range(PLAYERS)}
    owned = [list(scripts)[i::clients] for i in range(clients)]
    latencies: list[float] = []

    async def client(seeds: list[int], http: aiohttp.ClientSession) -> None:
        for step in range(max((len(scripts[s]) for s in seeds), default=0)):
            for seed in seeds:
                if step < len(scripts[seed]):
                    seat, move, seq = scripts[seed][step]
                    began = time.perf_counter()
                    async with http.post(
                        f"{url}/api/me/moves",
                        json={"move": move, "expected_seq": seq},
                        headers={"Authorization": f"Bearer {tokens[seed, seat]}"},
                    ) as answer:
                        body = await answer.read()
                    latencies.append(time.perf_counter() - began)
                    if answer.status != 200:
                        raise RuntimeError(f"move refused: {answer.status} {body[:200]!r}")

    # One keep-alive connection per client, as a browser or a bot program would hold.
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:
        async with http.get(f"{url}/openapi.json") as first:  # pays for building the schema
            await first.read()
        start = time.perf_counter()
        await asyncio.gather(*(client(seeds, http) for seeds in owned))
        elapsed = time.perf_counter() - start
    return sum(map(len, scripts.values())) / elapsed, latencies


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def start_server(redis_url: str) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "REDIS_URL": redis_url, "PBM_ADMIN_TOKEN": ADMIN, "PBM_MOVES_PER_10S": "1000000"}
    process = subprocess.Popen(
        [sys.executable, "-m", "pbm", "serve", "--port", "0"], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    line = process.stdout.readline()
    if not line.startswith("pbm serving on "):
        process.kill()
        raise SystemExit(f"pbm serve did not start: {line!r}")
    # The access log goes on to stdout: read it away, or the server blocks on a full pipe.
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return process, line.split()[3]


def redis_url_of(client) -> str:
    if os.environ.get("REDIS_URL"):
        return os.environ["REDIS_URL"]
    return f"unix://{client.connection_pool.connection_kwargs['path']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--moves", type=int, default=30, help="moves per game (from its start)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    scripts = {seed: script(seed, args.moves) for seed in range(1, args.games + 1)}
    total = sum(map(len, scripts.values()))
    with bench_redis() as (client, where):
        games = Games(Store(client), dispatch=Dispatcher(client))
        seats = Seats(client)
        server, url = start_server(redis_url_of(client))
        best: dict[str, tuple[float, list[float]]] = {}
        server_cpu_ms: list[float] = []
        try:
            for round_ in range(args.rounds):
                runs = {
                    "in process": lambda: in_process(games, scripts, f"p{round_}"),
                    "http": lambda: asyncio.run(through_http(url, games, seats, scripts, args.clients, f"h{round_}")),
                }
                for name, run in runs.items():
                    cpu = cpu_seconds(server.pid)
                    rate, latencies = run()
                    if name == "http":
                        server_cpu_ms.append((cpu_seconds(server.pid) - cpu) / total * 1000)
                    if name not in best or rate > best[name][0]:
                        best[name] = (rate, latencies)
        finally:
            server.terminate()
            server.wait(timeout=30)
        print(f"{total} moves of {GAME} ({args.games} games x {args.moves} moves), {args.clients} HTTP clients, {where}, best of {args.rounds}")
        for name, (rate, latencies) in best.items():
            print(f"  {name:<11} {rate:8.0f} moves/s   p50 {percentile(latencies, 50):6.2f} ms   p99 {percentile(latencies, 99):6.2f} ms")
        print(f"  the server process used {min(server_cpu_ms):.2f} ms of CPU per HTTP move (least of the rounds)")
        ratio = best["http"][0] / best["in process"][0]
        p99 = percentile(best["http"][1], 99)
        print(f"  http / in process: {ratio:.2f} (target >= 0.50: {'met' if ratio >= 0.5 else 'MISSED'}); "
              f"http p99 {p99:.1f} ms (target < 50 ms: {'met' if p99 < 50 else 'MISSED'})")


if __name__ == "__main__":
    main()
