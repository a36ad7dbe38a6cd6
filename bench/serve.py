"""Benchmark of the front door: moves per second through POST /api/me/moves on one `pbm serve`
process, with p50/p99 latency, against the same moves through Games.submit in process, in the same
run. Prints; asserts nothing.

    python bench/serve.py [--games 40] [--moves 30] [--clients 20] [--rounds 3] [--client raw|aiohttp]

The moves are scripted beforehand: each game is played offline on its seed by a seeded random
chooser, so the in-process run and the HTTP run submit exactly the same (seat, move, expected seq)
to fresh games with the same seeds. Each client owns its own games (no two clients contend for one
game) and plays them move by move, one request in flight per client, over its own keep-alive
connection (by default a lean HTTP/1.1 client on asyncio streams, so that the clients, which share
the machine's cores with the server, cost it as little as can be; --client aiohttp for aiohttp's).
The CPU each process used while the clients ran is printed per move: the server's, the clients'
and Redis'; and, less blurred by the machine's load, the CPU per move of the app's own code: its
ASGI app called directly, one request at a time, against Games.submit alone. The in-process baseline is
one writer in a loop, the rate a single server process can reach without HTTP. Both sides append
through the same command path with a dispatcher, as `pbm serve` does. Rounds alternate the two
sides; best of each. On the embedded Redis by default; with REDIS_URL set, on that server.

    python bench/serve.py --peer DIR [--replicas 1] [--levels 1,4,20] [--rounds 3]
    python bench/serve.py --replicas 1,2 [--levels 20] [--rounds 3]

With --peer (a copy of ../shared/peers/boardgameio after `npm install`) or --replicas, the sides
are boardgame.io's InMemory Server (its own driver, DIR/drive.js) and `pbm serve --workers N` for
each N of --replicas. In each round every client count of --levels is run by each side in turn
(the order turned each round), so the two figures of a ratio are taken minutes apart at most:
each side starts its server afresh, makes an untimed warm-up pass at 20 clients (as drive.js
does), then plays --games fresh games of --moves moves. pbm's games are created with
forced_moves="ask", so every move is a client's, as on boardgame.io's side. The load average is
printed before each run; each run's figures, then the median of each side and the ratios of each
pbm to the first side by round (the machine is shared: a ratio within a round is the figure,
absolutes swing with the load).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from bench import serving  # noqa: E402
from bench._common import bench_redis  # noqa: E402
from bench.random_moves import random_moves  # noqa: E402
from events.commands import Games  # noqa: E402
from events.seats import Seats  # noqa: E402
from events.store import Store  # noqa: E402
from workers.dispatch import Dispatcher  # noqa: E402

GAME, PLAYERS = "holly-oak", 4
ADMIN = "bench-admin-token-of-32-characters"  # pbm serve refuses a shorter one


def script(seed: int, moves: int) -> list[tuple[int, str, int]]:
    """(seat, move, expected seq) of the game's first `moves` moves on `seed`. Every move, forced
    ones too: the bench's games are created with forced_moves="ask", so none is played for them."""
    table = core.new_table(GAME, players=PLAYERS, seed=seed)
    played = []
    for now, seat, move in itertools.islice(random_moves(table, random.Random(seed)), moves):
        played.append((seat, move, now.seq))
        table.play(seat, move)
    return played


def in_process(games: Games, scripts: dict[int, list], tag: str) -> tuple[float, list[float]]:
    ids = {seed: games.create(GAME, PLAYERS, seed=seed, game_id=f"bench-{tag}-{seed}", forced_moves="ask") for seed in scripts}
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


