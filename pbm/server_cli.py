"""`pbm server status|stop`: the embedded Redis's lifetime (events.server starts it on demand)."""

from __future__ import annotations

import click

from events import server
from pbm.cli import console


@click.group(name="server")
def server_group() -> None:
    """The embedded Redis (used when REDIS_URL is not set)."""


@server_group.command()
def status() -> None:
    """Say where the log lives and whether the embedded server runs."""
    if server.describe().startswith("Redis at"):
        return console.print(f"using {server.describe()} (REDIS_URL)")
    embedded = server.EmbeddedRedis(server.data_dir())
    state = f"running (pid {embedded.pid()})" if embedded.running() else "stopped"
    console.print(f"embedded Redis in {embedded.directory}: {state}")


@server_group.command()
def stop() -> None:
    """Stop the embedded Redis (its data stays; the next pbm command starts it again)."""
    embedded = server.EmbeddedRedis(server.data_dir())
    console.print("stopped" if embedded.stop() else "it was not running")
