"""`pbm serve`: the web front end (pbm/web) on uvicorn. Imports fastapi and uvicorn only when run,
so the rest of the CLI starts without them.

Its access log never shows a seat's token: a token in a request path (a seat's page link) is
replaced by `<token>` before the line is written.
"""

from __future__ import annotations

import logging
import socket

import click

from events import server as redis_server
from events.seats import TOKEN_IN_TEXT

GRACE_S = 5  # how long stopping waits for open requests (a seat page's event stream lasts minutes)


class HideTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(TOKEN_IN_TEXT.sub("<token>", a) if isinstance(a, str) else a for a in record.args)
        record.msg = TOKEN_IN_TEXT.sub("<token>", str(record.msg))
        return True


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
def serve(host: str, port: int) -> None:
    """Serve the JSON API and the seats' pages. Operators: set PBM_ADMIN_TOKEN."""
    import uvicorn

    from pbm.web import create_app

    app = create_app()
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
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
    config = uvicorn.Config(app, log_level="info", server_header=False, timeout_graceful_shutdown=GRACE_S)
    server = uvicorn.Server(config)
    for name in ("uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addFilter(HideTokens())
    server.run(sockets=[listener])