class Connection:
    """One keep-alive HTTP/1.1 connection speaking just enough of the protocol for this bench
    (requests written whole, answers read by their Content-Length): the clients share the
    machine's cores with the server, so the less CPU a request costs here the more the figures
    say about the server."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, url: str) -> Connection:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        return cls(reader, writer, f"{host}:{port}")

    async def post(self, path: str, body: bytes, token: str) -> tuple[int, bytes]:
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
        )
        return await self.answer()

    async def get(self, path: str, token: str) -> tuple[int, bytes]:
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        return await self.answer()

    async def answer(self) -> tuple[int, bytes]:
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = None
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length is None:
            raise RuntimeError(f"an answer without a Content-Length: {head[:200]!r}")
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


def cpu_now(server_pid: int, redis_client) -> dict[str, float]:
    """CPU seconds used so far by the server process, this process (the clients), Redis and the
    whole machine (every process and the kernel, all cores: what is left for another replica)."""
    return {"server": cpu_seconds(server_pid), "clients": time.process_time(), "redis": redis_cpu_seconds(redis_client), "machine": machine_busy_seconds()}


def machine_busy_seconds() -> float:
    """CPU seconds the machine's cores have been busy since boot (Linux /proc/stat: all but idle and iowait)."""
    ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


async def through_http(url: str, games: Games, seats: Seats, scripts: dict[int, list], clients: int, tag: str, client_kind: str, meter) -> tuple[float, list[float], dict[str, float]]:
    """(moves/s, latencies, CPU seconds of each process while the clients ran)."""
    ids = {seed: games.create(GAME, PLAYERS, seed=seed, game_id=f"bench-{tag}-{seed}", forced_moves="ask") for seed in scripts}
    tokens = {(seed, seat): seats.issue(ids[seed], seat) for seed in scripts for seat in range(PLAYERS)}
    owned = [list(scripts)[i::clients] for i in range(clients)]
    latencies: list[float] = []

    async def client(seeds: list[int], post) -> None:
        for step in range(max((len(scripts[s]) for s in seeds), default=0)):
            for seed in seeds:
                if step < len(scripts[seed]):
                    seat, move, seq = scripts[seed][step]
                    body = json.dumps({"move": move, "expected_seq": seq}).encode()
                    began = time.perf_counter()
                    status, answer = await post(body, tokens[seed, seat])
                    latencies.append(time.perf_counter() - began)
                    if status != 200:
                        raise RuntimeError(f"move refused: {status} {answer[:200]!r}")

    # One keep-alive connection per client, as a browser or a bot program would hold.
    if client_kind == "raw":
        connections = [await Connection.open(url) for _ in range(clients)]
        await connections[0].post("/api/me/moves", b"{}", "warm-up")  # refused; the route is warm
        # Untimed, each client first reads its games' seat view, as boardgame.io's driver opens every
        # seat's socket (the server reads the match) before its clock starts: the server that
        # answers the moves has read each game, as one that created it would have.
        for seeds, connection in zip(owned, connections):
            for seed in seeds:
                status, answer = await connection.get("/api/me", tokens[seed, 0])
                if status != 200:
                    raise RuntimeError(f"seat view refused: {status} {answer[:200]!r}")
        cpu, start = meter(), time.perf_counter()
        await asyncio.gather(*(client(seeds, partial(c.post, "/api/me/moves")) for seeds, c in zip(owned, connections)))
        elapsed, cpu = time.perf_counter() - start, {who: used - cpu[who] for who, used in meter().items()}
        for c in connections:
            c.close()
    else:
        import aiohttp

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:

            async def post(body: bytes, token: str) -> tuple[int, bytes]:
                headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
                async with http.post(f"{url}/api/me/moves", data=body, headers=headers) as answer:
                    return answer.status, await answer.read()

            await post(b"{}", "warm-up")
            cpu, start = meter(), time.perf_counter()
            await asyncio.gather(*(client(seeds, post) for seeds in owned))
            elapsed, cpu = time.perf_counter() - start, {who: used - cpu[who] for who, used in meter().items()}
    return sum(map(len, scripts.values())) / elapsed, latencies, cpu


