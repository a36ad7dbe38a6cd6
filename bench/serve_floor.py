"""Benchmark of what one server process can do at best: bench/serve.py's moves through a bare ASGI
app that does only a move's own work (the token's check riding on the append, Games.submit, the
seat's view, the report, the JSON answer), with no FastAPI, Starlette, pydantic, middleware, error
answers or Pace (every move on the event loop), on uvicorn, against Games.submit in process in the
same run. Not pbm's server: the floor under it, for issue 11's target. Prints; asserts nothing.

    python bench/serve_floor.py [--rounds 3] [--no-access-log]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import serve as bench_serve  # noqa: E402
from bench._common import bench_redis  # noqa: E402
from events.commands import Games  # noqa: E402
from events.seats import Seats  # noqa: E402
from events.store import Store  # noqa: E402
from workers.dispatch import Dispatcher  # noqa: E402


def move_app():
    """The ASGI app (uvicorn --factory): a move's own work and nothing else; anything but a
    well-formed move by a known token is answered 400 (this is a bench, not a server)."""
    from events.server import connect
    from pbm import turn_report

    client = connect()
    games, seats = Games(Store(client), dispatch=Dispatcher(client)), Seats(client)

    def play(headers: dict, body: bytes) -> bytes:
        token = headers[b"authorization"].removeprefix(b"Bearer ").decode()
        move = json.loads(body)
        check = seats.check(token, 10, 10**9)
        before = games.table_at(check.game_id, move["expected_seq"])
        submitted = games.submit(check.game_id, check.seat, move["move"], None, move["expected_seq"], check=check)
        stop = submitted.seq + len(submitted.events)
        after = games.table_at(check.game_id, stop)
        report = turn_report.lines_after(before, after.events[submitted.seq : stop], check.seat)
        return json.dumps({"seq": submitted.seq, "duplicate": submitted.duplicate, "view": after.view(check.seat), "report": report}).encode()

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        try:
            status, answer = 200, play(dict(scope["headers"]), body)
        except Exception as error:  # noqa: BLE001 (the warm-up request, or a broken bench)
            status, answer = 400, json.dumps({"error": type(error).__name__}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]})
        await send({"type": "http.response.body", "body": answer})

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-access-log", action="store_true", help="uvicorn without its access log")
    args = parser.parse_args()
    scripts = {seed: bench_serve.script(seed, 30) for seed in range(1, 41)}
    total = sum(map(len, scripts.values()))
    with bench_redis() as (client, where):
        games, seats = Games(Store(client), dispatch=Dispatcher(client)), Seats(client)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = {**os.environ, "REDIS_URL": bench_serve.redis_url_of(client), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        command = [sys.executable, "-m", "uvicorn", "--factory", "bench.serve_floor:move_app", "--port", str(port)]
        server = subprocess.Popen([*command, *(["--no-access-log"] if args.no_access_log else [])], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(100):  # up when it answers
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            meter = partial(bench_serve.cpu_now, server.pid, client)
            print(f"{total} moves of Holly Oak (40 games x 30 moves), 20 HTTP clients, {where}; uvicorn access log {'off' if args.no_access_log else 'on'}")
            for number in range(args.rounds):
                in_process, _ = bench_serve.in_process(games, scripts, f"p{number}")
                rate, latencies, cpu = bench_serve.run_clients(bench_serve.through_http(url, games, seats, scripts, 20, f"h{number}", "raw", meter))
                print(f"  in process {in_process:7.0f} moves/s   bare move app {rate:6.0f} moves/s   ratio {rate / in_process:.2f}"
                      f"   p99 {bench_serve.percentile(latencies, 99):5.1f} ms   server CPU {cpu['server'] / total * 1000:.3f} ms a move")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
