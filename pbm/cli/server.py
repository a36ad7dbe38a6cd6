"""`pbm server status|stop`: the embedded Redis's lifetime (events.server starts it on demand)."""

from __future__ import annotations

import click

from events import server
from pbm.cli import emit_json, say


@click.group(name="server")
def server_group() -> None:
    """The embedded Redis (used when REDIS_URL is not set)."""


AS_JSON = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


@server_group.command()
@AS_JSON
def status(as_json: bool) -> None:
    """Say where the log lives and whether the embedded server runs."""
    if server.describe().startswith("Redis at"):
        if as_json:
            return emit_json({"redis": server.describe(), "embedded": False})
        return say(f"using {server.describe()} (REDIS_URL)")
    embedded = server.EmbeddedRedis(server.data_dir())
    running = embedded.running()
    if as_json:
        return emit_json({"redis": server.describe(), "embedded": True, "directory": str(embedded.directory), "running": running, "pid": embedded.pid() if running else None})
    say(f"embedded Redis in {embedded.directory}: " + (f"running (pid {embedded.pid()})" if running else "stopped"))


@server_group.command()
@AS_JSON
def stop(as_json: bool) -> None:
    """Stop the embedded Redis (its data stays; the next pbm command starts it again)."""
    stopped = server.EmbeddedRedis(server.data_dir()).stop()
    if as_json:
        return emit_json({"stopped": stopped})
    say("stopped" if stopped else "it was not running")
