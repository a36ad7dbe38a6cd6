"""`pbm replay ...`: show, step, diff, export, import, verify and audit a game's log. This module
only parses, calls replays/ and renders; it writes to Redis only through replays.archive.restore.

GAME|FILE arguments name a replay file when such a file exists, else a game id in the log.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

import core
from events import server
from events.store import Store
from pbm.cli import PathParam, console, emit_json, fail, rule, say
from pbm.names import Names
from pbm.view_text import state_lines, view_lines
from replays import archive
from replays.audit import audit as audit_report
from replays.diff import first_divergence
from replays.log import BadLog, Log, from_store
from replays.log import plain as plain_state
from replays.steps import command_shown
from replays.verify import verify as verify_log

STEP_KEYS = "n: next  p: previous  g: first  G: last  q: quit"


class ReplayGroup(click.Group):
    """Turns a bad log, a refused import or an unwritable file into one line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (BadLog, archive.Refused) as error:
            fail(str(error))
        except OSError as error:  # an -o path that cannot be written
            fail(f"{error.filename or 'file'}: {error.strerror or error}")


@click.group(cls=ReplayGroup)
def replay() -> None:
    """Rebuild, step through, compare, export, import, verify and audit game logs."""


def store() -> Store:
    return Store(server.connect())


def open_log(ref: str, checked: bool = True) -> Log:
    """The log of a replay file (if `ref` is a file) or of the game `ref` in Redis."""
    if Path(ref).is_file():
        return archive.read(ref) if checked else archive.read_unchecked(ref)
    if "/" in ref or ref.endswith(archive.SUFFIX):
        raise BadLog(ref, "no such file")
    log = from_store(store(), ref)
    return log.check_integrity() if checked else log


def seat_names(log: Log, viewer: int | None = None) -> Names:
    """The seats of a game in Redis named from the seat store, as `viewer` reads them (None: a
    referee or a spectator, no "you")."""
    from events.seats import Seats

    names = Seats(store().redis).names([(log.game_id, log.started.players)])[log.game_id]
    return Names(tuple(names), viewer=viewer, bots=frozenset(core.table.bot_seats(log.events)))


def reader_names(ref: str, log: Log, viewer: int | None) -> Names:
    """How the reader of `ref` reads its seats: by name for a game in Redis (its seat store), by
    number for a replay file (a file holds no names, as the audit's)."""
    if Path(ref).is_file():
        return Names(viewer=viewer, bots=frozenset(core.table.bot_seats(log.events)))
    return seat_names(log, viewer)


def table_output(log: Log, at: int | None, seat: int | None, public: bool) -> dict[str, Any]:
    """A seat's view (--as), the public view (--public) or the whole state (a referee's)."""
    table = log.table(at)
    if seat is not None or public:
        return table.view(seat)
    return {"game": log.game.slug, "seq": table.seq, "state": plain_state(table.state)}


def render(log: Log, output: dict[str, Any], name: Names | None = None) -> None:
    if "state" not in output:
        return say(*view_lines(output, log.game_id, name=name, options=dict(log.started.options)))
    say(*state_lines(log.game_id, output["game"], output["seq"] - 1, output["state"], name))


SEAT = click.option("--as", "seat", type=int, help="A seat's view (default: the whole state; of a running game, with --referee).")
PUBLIC = click.option("--public", is_flag=True, help="The public view (what a spectator sees).")
REFEREE = click.option("--referee", is_flag=True, help="Show a running game's hidden cards too (the whole state, every seat's view).")


def check_referee(log: Log, referee: bool, what: str = "its whole state") -> None:
    """Every hidden card of a running game is shown only to whoever says --referee: a replay on
    a shared screen, or pasted into a chat, must not give the hands away by default."""
    try:
        running = log.table().outcome is None
    except BadLog:  # a log that does not fold may be anything: treat it as running
        running = True
    if running and not referee:
        fail(f"{log.source} is running, and {what} shows every seat's hidden cards: add --referee (or use --as SEAT, --public)")
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


@replay.command()
@click.argument("ref", metavar="GAME|FILE")
@click.option("--at", "at", type=int, help="Right after the event at this seq (default: the last; -1 counts from the end).")
@SEAT
@PUBLIC
@REFEREE
@AS_JSON
def show(ref: str, at: int | None, seat: int | None, public: bool, referee: bool, as_json: bool) -> None:
    """The whole state, or a seat's view, at any seq."""
    log = open_log(ref)
    if seat is not None:
        log.table().check_seat(seat)
    elif not public:
        check_referee(log, referee)
    output = table_output(log, at, seat, public)
    if as_json:  # a machine's form: seats by number
        return emit_json(output)
    render(log, output, reader_names(ref, log, seat))


