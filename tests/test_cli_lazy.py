"""The CLI's start-up: importing its entry point, or listing its help, loads no heavy library, and
every command in pbm.cli.COMMANDS resolves to a command of that name."""

from __future__ import annotations

import json
import subprocess
import sys

import click

from pbm.cli import COMMANDS, main

HEAVY = ("matplotlib", "numpy", "rq", "fastapi", "uvicorn", "jinja2", "aiosmtpd", "playwright", "markdown_it")

LOADED = """
import json, sys
from pbm.cli import main
{run}
print(json.dumps(sorted(sys.modules)))
"""


def loaded_after(run: str) -> set[str]:
    # A fresh interpreter: this one has imported everything the other tests needed.
    code = LOADED.format(run=run)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def heavy(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules} & set(HEAVY)


def test_importing_the_cli_loads_no_heavy_library_and_no_command() -> None:
    modules = loaded_after("")
    assert heavy(modules) == set()
    assert not {module.partition(":")[0] for module in COMMANDS.values()} & modules


def test_listing_every_command_loads_no_heavy_library() -> None:
    modules = loaded_after("try:\n    main(['--help'])\nexcept SystemExit:\n    pass")
    assert {module.partition(":")[0] for module in COMMANDS.values()} <= modules
    assert heavy(modules) == set()


def test_every_listed_command_resolves_to_a_command_of_its_name() -> None:
    ctx = click.Context(main)
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name, name
    assert main.list_commands(ctx)[: len(COMMANDS)] == list(COMMANDS)
