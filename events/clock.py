"""A game's clock, read from its log: when each turn began (its envelope time), when it is due (its
deadline, plus extensions, minus the time the clock stood still: pauses, the seat's vacations), the
timeouts in a row and the vacation left. Pure: it reads envelopes it is given and the `now_ms` it
is told; it never reads the clock itself, never writes, never decides a move.

The clock is the shell's: rules never see it. A turn begins with the last event that is not the
shell's (a move's events, or the opening): BotsSeated and the clock's own events (pauses,
extensions, vacations, timeouts) are nobody's move, so they neither start a turn nor end one. The
four games have one seat to act at a time; in a game where several seats act at once, every move
at the table would start each waiting seat's clock again (generous, never unfair to the waiting).

Durations are written `5s`, `90m`, `48h` or `2d` (parse_duration); reminders as a comma list
(`24h,2h`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import attrs
import cattrs.errors

import core
from core.contract import CLOCK_EVENTS, SHELL_EVENTS
from core.table import duration_text
from events import codec
from events.envelope import Envelope

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"([0-9]{1,9})([smhd])")
MAX_DEADLINE_S = 365 * 86400
MAX_REMINDERS = 5
MAX_VACATION_DAYS = 365
MAX_AUTOPILOT_AFTER = 100
DAY_MS = 86_400_000
# The salts' deadline in a game without a clock (docs/fairness.md): a deal that waits for salts
# must not wait for ever on a seat that never opens its page, and nobody chose a move's time.
SALTS_WITHOUT_CLOCK_S = 2 * 86400
SHELL_KINDS = frozenset(cls.kind for cls in SHELL_EVENTS)
CLOCK_KINDS = frozenset(cls.kind for cls in CLOCK_EVENTS)
AUTOPILOT = "autopilot"  # the bot kind of a seat the clock handed over (workers.bots plays it as heuristic)


def timeout_command_id(turn: int, seat: int) -> str:
    """The command id of the autopilot's move for a timed-out turn: a retried deadline job plays it once."""
    return f"timeout:{turn}:{seat}"


def parse_duration(text: Any, what: str = "a duration") -> int:
    """Seconds in `5s`, `90m`, `48h` or `2d`; SetupError naming `what` and the text otherwise."""
    shown = repr(text)[:40]
    match = _DURATION.fullmatch(text.strip().lower()) if isinstance(text, str) else None
    if match is None:
        raise core.SetupError(f"{what}: {shown} is not a duration (a whole number and a unit s, m, h or d: 5s, 90m, 48h, 2d)")
    seconds = int(match.group(1)) * UNITS[match.group(2)]
    if not 1 <= seconds <= MAX_DEADLINE_S:
        raise core.SetupError(f"{what}: {shown} is out of range (1s to 365d)")
    return seconds


def parse_reminders(text: Any, what: str = "reminders") -> tuple[int, ...]:
    """`24h,2h` -> (86400, 7200): seconds before the deadline, largest first."""
    if isinstance(text, (list, tuple)):
        parts = list(text)
    elif isinstance(text, str):
        parts = [part for part in text.split(",") if part.strip()] if text.strip() else []
    else:
        raise core.SetupError(f"{what}: a comma list of durations (24h,2h), not {repr(text)[:40]}")
    if len(parts) > MAX_REMINDERS:
        raise core.SetupError(f"{what}: at most {MAX_REMINDERS}, not {len(parts)}")
    return tuple(sorted({parse_duration(part, what) for part in parts}, reverse=True))


def settings(
    deadline: str | int,
    reminders: str | Sequence[str] = (),
    vacation_days: int = 0,
    autopilot_after: int = 0,
) -> core.ClockSet:
    """The ClockSet a game is created with; SetupError naming the setting that is wrong."""
    deadline_s = deadline if type(deadline) is int else parse_duration(deadline, "deadline")
    if not 1 <= deadline_s <= MAX_DEADLINE_S:
        raise core.SetupError(f"deadline: {deadline_s} s is out of range (1s to 365d)")
    reminders_s = parse_reminders(reminders)
    too_late = [r for r in reminders_s if r >= deadline_s]
    if too_late:
        raise core.SetupError(f"reminders: {duration_text(too_late[0])} before a deadline of {duration_text(deadline_s)} is before the turn begins")
    for name, value, top in (("vacation days", vacation_days, MAX_VACATION_DAYS), ("autopilot after", autopilot_after, MAX_AUTOPILOT_AFTER)):
        if type(value) is not int or not 0 <= value <= top:
            raise core.SetupError(f"{name}: a whole number from 0 to {top}, not {repr(value)[:40]}")
    return core.ClockSet(deadline_s=deadline_s, reminders_s=reminders_s, vacation_days=vacation_days, autopilot_after=autopilot_after)


