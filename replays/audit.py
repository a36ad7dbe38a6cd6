"""A referee's report on one game, in Markdown: who did what and when, whether each move was legal,
each seat's view at a disputed point, the disputes raised and how each was settled, and the
verification result. Read-only; writes no file.

Seats are named by the caller's `name` (the shell's pbm.names.Names, from the seat store: replays
must not import the shell), by number without one; events no seat caused are the game's own.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

import core
from core.table import duration_text
from events import clock as clocks
from replays.log import BadLog, Log
from replays.steps import command_shown
from replays.verify import FAIL, NOTE, OK, Report, Ruling, verify

MARK = {OK: "yes", FAIL: "**NO**", NOTE: "unchecked"}
# A command the shell played for its seat (the envelope's origin, docs/orders.md): said so, since a
# referee asked "did the player choose this?" must be able to answer.
ORIGIN_TEXT = {"forced": "forced: the seat's only legal move, played by pbm", "order": "a standing order of the seat"}
SYSTEM = "the game"  # who is credited with an event no seat's command caused (a deal, a timeout)


class Naming(Protocol):
    def __call__(self, seat: int) -> str: ...
    def text(self, line: str) -> str: ...


class Disputed(Protocol):
    """A dispute as the audit lists it (events.disputes.Dispute)."""

    id: str
    seat: int
    seq: int
    reason: str
    raised_ms: int
    note: str | None
    settled_ms: int | None


class ByNumber:
    """Seats by number, lines as core narrates them: an audit without the seat store (a file)."""

    def __call__(self, seat: int) -> str:
        return f"seat {seat}"

    def text(self, line: str) -> str:
        return line


def audit(log: Log, disputed: int | None = None, seed: int | None = None, name: Naming | None = None,
          disputes: Sequence[Disputed] = (), reader: int | None = None) -> tuple[str, Report]:
    """The report and the verification in it; `disputed` (a seq) adds each seat's view just
    before and after that event. `name`: how seats are named (default: by number). `disputes`:
    those raised (events.disputes, beside the log), listed with how each was settled. `reader`: a
    seat's copy while the game runs: the events as that seat may read them, its own view and the
    public one only, and the reasons of its own disputes only (a reason may name its seat's cards)."""
    name = name or ByNumber()
    if reader is not None and log.table().outcome is not None:
        reader = None  # over: the seed is out, every card may be told
    report = verify(log, seed)
    started = log.started
    lines = [
        f"# Audit of game {log.game_id}",
        "",
        f"- game: {log.game.title} ({log.game.slug}), rules version {started.rules_version}",
        f"- players: {started.players}; options: {_options(started)}",
        f"- events: {len(log.events)} (seq 0 to {log.last_seq}), from {_time(log.envelopes[0].time_ms)} to {_time(log.envelopes[-1].time_ms)}",
        f"- seed commitment: `{started.seed_commitment}`",
        f"- seed: {_seed_text(log)}",
        f"- result: {_result(log, name)}",
        "",
        "## Verification",
        "",
        *[f"- {line}" for line in report.lines()],
        "",
    ]
    lines += _clock(log, name)
    if disputed is not None:
        lines += _disputed(log, report, log.check_seq(disputed), name, reader)
    lines += _disputes(disputes, name, reader)
    lines += _orders(log, name)
    lines += ["## What happened", "", "| seq | time (UTC) | who | command | event | legal |", "|---:|---|---|---|---|---|"]
    rulings = {r.seq: r for r in report.rulings}
    for seq, env in enumerate(log.envelopes):
        ruling = rulings.get(seq) if env.command is not None else None
        legal = MARK[ruling.status] if ruling else ""
        who = SYSTEM if env.actor is None else name(env.actor)
        shown = command_shown(log, seq, reader)
        command = f"`{shown}`" if shown is not None else "(hidden)" if env.command is not None else ""
        if env.command is not None and env.origin is not None:
            command += f" ({ORIGIN_TEXT[env.origin]})"
        lines.append(f"| {seq} | {_time(env.time_ms)} | {_cell(who)} | {command} | {_cell(name.text(_narrate(log, seq, reader)))} | {legal} |")
    return "\n".join(lines) + "\n", report


def _orders(log: Log, name: Naming) -> list[str]:
    """Each standing order that fired: its seq, whose it was, the move and the order's id (from
    its command id `order:<id>:<seq>`). The order's conditions are not in the log: they were the
    seat's secret, and a plan of its hand (docs/orders.md)."""
    fired = [env for env in log.envelopes if env.command is not None and env.origin == "order"]
    if not fired:
        return []
    lines = ["## Standing orders fired", "", f"- {len(fired)} moves were standing orders their seats left in advance", "",
             "| seq | whose | order | move |", "|---:|---|---|---|"]
    for env in fired:
        order_id = (env.command_id or "").split(":")[1] if (env.command_id or "").startswith("order:") else "?"
        lines.append(f"| {env.seq} | {_cell(name(env.actor))} | `{order_id}` | `{env.command}` |")
    return lines + [""]


CLOCK_COLUMNS = ("turn (seq)", "seat", "began (UTC)", "due (UTC)", "ended", "how")


class ClockStory(NamedTuple):
    """The clock's story (clock_story): what it was set to, its timeouts, a row a person's turn."""

    settings: str
    timeouts: str
    rows: list[tuple[str, ...]]  # CLOCK_COLUMNS


def clock_story(log: Log, name: Naming) -> ClockStory | None:
    """The clock's story: its settings, and each person's turn with its deadline (as the log had
    it when the turn ended) and how it ended: moved in time, moved late, or timed out. None for a
    game without a clock. The audit's table, and the console's replay page shows it too."""
    try:
        clock = clocks.Clock.read(log.envelopes)
    except Exception:  # a forged clock event: the event table still lists what the log holds
        return None
    settings = clock.settings
    if settings is None:
        return None
    said = (f"deadline: {duration_text(settings.deadline_s)} a move; reminders: "
            + (", ".join(duration_text(r) for r in settings.reminders_s) + " before" if settings.reminders_s else "none")
            + f"; vacation: {settings.vacation_days} days a year per seat; autopilot after "
            + (f"{settings.autopilot_after} timeouts in a row" if settings.autopilot_after else "no number of timeouts"))
    timeouts = f"timeouts: {len(clock.timeouts)}" + ("" if not clock.timeouts else " (" + ", ".join(f"{name(seat)} at seq {seq}" for seq, seat, _turn in clock.timeouts) + ")")
    rows = []
    timed_out = {(turn, seat) for _seq, seat, turn in clock.timeouts}
    for first, _count in log.commands():
        env = log.envelopes[first]
        before = clocks.Clock.read(log.envelopes[:first])
        bots = set(core.table.bot_seats(log.events[:first]))
        if env.actor is None or env.actor in bots:
            continue
        due = before.due_ms(env.actor)
        if (before.turn, env.actor) in timed_out:
            how = "timed out: the autopilot moved"
        elif due is None:
            how = "moved while the clock was paused"
        else:
            how = "in time" if env.time_ms <= due else f"late by {duration_text(max(1, (env.time_ms - due) // 1000))}"
        rows.append((str(before.turn), name(env.actor), _time(before.turn_started_ms), _time(due) if due else "paused", _time(env.time_ms), how))
    return ClockStory(said, timeouts, rows)


def _clock(log: Log, name: Naming) -> list[str]:
    story = clock_story(log, name)
    if story is None:
        return []
    lines = ["## Clock", "", f"- {story.settings}", f"- {story.timeouts}", "",
             "| " + " | ".join(CLOCK_COLUMNS) + " |", "|---:|---|---|---|---|---|"]
    return [*lines, *("| " + " | ".join(_cell(cell) for cell in row) + " |" for row in story.rows), ""]


def _disputes(disputes: Sequence[Disputed], name: Naming, reader: int | None) -> list[str]:
    """The disputes raised, each with how it was settled (the operator's words), or open."""
    if not disputes:
        return []
    lines = ["## Disputes", "", f"- {len(disputes)} raised, {sum(1 for d in disputes if d.settled_ms is None)} open", "",
             "| dispute | seq | raised by | raised (UTC) | reason | settled (UTC) | the operator's words |", "|---|---:|---|---|---|---|---|"]
    for d in disputes:
        reason = d.reason if reader is None or d.seat == reader else "(the seat's own until the game is over)"
        settled = "open" if d.settled_ms is None else _time(d.settled_ms)
        lines.append(f"| `{d.id}` | {d.seq} | {_cell(name(d.seat))} | {_time(d.raised_ms)} | {_cell(reason)} | {settled} | {_cell(d.note or '')} |")
    return lines + [""]


def _disputed(log: Log, report: Report, seq: int, name: Naming, reader: int | None = None) -> list[str]:
    env = log.envelopes[seq]
    first = _command_start(log, seq)
    lines = [f"## The disputed point: seq {seq}", "", f"Event: {name.text(log.narrate(seq, reader))} (`{env.kind}`)", ""]
    if first is None:
        lines += ["It is part of the opening: no player's command caused it.", ""]
    else:
        cause = log.envelopes[first]
        ruling = next((r for r in report.rulings if r.seq == first or r.seq == seq), None)
        typed = command_shown(log, first, reader)
        lines += [
            f"Caused by {name(cause.actor)}'s command " + (f"`{typed}`" if typed is not None else "(its text is that seat's own)") + f" at seq {first}"
            + (f" (command id `{cause.command_id}`)" if cause.command_id else "")
            + f", sent {_time(cause.time_ms)}.",
            "",
            f"Legal: {_ruling_text(ruling)}",
            "",
        ]
    at = seq if first is None else first
    if at > 0:
        lines += [f"### Each seat's view just before (after seq {at - 1})", ""]
        lines += _views(log, at - 1, name, reader)
    lines += [f"### Each seat's view just after (after seq {seq})", ""]
    lines += _views(log, seq, name, reader)
    return lines


def _views(log: Log, seq: int, name: Naming, reader: int | None = None) -> list[str]:
    table = log.table(seq)
    out = []
    for seat in [*range(log.started.players), None] if reader is None else [reader, None]:
        title = "spectator (public)" if seat is None else f"{name(seat)} (seat {seat})" if name(seat) != f"seat {seat}" else f"seat {seat}"
        out += [f"**{title}**", "", "```json", json.dumps(table.view(seat), sort_keys=False), "```", ""]
    return out


def _narrate(log: Log, seq: int, reader: int | None = None) -> str:
    try:
        return log.narrate(seq, reader)
    except BadLog as error:  # a forged log: the report still lists what it holds
        return f"{log.envelopes[seq].kind} (cannot be replayed: {error.problem})"


def _command_start(log: Log, seq: int) -> int | None:
    starts = [first for first, _count in log.commands() if first <= seq]
    return starts[-1] if starts else None


def _ruling_text(ruling: Ruling | None) -> str:
    if ruling is None:
        return "not re-decided (verification stopped before it)"
    return f"{MARK[ruling.status]}: {ruling.reason}"


def _options(started: core.GameStarted) -> str:
    # Long option values (a whole board) are named, not printed.
    return ", ".join(f"{k}={v if len(str(v)) < 40 else '(' + str(len(str(v))) + ' characters)'}" for k, v in started.options) or "none"


def _seed_text(log: Log) -> str:
    try:
        seed = log.revealed_seed
    except ValueError:
        return "revealed, but malformed"
    return "not revealed yet (the game is running)" if seed is None else f"revealed at seq {log.last_seq}: `{seed:064x}`"


def _result(log: Log, name: Naming) -> str:
    try:
        outcome = log.table().outcome
    except ValueError as error:
        return f"cannot be rebuilt ({error})"
    if outcome is None:
        return "running"
    winners = ", ".join(name(s) for s in outcome.winners) or "nobody"
    return f"won by {winners}; scores " + ", ".join(f"{name(s)}: {v}" for s, v in enumerate(outcome.scores))


def _time(time_ms: int) -> str:
    return datetime.fromtimestamp(time_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
