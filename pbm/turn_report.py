"""What a seat is told: the story since its last move, and the whole story, as that seat may see
it. Written once for every front end (the API, the page, mail). Pure: no I/O.

"Since its last move" starts at the first event of the seat's latest command (so the report
recalls what the seat did, then what followed), or at the start for a seat that has not moved.
A seat's commands are read from the envelopes (actor and command), never guessed from events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.table import Table, apply, narrate
from events.envelope import Envelope, is_move_of


def last_move_seq(envelopes: Sequence[Envelope], seat: int) -> int | None:
    """The seq of the first event of `seat`'s latest command, None if it has not moved."""
    for env in reversed(envelopes):
        if is_move_of(env, seat):
            return env.seq
    return None


def since_last_move(table: Table, envelopes: Sequence[Envelope], seat: int) -> list[str]:
    """The lines `seat` reads about everything from its latest move on. `envelopes`: the log up to
    the table's last event, or its part from the seat's latest move on (Store.since_move)."""
    start = last_move_seq(envelopes, seat) or 0
    return [line for _seq, line in table.narrate(seat, start=start)]


def lines_between(table: Table, seat: int | None, start: int, stop: int) -> list[str]:
    """The lines `seat` reads about the events from `start` up to (not including) `stop`."""
    return [line for seq, line in table.narrate(seat, start=start) if seq < stop]


def lines_after(table: Table, events: Sequence[Any], seat: int | None) -> list[str]:
    """The lines `seat` reads about `events`, which follow `table`'s last event: folded from
    the table's state, so a long game's report of one move costs that move's events only."""
    state, lines = table.state, []
    for event in events:
        lines.append(narrate(table.game, state, event, seat))
        state = apply(table.game, state, event)
    return lines


def story(table: Table, seat: int | None) -> list[dict[str, int | str]]:
    """The whole game so far as `seat` (None: a spectator) may see it: [{"seq", "text"}]."""
    return [{"seq": seq, "text": text} for seq, text in table.narrate(seat)]