def iso(time_ms: int | None) -> str | None:
    """2026-12-01T14:05:00Z, or None."""
    if time_ms is None:
        return None
    return datetime.fromtimestamp(time_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def year_of(time_ms: int) -> int:
    return datetime.fromtimestamp(time_ms / 1000, UTC).year


@attrs.frozen
class Clock:
    """What a game's log says of its clock, at its end."""

    settings: core.ClockSet | None
    turn: int  # the seq the turn in progress began at (the log's length after its last non-shell event)
    turn_started_ms: int
    paused_since_ms: int | None  # the clock is paused now, since then
    stops: tuple[tuple[int, int | None], ...]  # (from, to) every pause; to None: still paused
    vacations: dict[int, tuple[tuple[int, int], ...]]  # seat -> (from, to) of each vacation
    extra_s: dict[int, int]  # seat -> seconds the operator added to the turn in progress
    timeouts_in_a_row: dict[int, int]  # seat -> its timeouts since its player last moved
    timeouts: tuple[tuple[int, int, int], ...]  # (seq, seat, turn) of every timeout

    @classmethod
    def read(cls, envelopes: Sequence[Envelope]) -> Clock:
        """The clock of a whole log (or of its first events)."""
        return NO_EVENTS.advanced(envelopes)

    def advanced(self, envelopes: Iterable[Envelope]) -> Clock:
        """The clock once `envelopes` follow the events it was read from: read(a + b) is
        read(a).advanced(b), so a reader that kept a clock reads only the envelopes after it."""
        settings, turn, started = self.settings, self.turn, self.turn_started_ms
        stops = [list(span) for span in self.stops]
        vacations = {seat: list(spans) for seat, spans in self.vacations.items()}
        extra, in_a_row, timeouts = dict(self.extra_s), dict(self.timeouts_in_a_row), list(self.timeouts)
        for env in envelopes:
            if env.kind not in SHELL_KINDS:
                turn, started = env.seq + 1, env.time_ms
                extra = {}
                # A forced move (its only legal one, played by the shell) is not its player's doing
                # either: it does not show that they are there.
                if env.command is not None and env.actor is not None and not (env.command_id or "").startswith("timeout:") and env.origin != "forced":
                    in_a_row[env.actor] = 0  # its player moved
                continue
            if env.kind not in CLOCK_KINDS:
                continue
            event = env.event
            if isinstance(event, core.ClockSet):
                settings = event
            elif isinstance(event, core.ClockPaused):
                if not stops or stops[-1][1] is not None:
                    stops.append([env.time_ms, None])
            elif isinstance(event, core.ClockResumed):
                if stops and stops[-1][1] is None:
                    stops[-1][1] = env.time_ms
            elif isinstance(event, core.DeadlineExtended):
                for seat in event.seats:
                    extra[seat] = extra.get(seat, 0) + event.seconds
            elif isinstance(event, core.VacationTaken):
                vacations.setdefault(event.seat, []).append((env.time_ms, env.time_ms + event.days * DAY_MS))
            elif isinstance(event, core.TurnTimedOut):
                in_a_row[event.seat] = in_a_row.get(event.seat, 0) + 1
                timeouts.append((env.seq, event.seat, event.turn))
        return Clock(
            settings,
            turn,
            started,
            stops[-1][0] if stops and stops[-1][1] is None else None,
            tuple((a, b) for a, b in stops),
            {seat: tuple(spans) for seat, spans in vacations.items()},
            extra,
            in_a_row,
            tuple(timeouts),
        )

    def due_ms(self, seat: int) -> int | None:
        """When the seat's turn in progress is due, as things stand; None while its clock stands
        still with no end known (the operator paused it) or for a game without a clock."""
        if self.settings is None:
            return None
        remaining = (self.settings.deadline_s + self.extra_s.get(seat, 0)) * 1000
        cursor = self.turn_started_ms
        for start, end in merged([*self.stops, *self.vacations.get(seat, ())]):
            if end is not None and end <= cursor:
                continue
            start = max(start, cursor)
            if start - cursor >= remaining:
                break
            remaining -= start - cursor
            if end is None:
                return None
            cursor = end
        return cursor + remaining

    def salts_due_ms(self, seat: int) -> int | None:
        """When the salts' deadline is due, `seat` the first still owed a salt: one move's time from
        the game's creation in a game with a clock (its pauses and that seat's vacations count, as
        in due_ms), SALTS_WITHOUT_CLOCK_S after it in a game without one."""
        if self.settings is None:
            return self.turn_started_ms + SALTS_WITHOUT_CLOCK_S * 1000
        return self.due_ms(seat)

    def on_vacation_until(self, seat: int, now_ms: int) -> int | None:
        ends = [end for start, end in self.vacations.get(seat, ()) if start <= now_ms < end]
        return max(ends) if ends else None

    def vacation_taken(self, seat: int, year: int) -> int:
        """Days the seat took in that calendar year (UTC), by the day each vacation began."""
        return sum((end - start) // DAY_MS for start, end in self.vacations.get(seat, ()) if year_of(start) == year)

    def vacation_left(self, seat: int, now_ms: int) -> int:
        if self.settings is None:
            return 0
        return max(0, self.settings.vacation_days - self.vacation_taken(seat, year_of(now_ms)))

    def describe(self, to_act: Iterable[int], bots: Iterable[int], now_ms: int, seats: Iterable[int] | None = None) -> dict[str, Any] | None:
        """The clock as the API shows it (None: no clock): the settings, whether it is paused, and
        for each seat the game waits on (or each of `seats`) its deadline, vacation and timeouts."""
        if self.settings is None:
            return None
        waiting, bots = set(to_act), set(bots)
        shown = sorted(waiting if seats is None else set(seats))
        rows = []
        for seat in shown:
            due = self.due_ms(seat) if seat in waiting and seat not in bots else None
            away = self.on_vacation_until(seat, now_ms)
            rows.append({
                "seat": seat,
                "to_act": seat in waiting,
                "due": iso(due),
                "due_ms": due,
                "on_vacation_until": iso(away),
                "vacation_days_left": self.vacation_left(seat, now_ms),
                "timeouts_in_a_row": self.timeouts_in_a_row.get(seat, 0),
            })
        return {
            "deadline": duration_text(self.settings.deadline_s),
            "deadline_s": self.settings.deadline_s,
            "reminders_s": list(self.settings.reminders_s),
            "vacation_days": self.settings.vacation_days,
            "autopilot_after": self.settings.autopilot_after,
            "paused": self.paused_since_ms is not None,
            "paused_since": iso(self.paused_since_ms),
            "turn": self.turn,
            "turn_started": iso(self.turn_started_ms),
            "seats": rows,
        }

    def deadline_of_turn(self, to_act: Iterable[int], bots: Iterable[int]) -> tuple[int, int | None] | None:
        """(seat, due_ms) of the first person the game waits on, None if it waits on nobody's clock."""
        people = [seat for seat in to_act if seat not in set(bots)]
        if self.settings is None or not people:
            return None
        return people[0], self.due_ms(people[0])


NO_EVENTS = Clock(None, 1, 0, None, (), {}, {}, {}, ())  # the clock of a log with no events yet

# A game's clock kept beside its log (keys.clock), so that a reader of its clock (the operator's
# list, a seat's view, the deadline jobs: Store.clocks) folds only the envelopes after it: msgpack
# [CACHE_SCHEMA, seq, hash, settings, turn, turn started, paused since, stops, vacations,
# extensions, timeouts in a row, timeouts], the clock of the events before `seq`, `hash` the log's
# hash of event seq - 1. A disposable cache, as a snapshot is: used only while the log still has
# that hash at that seq (so its clock is the log's own: read(a + b) is read(a).advanced(b)); never
# read by replays. It expires a month after it was last written: a game that nobody reads any
# more (one over) does not keep it (216 bytes in Redis).
CACHE_SCHEMA = 1
CACHE_TTL_S = 30 * 86400


def cache_entry(clock: Clock, seq: int, last_hash: bytes) -> bytes:
    settings = None if clock.settings is None else codec.converter.unstructure(clock.settings)
    return codec.pack([
        CACHE_SCHEMA, seq, last_hash, settings, clock.turn, clock.turn_started_ms, clock.paused_since_ms,
        clock.stops, sorted(clock.vacations.items()), sorted(clock.extra_s.items()), sorted(clock.timeouts_in_a_row.items()), clock.timeouts,
    ])


def from_cache_entry(raw: bytes | None) -> tuple[int, bytes, Clock] | None:
    """(seq, hash, clock) of a cache entry; None for none, or one this pbm does not read (a miss,
    never an error)."""
    if raw is None:
        return None
    try:
        schema, seq, last_hash, settings, turn, started, paused, stops, vacations, extra, in_a_row, timeouts = codec.unpack(raw)
        if schema != CACHE_SCHEMA or type(seq) is not int or seq < 1 or not isinstance(last_hash, bytes):
            return None
        clock = Clock(
            None if settings is None else codec.converter.structure(settings, core.ClockSet),
            int(turn),
            int(started),
            None if paused is None else int(paused),
            tuple((int(a), None if b is None else int(b)) for a, b in stops),
            {int(seat): tuple((int(a), int(b)) for a, b in spans) for seat, spans in vacations},
            {int(seat): int(seconds) for seat, seconds in extra},
            {int(seat): int(count) for seat, count in in_a_row},
            tuple((int(at), int(seat), int(of_turn)) for at, seat, of_turn in timeouts),
        )
    except (codec.DecodeError, ValueError, TypeError, KeyError, AttributeError, cattrs.errors.CattrsError):
        return None
    return seq, last_hash, clock


def merged(spans: Iterable[tuple[int, int | None]]) -> list[tuple[int, int | None]]:
    """Overlapping (from, to) spans joined, in order; to None is open-ended."""
    out: list[list[int | None]] = []
    for start, end in sorted(spans, key=lambda span: span[0]):
        if out and (out[-1][1] is None or start <= out[-1][1]):
            if out[-1][1] is not None:
                out[-1][1] = None if end is None else max(out[-1][1], end)
            continue
        out.append([start, end])
    return [(a, b) for a, b in out]

