"""What a seat is told: the story since its last move, and the whole story, as that seat may see
it. Written once for every front end (the API, the page, mail, `pbm log`). Pure: no I/O.

Core narrates seats by number ("seat 2 led 7Su"); given `name` (pbm.names.Names, for the reader),
every line here names them as the reader reads them ("Cy led 7Su", "you led 7Su"): the one place
the front ends' stories get their names.

"Since its last move" starts at the first event of the latest move the seat sent itself (so the
report recalls what the seat did, then what followed), or at the start for a seat that has not
moved.
A seat's commands are read from the envelopes (actor and command), never guessed from events.
A move the shell played for the seat (its only legal move, or one of its standing orders) is
one of its commands, and the seat's own report says so on its line; nobody else's report does
(their lines come from the events alone, which are the same however a move was sent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.table import Table, apply, narrate
from events.envelope import Envelope, is_move_of, is_sent_by
from pbm.names import Names


def last_move_seq(envelopes: Sequence[Envelope], seat: int) -> int | None:
    """The seq of the first event of the latest move `seat` sent itself, None if it has not."""
    for env in reversed(envelopes):
        if is_sent_by(env, seat):
            return env.seq
    return None


# What the seat reads after the line of a move the shell played for it, by the envelope's origin.
PLAYED_FOR_YOU = {
    "forced": "played for you: it was your only legal move",
    "order": "played for you: one of your orders",
}


def named(line: str, name: Names | None) -> str:
    return line if name is None else name.text(line)


def since_last_move(table: Table, envelopes: Sequence[Envelope], seat: int, notes: Sequence[Mapping[str, Any]] = (), name: Names | None = None) -> list[str]:
    """The lines `seat` reads about everything from its latest move on. `envelopes`: the log up to
    the table's last event, or its part from the seat's latest move on (Store.since_move).
    `notes`: the seat's own notes of orders dropped (events.orders.Orders.notes), told after the
    story if dropped since its latest move; only the seat's own report is handed them."""
    return [entry["text"] for entry in dated_since_last_move(table, envelopes, seat, notes, name)]


def dated_since_last_move(table: Table, envelopes: Sequence[Envelope], seat: int, notes: Sequence[Mapping[str, Any]] = (), name: Names | None = None) -> list[dict[str, Any]]:
    """since_last_move's lines, each with its seq and when it happened (the envelope's wall-clock
    time, None where the envelopes given do not reach): [{"seq", "text", "time_ms"}]."""
    start = last_move_seq(envelopes, seat) or 0
    played_for = {env.seq: env.origin for env in envelopes if env.seq >= start and env.origin is not None and is_move_of(env, seat)}
    times = {env.seq: env.time_ms for env in envelopes}
    entries = [{"seq": seq, "text": marked(named(line, name), played_for.get(seq)), "time_ms": times.get(seq)} for seq, line in table.narrate(seat, start=start)]
    return entries + [{"seq": note["seq"], "text": dropped_line(note), "time_ms": None} for note in notes if note["seq"] >= start]


def dropped_line(note: Mapping[str, Any]) -> str:
    """What a seat reads of one of its orders that was dropped (it could never fire again)."""
    return f"your order `{note['text']}` was dropped: {note['why']}"


def marked(line: str, origin: str | None) -> str:
    """`line` with, for a move the shell played for the reader, a note saying so."""
    return line if origin is None else f"{line} ({PLAYED_FOR_YOU[origin]})"


def lines_between(table: Table, seat: int | None, start: int, stop: int, name: Names | None = None) -> list[str]:
    """The lines `seat` reads about the events from `start` up to (not including) `stop`."""
    return [named(line, name) for seq, line in table.narrate(seat, start=start) if seq < stop]


def lines_after(table: Table, events: Sequence[Any], seat: int | None, name: Names | None = None) -> list[str]:
    """The lines `seat` reads about `events`, which follow `table`'s last event: folded from
    the table's state, so a long game's report of one move costs that move's events only."""
    state, lines = table.state, []
    for index, event in enumerate(events):
        if index:  # told from the state before it (the last event's own fold is not needed)
            state = apply(table.game, state, events[index - 1])
        lines.append(named(narrate(table.game, state, event, seat), name))
    return lines


def story(table: Table, seat: int | None, name: Names | None = None) -> list[dict[str, int | str]]:
    """The whole game so far as `seat` (None: a spectator) may see it: [{"seq", "text"}]."""
    return [{"seq": seq, "text": named(text, name)} for seq, text in table.narrate(seat)]
