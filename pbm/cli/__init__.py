"""The `pbm` command line: the root group, its table of commands and what they all share (one-line
errors, JSON output, the games' command path). It must not import a command's module, or anything
heavy, until that command runs: every `pbm` call pays for what this module imports. Nothing in
this room imports pbm.web's or pbm.mail's modules: a command that starts one of them (`pbm serve`,
`pbm mail-server`, `pbm mail-in`) imports what that room's package exports, when it runs.

A command lives in a module of its own in this package and is listed in COMMANDS; it is imported only
when it is run, or when `pbm --help` lists it (so command modules import their heavy libraries,
such as rq and matplotlib, inside the functions that use them). Every expected failure (unknown
game, wrong seat, illegal or malformed move, bad deal file, any way Redis fails: see
events.server.explain) is one line on stderr and a non-zero exit, with nothing written.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from events.commands import Games

# name -> "module:attribute", in the order `pbm --help` lists them.
COMMANDS = {
    "games": "pbm.cli.game:games",
    "rules": "pbm.cli.rules:rules",
    "new": "pbm.cli.game:new",
    "list": "pbm.cli.listing:list_games",
    "show": "pbm.cli.game:show",
    "play": "pbm.cli.game:play",
    "orders": "pbm.cli.orders:orders",
    "log": "pbm.cli.game:log",
    "demo": "pbm.cli.game:demo",
    "delete": "pbm.cli.delete:delete",
    "archive": "pbm.cli.delete:archive",
    "worker": "pbm.cli.worker:worker",
    "recover": "pbm.cli.worker:recover_command",
    "stats": "pbm.cli.worker:stats",
    "simulate": "pbm.cli.worker:simulate",
    "replay": "pbm.cli.replay:replay",
    "server": "pbm.cli.server:server_group",
    "serve": "pbm.cli.serve:serve",
    "invite": "pbm.cli.seat:invite",
    "seat": "pbm.cli.seat:seat",
    "people": "pbm.cli.people:people",
    "salt": "pbm.cli.salt:salt",
    "disputes": "pbm.cli.disputes:disputes",
    "clock": "pbm.cli.clock:clock",
    "reindex": "pbm.cli.reindex:reindex",
    "mail-in": "pbm.cli.mail:mail_in",
    "mail-server": "pbm.cli.mail:mail_server",
}

# Piped to a file or a script, output is never wrapped at 80 columns (a terminal, or COLUMNS, sets
# the width otherwise).
UNWRAPPED = 1_000_000
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else UNWRAPPED)
errors = Console(stderr=True)


def rule(title: str) -> None:
    """A horizontal rule with a title, as wide as a terminal (at most 100 columns when piped)."""
    from rich.rule import Rule

    console.print(Rule(title), width=min(console.width, 100))


def expected_errors() -> tuple[type[Exception], ...]:
    """The errors a user can cause: imported when one is raised, since a command has loaded them."""
    import core
    from events.codec import DecodeError
    from events.commands import UnknownGame, UnreadableGame
    from events.server import RedisUnavailable
    from events.store import Conflict, NotPlayable

    return (core.IllegalMove, core.SetupError, Conflict, UnknownGame, UnreadableGame, NotPlayable, DecodeError, RedisUnavailable)


class Cli(click.Group):
    """The root group: commands loaded from COMMANDS on first use; the errors a user can cause
    turned into one line, exit status 1 (or 2 for a mistyped command)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS) + sorted(set(self.commands) - set(COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            module, _, attribute = COMMANDS[name].partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("standalone_mode", False)
        args = list(sys.argv[1:] if args is None else args)
        global json_errors
        json_errors = "--json" in args
        try:
            return super().main(args, *rest, **kwargs)
        except click.UsageError as error:
            hint = f" (see {error.ctx.command_path} --help)" if error.ctx else ""
            fail(error.format_message() + hint, status=2)
        except click.ClickException as error:
            fail(error.format_message())
        except (click.Abort, KeyboardInterrupt):
            fail("interrupted", status=130)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as error:
            from events import server

            if isinstance(error, server.REDIS_ERRORS):  # redis-py's, and its Cluster client's own
                fail(server.explain(error))
            if isinstance(error, expected_errors()):
                fail(str(error))
            raise


def say(*lines: str) -> None:
    """Print lines of plain text (a player's move or a card is data, never markup)."""
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


json_errors = False  # set per run: with --json on the command line, errors are JSON too


def fail(message: str, status: int = 1) -> None:
    """One line on stderr, then exit: {"error": ..., "status": ...} in --json mode."""
    # What a user typed can hold newlines or terminal escapes: shown escaped, on the one line.
    message = "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)
    if json_errors:
        print(json.dumps({"error": message, "status": status}), file=sys.stderr)
    else:  # the message is data (it may quote a player's move), never markup
        errors.print(Text.assemble(("error: ", "bold red"), message), highlight=False, soft_wrap=True)
    sys.exit(status)


def open_games() -> Games:
    """The command path on the configured Redis. Every writer dispatches: the rq jobs its appends
    call for (bot turns, summaries) are queued."""
    from events import server
    from events.commands import Games
    from events.store import Store
    from workers.dispatch import Dispatcher

    client = server.connect()
    return Games(Store(client), dispatch=Dispatcher(server.connect_queues(client), log=client))


class PathParam(click.Path):
    """click.Path for every path a command takes: a path holding a NUL character is refused as a
    bad value, like any other, in one line (click.Path stats it, and os.stat raises ValueError for
    a NUL, which click lets through as a traceback)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if "\0" in os.fsdecode(value):
            self.fail(f"{os.fsdecode(value)!r} cannot be a path: it holds a NUL character", param, ctx)
        return super().convert(value, param, ctx)


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, sort_keys=False))


@click.group(cls=Cli)
@click.version_option(package_name="pbm")
def main() -> None:
    """pbm: board and card games played a move a day, kept as an event log in Redis.

    With no REDIS_URL, games live in an embedded Redis under your data directory (or PBM_HOME).
    """