def through_app(games: Games, seats: Seats, client, scripts: dict[int, list], tag: str) -> dict[str, float]:
    """CPU per move (ms) of pbm's ASGI app called directly, one request at a time (no sockets, no
    uvicorn, no other process): as pbm serve runs it (each move on the event loop, its waits the
    loop's); with each move handed to a pool of threads instead (what a Cluster client's server
    does); with each move blocking the loop (the least CPU); and of Games.submit alone for the
    same moves (pbm/web/context.py, MovePool). What the app's own code costs a move, which the
    machine's load blurs less than the figures through sockets."""
    from pbm.web import create_app  # the front end, as pbm serve builds it
    from pbm.web.context import MovePool

    total = sum(map(len, scripts.values()))

    async def post(app, body: bytes, token: str) -> None:
        answer: list = []

        async def receive():
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message):
            answer.append(message)

        headers = [(b"authorization", b"Bearer " + token.encode()), (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http", "path": "/api/me/moves",
                 "raw_path": b"/api/me/moves", "query_string": b"", "root_path": "", "headers": headers, "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
        await app(scope, receive, send)
        if answer[0]["status"] != 200:
            raise RuntimeError(f"move refused: {answer[0]['status']} {answer[1].get('body', b'')[:200]!r}")

    def played(prefix: str, move) -> float:
        ids = {seed: games.create(GAME, PLAYERS, seed=seed, game_id=f"bench-{tag}{prefix}-{seed}", forced_moves="ask") for seed in scripts}
        tokens = {(seed, seat): seats.issue(ids[seed], seat) for seed in scripts for seat in range(PLAYERS)}
        start = os.times()
        for step in range(max(len(s) for s in scripts.values())):
            for seed, moves in scripts.items():
                if step < len(moves):
                    seat, text, seq = moves[step]
                    move(ids[seed], tokens[seed, seat], seat, text, seq)
        end = os.times()
        return (end.user + end.system - start.user - start.system) / total * 1000

    figures = {}

    class Blocking:
        """In place of the app's MovePool: the move run where it is asked for, on the loop, its
        waits blocking it (the least CPU, and what a Redis that hangs must never meet)."""

        async def run(self, call):
            return call()

    ways = (("as served (on the loop, its waits the loop's)", "c", None), ("in a pool of threads", "p", MovePool(on_the_loop=False)),
            ("on the loop, blocking", "l", Blocking()))
    for way, prefix, pool in ways:
        app = create_app(client, games=games, moves_per_window=10**9)
        if pool is not None:
            app.state.pbm.move_pool = pool
        # Called in process, nothing comes next over a socket: a move's lingering for it
        # (events.cooperative.linger) would only add its time to the figure.
        app.state.pbm.move_pool.linger_s = 0
        loop = asyncio.new_event_loop()
        try:
            figures[way] = played(prefix, lambda _game, token, _seat, text, seq: loop.run_until_complete(
                post(app, json.dumps({"move": text, "expected_seq": seq}).encode(), token)))
        finally:
            loop.close()
    figures["Games.submit"] = played("s", lambda game, _token, seat, text, seq: games.submit(game, seat, text, expected_seq=seq))
    return figures


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its live children so far (Linux /proc): the
    replicas of `pbm serve --workers N` are its children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return own + sum(cpu_seconds(int(child)) for child in children if Path(f"/proc/{child}").exists())


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def start_server(redis_url: str, workers: int = 1) -> tuple[subprocess.Popen, str]:
    """`pbm serve` on a free port, its output (the URL line, then the access log) to a file, as a
    server's log goes to a file or the journal: read through a pipe by this process, every line
    would wake a thread among the clients, costing them CPU the figures would blame on HTTP."""
    env = {**os.environ, "REDIS_URL": redis_url, "PBM_ADMIN_TOKEN": ADMIN, "PBM_MOVES_PER_10S": "1000000"}
    log = tempfile.NamedTemporaryFile("w+", prefix="pbm-bench-serve-", suffix=".log", delete=False)
    atexit.register(os.unlink, log.name)
    try:
        return serving.start(env, stdout=log, stderr=subprocess.DEVNULL, workers=workers)
    except AssertionError as failed:  # a bench says why it stops in a line, not a traceback
        raise SystemExit(str(failed)) from None


def redis_url_of(client) -> str:
    if os.environ.get("REDIS_URL"):
        return os.environ["REDIS_URL"]
    return f"unix://{client.connection_pool.connection_kwargs['path']}"


def redis_cpu_seconds(client) -> float:
    info = client.info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")), platform.processor())
    return f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}"


def load() -> str:
    return " ".join(f"{figure:.2f}" for figure in os.getloadavg())


def run_clients(coroutine):
    try:  # the clients' own loop on uvloop when there is one (uvicorn[standard] brings it): cheaper
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(coroutine)
    except ImportError:
        return asyncio.run(coroutine)


def side_by_side(args) -> None:
    """--peer / --replicas: alternated rounds of boardgame.io and pbm with N replicas."""
    levels = [int(n) for n in args.levels.split(",")]
    replicas = [int(n) for n in args.replicas.split(",")]
    sides = ([("boardgame.io", None)] if args.peer else []) + [(f"pbm x{n}" if len(replicas) > 1 else "pbm", n) for n in replicas]
    scripts = {seed: script(seed, args.moves) for seed in range(1, args.games + 1)}
    figures: dict[tuple[str, int], list[dict]] = {}
    print(f"{args.games} games x {args.moves} moves of {GAME} per client count {levels}; machine: {machine()}")
    with bench_redis() as (client, where):
        games, seats = Games(Store(client), dispatch=Dispatcher(client)), Seats(client)
        print(f"  pbm on {where} (append-only file, appendfsync {client.config_get('appendfsync').get('appendfsync')}); "
              f"{'boardgame.io 0.50 Server, InMemory, from ' + args.peer if args.peer else ''}")
        # Paired by client count within a round, so the two sides of a ratio meet the same load.
        for round_ in range(args.rounds):
            turned = sides[round_ % len(sides):] + sides[: round_ % len(sides)]
            for clients in levels:
                for name, workers in turned:
                    print(f"round {round_ + 1}, {clients} clients, {name}: load average {load()}", flush=True)
                    if workers is None:
                        result = peer_levels(args.peer, args.games, args.moves, [clients])[clients]
                    else:
                        result = pbm_levels(client, games, seats, scripts, [clients], workers, f"r{round_}w{workers}c{clients}")[clients]
                    figures.setdefault((name, clients), []).append(result)
                    print(f"  {result['moves_per_s']:7.0f} moves/s   p50 {result['p50_ms']:6.2f} ms   p99 {result['p99_ms']:6.2f} ms"
                          f"   server CPU {result['server_cpu_ms_per_move']:.3f} ms a move"
                          + (f"   machine busy {result['machine_busy']:.0%}" if "machine_busy" in result else ""), flush=True)
    print(f"load average at the end {load()}")
    first = sides[0][0]
    for name, _workers in sides:
        for clients in levels:
            rounds = figures[name, clients]
            line = f"  {name:<13} {clients:3d} clients: median {statistics.median(r['moves_per_s'] for r in rounds):7.0f} moves/s, p99 {statistics.median(r['p99_ms'] for r in rounds):6.2f} ms"
            if name != first:
                ratios = [mine["moves_per_s"] / theirs["moves_per_s"] for mine, theirs in zip(rounds, figures[first, clients])]
                line += f"; / {first} by round {' '.join(f'{r:.2f}' for r in ratios)}, median {statistics.median(ratios):.2f}"
            print(line)


def peer_levels(directory: str, games: int, moves: int, levels: list[int]) -> dict[int, dict]:
    """boardgame.io's side: its own driver (a fresh InMemory server and its warm-up pass), one JSON
    line per client count."""
    command = ["node", str(Path(directory) / "drive.js"), "--kind", "mem", "--clients", ",".join(map(str, levels)), "--games", str(games), "--moves", str(moves)]
    done = subprocess.run(command, env={**os.environ, "NODE_ENV": "production"}, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"boardgame.io's driver failed: {done.stderr.strip()[-500:]}")
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {result["clients"]: result for result in results}


def pbm_levels(client, games: Games, seats: Seats, scripts: dict[int, list], levels: list[int], workers: int, tag: str) -> dict[int, dict]:
    """pbm's side: a fresh `pbm serve --workers N`, an untimed pass at 20 clients (the first 10
    moves of each game: every replica has then imported and run what a move needs), then each level."""
    server, url = start_server(redis_url_of(client), workers)
    results = {}
    try:
        meter = partial(cpu_now, server.pid, client)
        warm_up = {seed: moves[:10] for seed, moves in scripts.items()}
        run_clients(through_http(url, games, seats, warm_up, 20, f"{tag}warm", "raw", meter))
        for clients in levels:
            rate, latencies, cpu = run_clients(through_http(url, games, seats, scripts, clients, f"{tag}c{clients}", "raw", meter))
            total = sum(map(len, scripts.values()))
            results[clients] = {"moves_per_s": rate, "p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
                                "server_cpu_ms_per_move": (cpu["server"] + cpu["redis"]) / total * 1000,
                                "machine_busy": cpu["machine"] / (total / rate) / os.cpu_count()}
    finally:
        serving.stop(server)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--moves", type=int, default=30, help="moves per game (from its start)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--client", choices=("raw", "aiohttp"), default="raw",
                        help="raw: a lean keep-alive HTTP/1.1 client over asyncio streams (default); aiohttp: aiohttp's")
    parser.add_argument("--peer", metavar="DIR", help="boardgame.io's side (a copy of ../shared/peers/boardgameio after npm install)")
    parser.add_argument("--replicas", help="pbm serve --workers N for each N (e.g. 1,2), side by side")
    parser.add_argument("--levels", default="1,4,20", help="client counts of --peer and --replicas")
    args = parser.parse_args()
    if args.peer or args.replicas:
        args.replicas = args.replicas or "1"
        return side_by_side(args)
    scripts = {seed: script(seed, args.moves) for seed in range(1, args.games + 1)}
    total = sum(map(len, scripts.values()))
    load_before = load()
    with bench_redis() as (client, where):
        games = Games(Store(client), dispatch=Dispatcher(client))
        seats = Seats(client)
        server, url = start_server(redis_url_of(client))
        best: dict[str, tuple[float, list[float]]] = {}
        cpu_ms: dict[str, list[float]] = {"server": [], "clients": [], "redis": [], "machine": []}
        meter = partial(cpu_now, server.pid, client)
        in_app: dict[str, list[float]] = {}
        try:
            for round_ in range(args.rounds):
                runs = {
                    "in process": lambda: (*in_process(games, scripts, f"p{round_}"), None),
                    "http": lambda: run_clients(through_http(url, games, seats, scripts, args.clients, f"h{round_}", args.client, meter)),
                }
                for name, run in runs.items():
                    rate, latencies, cpu = run()
                    for who, seconds in (cpu or {}).items():
                        cpu_ms[who].append(seconds / total * 1000)
                    if name not in best or rate > best[name][0]:
                        best[name] = (rate, latencies)
                for way, figure in through_app(games, seats, client, scripts, f"a{round_}").items():
                    in_app.setdefault(way, []).append(figure)
        finally:
            serving.stop(server)
        print(f"{total} moves of {GAME} ({args.games} games x {args.moves} moves), {args.clients} HTTP clients ({args.client}), {where}, best of {args.rounds}")
        print(f"  machine: {machine()}; load average before {load_before}, after {load()}")
        for name, (rate, latencies) in best.items():
            print(f"  {name:<11} {rate:8.0f} moves/s   p50 {percentile(latencies, 50):6.2f} ms   p99 {percentile(latencies, 99):6.2f} ms")
        print("  CPU per HTTP move (least of the rounds): " + ", ".join(f"{who} {min(figures):.3f} ms" for who, figures in cpu_ms.items()))
        print("  CPU per move of the app called in process, one request at a time (least of the rounds): "
              + ", ".join(f"{way} {min(figures):.3f} ms" for way, figures in in_app.items()))
        ratio = best["http"][0] / best["in process"][0]
        p99 = percentile(best["http"][1], 99)
        print(f"  http / in process: {ratio:.2f} (target >= 0.50: {'met' if ratio >= 0.5 else 'MISSED'}); "
              f"http p99 {p99:.1f} ms (target < 50 ms: {'met' if p99 < 50 else 'MISSED'})")


if __name__ == "__main__":
    main()
