"""`pbm serve`: the web front end (pbm/web) on uvicorn, as one process or as `--workers N` replicas
on one address. Imports fastapi and uvicorn only when run, so the rest of the CLI starts without them.

Its access log never shows a seat's token: a token in a request path (a seat's page link) is
replaced by `<token>` before the line is written, in every replica (AccessLog for the access
lines, the HideTokens filter of the logging configuration each replica loads for the rest).

Replicas share nothing but Redis: a seat page's event stream polls the log's length there, a
folded table one replica holds is checked against the log by the append (a stale one is a
conflict, then a read), and every limit is counted there (docs/scale.md).
"""

from __future__ import annotations

import copy
import gc
import logging
import socket
import sys

import click

from events import server as redis_server
from events.seats import TOKEN_IN_TEXT

HEALTHCHECK_S = 60  # how long a replica of --workers may take to answer its supervisor
GRACE_S = 5  # how long stopping waits for open requests (a seat page's event stream lasts minutes)


class HideTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(TOKEN_IN_TEXT.sub("<token>", a) if isinstance(a, str) else a for a in record.args)
        record.msg = TOKEN_IN_TEXT.sub("<token>", str(record.msg))
        return True


def log_config() -> dict:
    """uvicorn's logging configuration with HideTokens on both of its handlers. A dict, so each
    replica of --workers builds it. (The access lines are AccessLog's.)"""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"hide_tokens": {"()": "pbm.cli.serve.HideTokens"}}
    for handler in config["handlers"].values():
        handler["filters"] = ["hide_tokens"]
    return config


class AccessLog:
    """The access log: a line a request on standard output as its answer starts, as uvicorn's
    own reads (`INFO:     <client> - "<method> <path> HTTP/<version>" <status>`), a token in the
    path or query replaced by `<token>`. Written here rather than through uvicorn's logger:
    logging's record, filter, handler lock and formatter cost 13 us a line against 2 for the
    write, on a move that is a few hundred us of CPU in all (bench/serve.py)."""

    def __init__(self, app, stream=None) -> None:
        from uvicorn.protocols.utils import get_client_addr, get_path_with_query_string  # uvicorn's own line's parts

        self.app = app
        self.stream = stream or sys.stdout
        self.client_of, self.path_of = get_client_addr, get_path_with_query_string

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def logged(message) -> None:
            if message["type"] == "http.response.start":
                self.write(scope, message["status"])
            await send(message)

        await self.app(scope, receive, logged)

    def write(self, scope, status: int) -> None:
        path = TOKEN_IN_TEXT.sub("<token>", self.path_of(scope))
        self.stream.write(f'INFO:     {self.client_of(scope)} - "{scope["method"]} {path} HTTP/{scope["http_version"]}" {status}\n')
        self.stream.flush()


def replica() -> AccessLog:
    """The app one replica of --workers serves (uvicorn imports it by name in each)."""
    from pbm.web import create_app

    app = AccessLog(create_app())
    collect_for_a_server()
    return app


def collect_for_a_server() -> None:
    """Python's cyclic garbage collector set for a long-running server, once its app is built:
    what start-up made (modules, routes, models: hundreds of thousands of objects that live as
    long as the process) is frozen out of every collection, and the youngest generation is
    collected every 10,000 new objects instead of 700. Under bench/serve.py at 20 clients, the
    collections that scanned all of it every few hundred moves made the p99 54-65 ms; frozen
    and so, 12-18 ms."""
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def serving_lines(url: str, operator_on: bool) -> list[str]:
    """What a start-up says is served at `url`, and a warning when the operator's part is off."""
    lines = [
        f"  seats' pages: {url}/play/<seat token> (the links `pbm new` and `pbm invite` give)",
        f"  players' API: {url}/api/me (a seat token as bearer); the spec: {url}/openapi.json",
    ]
    if operator_on:
        return lines + [f"  operator's API and console: {url}/api/games, {url}/admin (PBM_ADMIN_TOKEN)"]
    return lines + ["warning: PBM_ADMIN_TOKEN is not set: the operator's API (/api/games) and console (/admin) are off"]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free one).")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes on the one address, serving the same games (one a core).")
def serve(host: str, port: int, workers: int) -> None:
    """Serve the JSON API and the seats' pages. Operators: set PBM_ADMIN_TOKEN."""
    import uvicorn

    from pbm.web import create_app

    # Built here in every case: a bad setting or an unreachable Redis is told in one line before
    # anything listens; with --workers each replica builds its own from the same environment.
    app = create_app()
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))  # not shared: an address another server holds is refused here
        if workers > 1:  # each replica a socket of its own on the address (pbm/cli/replicas.py)
            from pbm.cli.replicas import shared_in_place_of

            listener = shared_in_place_of(listener)
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror}") from None
    # Listening before the URL is printed: a client that connects at once waits in the backlog
    # until uvicorn accepts, instead of being refused (seen under load in the tests).
    listener.listen(2048)
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}"
    click.echo(f"pbm serving on {url} ({redis_server.describe()})", err=False)
    for line in serving_lines(url, bool(app.state.pbm.admin_token)):
        click.echo(line, err=line.startswith("warning"))
    # An open seat page holds a stream of server-sent events: without a limit, stopping would
    # wait for every player to close their page.
    # uvloop and httptools (pyproject pins them): the cheapest event loop and HTTP parser uvicorn has.
    settings = dict(log_config=log_config(), log_level="info", server_header=False, timeout_graceful_shutdown=GRACE_S, loop="uvloop", http="httptools",
                    access_log=False)  # AccessLog writes it
    if workers == 1:
        collect_for_a_server()
        uvicorn.Server(uvicorn.Config(AccessLog(app), **settings)).run(sockets=[listener])
        return
    from pbm.cli.replicas import Replicas

    # Each replica is a process of its own that imports the app by name and accepts on a
    # listening socket of its own on the one address; the supervisor restarts one that dies and
    # stops them all on SIGTERM. It takes a replica that does not answer its health check in time
    # for hung and kills it: a replica still importing on a busy machine took more than uvicorn's 5 s.
    config = uvicorn.Config("pbm.cli.serve:replica", factory=True, workers=workers, timeout_worker_healthcheck=HEALTHCHECK_S, **settings)
    replicas = Replicas(config, sockets=[listener])
    del listener  # the first replica's now: kept here, it would outlive that replica (see Replicas)
    replicas.run()