@replay.command()
@click.argument("ref", metavar="GAME|FILE")
@click.option("--at", "at", type=int, default=0, help="Start right after this seq (default 0).")
@click.option("--script", help="Keys to run instead of the keyboard, e.g. 'nnpq'.")
@SEAT
@PUBLIC
@REFEREE
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line per position shown (seq, event, output).")
def step(ref: str, at: int, script: str | None, seat: int | None, public: bool, referee: bool, as_json: bool) -> None:
    """Walk the log one event at a time: each event narrated, then the state it produced.

    Keys: n (or space, enter) next, p previous, g first, G last, q quit. They come from --script,
    else from piped stdin, else from the keyboard.
    """
    log = open_log(ref)
    if seat is not None:
        log.table().check_seat(seat)
    elif not public:
        check_referee(log, referee)
    seq = log.check_seq(at)
    name = None if as_json else reader_names(ref, log, seat)  # --json keeps seat numbers
    if not as_json:
        console.print(f"[dim]{STEP_KEYS}[/]")
    show_step(log, seq, seat, public, as_json, name)
    for key in keys_from(script):
        moved = next_position(key, seq, log.last_seq)
        if moved is None:
            break
        if moved == seq:
            if not as_json:
                console.print(f"[dim](at seq {seq} of {log.last_seq}; {STEP_KEYS})[/]")
            continue
        seq = moved
        show_step(log, seq, seat, public, as_json, name)


def next_position(key: str, seq: int, last: int) -> int | None:
    """Where a key moves the cursor; None to quit."""
    if key == "q":
        return None
    moves = {"n": seq + 1, " ": seq + 1, "\r": seq + 1, "\n": seq + 1, "p": seq - 1, "g": 0, "G": last}
    return min(max(moves.get(key, seq), 0), last)


def keys_from(script: str | None):
    if script is not None:
        yield from script
        return
    if not sys.stdin.isatty():
        # Piped: every character is a key; blank lines are not steps (the keys are the letters).
        yield from (key for key in sys.stdin.read() if key not in "\r\n\t")
        return
    while True:
        yield click.getchar()


def show_step(log: Log, seq: int, seat: int | None, public: bool, as_json: bool = False, name: Names | None = None) -> None:
    env = log.envelopes[seq]
    shown = None if public else command_shown(log, seq, seat)  # the public reads no move's text
    output = table_output(log, seq, seat, public)
    if as_json:
        command = {"seat": env.actor, "move": shown} if shown is not None else None
        return click.echo(json.dumps({"seq": seq, "last_seq": log.last_seq, "event": log.narrate(seq, seat), "command": command, "output": output}))
    rule(f"seq {seq} of {log.last_seq}")
    name = name or Names(viewer=seat)
    say(name.text(log.narrate(seq, seat)) + (f"  ({name(env.actor)}: {shown})" if shown is not None else ""))
    render(log, output, name)


@replay.command()
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@SEAT
@AS_JSON
def diff(a: str, b: str, seat: int | None, as_json: bool) -> None:
    """The first event where two logs (games or files) differ, with context and both states, and
    which of them fails its hash chain, if one does (where they part is still shown).

    Exits 1 when they differ or one fails its chain, 0 when they tell the same story intact.
    """
    # Read unchecked: a disputed file is often the one that fails its hash chain, and where it
    # parts from the other is what its reader wants to know. Each failure is said, with its side.
    log_a, log_b = open_log(a, checked=False), open_log(b, checked=False)
    broken = {name: log.integrity() for name, log in (("A", log_a), ("B", log_b))}
    found = first_divergence(log_a, log_b, seat)
    if as_json:
        output = None if found is None else _divergence_json(found)
        if any(broken.values()):
            output = {**(output or {"seq": None}), "integrity": {name: [{"seq": s, "problem": p} for s, p in problems] for name, problems in broken.items()}}
        emit_json(output)
    else:
        for name, ref in (("A", a), ("B", b)):
            if broken[name]:
                seq, problem = broken[name][0]
                more = f" (and {len(broken[name]) - 1} more)" if len(broken[name]) > 1 else ""
                say(f"{name} ({ref}) fails its hash chain at seq {seq}: {problem}{more}")
        if found is None:
            note = "" if log_a.game_id == log_b.game_id else f" (game ids {log_a.game_id} and {log_b.game_id})"
            console.print(f"the same: {len(log_a.events)} events, every one alike{note}")
        else:
            _render_divergence(a, b, found)
    if found is not None or any(broken.values()):
        sys.exit(1)


def _divergence_json(found: Any) -> dict[str, Any]:
    return {
        "seq": found.seq,
        "reason": found.reason,
        "a": found.a_line,
        "b": found.b_line,
        "context": [{"seq": s, "text": t} for s, t in found.context],
        "before": found.before,
        "a_after": found.a_after,
        "b_after": found.b_after,
    }


def _render_divergence(a: str, b: str, found: Any) -> None:
    console.print(f"[bold red]first difference at seq {found.seq}:[/] {found.reason}", highlight=False)
    for seq, text in found.context:
        console.print(f"[dim]{seq:>6}[/]   {text}", highlight=False)
    console.print(f"[bold]{found.seq:>6} A[/] {found.a_line or '(A has ended)'}", highlight=False)
    console.print(f"[bold]{found.seq:>6} B[/] {found.b_line or '(B has ended)'}", highlight=False)
    for name, ref, view in (("A", a, found.a_after), ("B", b, found.b_after)):
        if view is not None:
            rule(f"{name} ({ref}) right after seq {found.seq}")
            say(*view_lines(view, ref))


