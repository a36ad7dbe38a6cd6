"""The first divergence of two logs, with the events around it and the states on both sides. Read-only.

Two logs are compared by what happened, not by how it was stored: per seq the event (kind and
data), who acted and the command text. Game ids, wall-clock times and hashes differ between two
games played alike, so they are left out (a note says when the ids differ).
"""

from __future__ import annotations

from typing import Any

import attrs

from replays.log import Log

CONTEXT = 3


@attrs.frozen
class Divergence:
    seq: int  # the first seq whose events differ (or that only one log has)
    reason: str
    a_line: str | None  # the event at `seq` in A, narrated (None: A has ended)
    b_line: str | None
    context: list[tuple[int, str]]  # the common events just before `seq`
    before: dict[str, Any] | None  # the common view right before `seq` (None at seq 0)
    a_after: dict[str, Any] | None  # A's view right after its event at `seq`
    b_after: dict[str, Any] | None


def what_happened(log: Log, seq: int) -> tuple[Any, ...]:
    env = log.envelopes[seq]
    return env.kind, env.data, env.actor, env.command


def first_divergence(a: Log, b: Log, seat: int | None = None, context: int = CONTEXT) -> Divergence | None:
    """None if the two logs tell the same story; else where and how they part."""
    common = min(len(a.events), len(b.events))
    seq = next((s for s in range(common) if what_happened(a, s) != what_happened(b, s)), common)
    if seq == common and len(a.events) == len(b.events):
        return None
    if seq == common:
        longer = "A" if len(a.events) > len(b.events) else "B"
        reason = f"{longer} goes on after the other ends (A has {len(a.events)} events, B {len(b.events)})"
    else:
        reason = _reason(a, b, seq)
    # Views need a table the two logs share up to `seq`: the first game's rules read both.
    same_game = a.game is b.game and a.started == b.started
    return Divergence(
        seq=seq,
        reason=reason,
        a_line=a.narrate(seq, seat) if seq < len(a.events) else None,
        b_line=b.narrate(seq, seat) if seq < len(b.events) else None,
        context=[(s, a.narrate(s, seat)) for s in range(max(0, seq - context), seq)],
        before=a.table(seq - 1).view(seat) if seq and same_game else None,
        a_after=a.table(seq).view(seat) if seq < len(a.events) else None,
        b_after=b.table(seq).view(seat) if seq < len(b.events) else None,
    )


def _reason(a: Log, b: Log, seq: int) -> str:
    (a_kind, a_data, a_actor, a_command), (b_kind, b_data, b_actor, b_command) = what_happened(a, seq), what_happened(b, seq)
    if a_command != b_command or a_actor != b_actor:
        return f"different commands: A has {_cause(a_actor, a_command)}, B has {_cause(b_actor, b_command)}"
    if a_kind != b_kind:
        return f"different events: A has {a_kind}, B has {b_kind}"
    fields = sorted(k for k in set(a_data) | set(b_data) if a_data.get(k) != b_data.get(k)) if isinstance(a_data, dict) and isinstance(b_data, dict) else []
    return f"the same {a_kind} with other data" + (f" ({', '.join(fields)})" if fields else "")


def _cause(actor: int | None, command: str | None) -> str:
    if command is None:
        return "no command" if actor is None else f"seat {actor}, no command"
    return f"seat {actor}: {command!r}"