@replay.command(name="export")
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", "path", required=True, type=PathParam(dir_okay=False), help="The file to write.")
@AS_JSON
def export_(game_id: str, path: str, as_json: bool) -> None:
    """Write a game's log to a replay file (msgpack: a header, then the envelopes as stored)."""
    log = archive.export(store(), game_id, path)
    if as_json:
        return emit_json({"game_id": log.game_id, "events": len(log.events), "file": path})
    console.print(f"exported {log.game_id}: {len(log.events)} events to {path}", highlight=False)


@replay.command(name="import")
@click.argument("path", metavar="FILE", type=PathParam(dir_okay=False))
@click.option("--replace", is_flag=True, help="Overwrite a game with the same id (refused if it has events the file lacks).")
@click.option("--force", is_flag=True, help="With --replace: drop such events too; the old log is kept under another key.")
@click.option("--unverified", is_flag=True, help="Keep a log that fails verification, for forensics: marked, never played.")
@AS_JSON
def import_(path: str, replace: bool, force: bool, unverified: bool, as_json: bool) -> None:
    """Load a replay file into the log under its own game id, once `pbm replay verify` passes it
    (refused if the id exists)."""
    log = archive.read_unchecked(path) if unverified else archive.read(path)
    kept = archive.restore(store().redis, log, replace=replace, force=force, unverified=unverified)
    marked = store().unverified(log.game_id)
    if as_json:
        return emit_json({"game_id": log.game_id, "game": log.game.slug, "events": len(log.events), "unverified": marked, "kept": kept or None})
    note = f" (unverified, kept for forensics and never played: {marked})" if marked else ""
    console.print(f"imported {log.game_id}: {len(log.events)} events of {log.game.slug}{note}", highlight=False, soft_wrap=True)
    if kept:
        console.print(kept, highlight=False, soft_wrap=True)


@replay.command()
@click.argument("ref", metavar="GAME|FILE")
@click.option("--secret-seed", is_flag=True, help="A running game: check its deals with the server's secret seed.")
@AS_JSON
def verify(ref: str, secret_seed: bool, as_json: bool) -> None:
    """Check seqs, the hash chain, the seed against its commitment, every deal and every command.

    One line per finding; exit status 1 when anything fails (the first bad seq is named).
    """
    try:
        log = open_log(ref, checked=False)
    except BadLog as error:  # a file that cannot even be read is a finding too
        console.print(f"FAIL read: {error}", highlight=False, soft_wrap=True)
        sys.exit(1)
    seed = None
    if secret_seed and not Path(ref).is_file():
        seed = store().seed(ref)
    report = verify_log(log, seed)
    if as_json:
        emit_json(
            {
                "ok": report.ok,
                "first_bad_seq": report.first_bad_seq,
                "findings": [{"status": f.status, "check": f.check, "seq": f.seq, "text": f.text} for f in report.findings],
            }
        )
    else:
        for line in report.lines():
            console.print(line, highlight=False, soft_wrap=True)
    if not report.ok:
        sys.exit(1)


@replay.command()
@click.argument("ref", metavar="GAME|FILE")
@click.option("--seq", "seq", type=int, help="The disputed event: each seat's view before and after it.")
@click.option("-o", "--output", "path", type=PathParam(dir_okay=False), help="Write the Markdown report here.")
@click.option("--secret-seed", is_flag=True, help="A running game: check its deals with the server's secret seed.")
@REFEREE
@AS_JSON
def audit(ref: str, seq: int | None, path: str | None, secret_seed: bool, referee: bool, as_json: bool) -> None:
    """A referee's report: who did what and when, legality, views at the disputed seq, verification.

    Exit status 1 when the verification in it fails (the report is written all the same).
    """
    log = open_log(ref, checked=False)
    seed = store().seed(ref) if secret_seed and not Path(ref).is_file() else None
    if seq is not None:
        log.check_seq(seq)
        check_referee(log, referee, "the report's views at --seq")
    from events.disputes import Disputes

    on_server = not Path(ref).is_file()  # a file holds the log and the disputes it was exported with
    disputes = Disputes(store()).all(log.game_id) if on_server else log.disputes
    text, report = audit_report(log, seq, seed, name=seat_names(log) if on_server else None, disputes=disputes)
    if path:
        Path(path).write_text(text)
    if as_json:
        emit_json({"game_id": log.game_id, "ok": report.ok, "first_bad_seq": report.first_bad_seq, "file": path, "markdown": None if path else text})
    elif path:
        console.print(f"wrote the audit of {log.game_id} to {path}", highlight=False)
    else:
        from rich.markdown import Markdown  # markdown-it and pygments: a tenth of a second

        console.print(Markdown(text))
    if not report.ok:
        console.print(report.lines()[-1], highlight=False, soft_wrap=True)
        sys.exit(1)
