"""Verification of a log: seqs, hash chain, seed commitment, deals and re-adjudication. Read-only.

Re-adjudication re-decides every recorded command on the state before it, with the rng the
command path used (core.Table.decide: Rng(seed, seq of the command's first event), plus the
SeedRevealed it appends when the game ends) and requires exactly the recorded events. The opening
events are re-derived with game.setup and Rng(seed, 1, salts), as core.table.new_table does; in a
game whose deal waited for late salts (core.salts), the salts' order is checked first (commitment,
then every salt, then SaltsClosed, then the deal) and the deal is re-derived at its own first seq
with the key of those salts, as core.Table.salted does (a silent seat's salt derived from the
seed, so a server that chose one freely fails there). Without the
seed (a game still running) a command that draws randomness cannot be re-decided: it is reported
as unchecked, not as a failure.
"""

from __future__ import annotations

from typing import Any

import attrs

import core
from core.contract import SHELL_EVENTS
from core.salts import order_problems, salting_of, seats_text
from core.table import Table
from events import codec
from replays.log import BadLog, Log

OK, FAIL, NOTE = "ok", "FAIL", "note"


@attrs.frozen
class Finding:
    status: str  # OK, FAIL or NOTE (a check that could not be made, or a fact worth knowing)
    check: str
    text: str
    seq: int | None = None

    def line(self) -> str:
        where = "" if self.seq is None else f"seq {self.seq}: "
        return f"{self.status:<4} {self.check}: {where}{self.text}"


@attrs.frozen
class Ruling:
    """One recorded command re-decided: legal (and giving exactly the recorded events) or not."""

    seq: int
    count: int
    seat: int | None
    move: str
    status: str  # OK, FAIL, or NOTE when it could not be re-decided without the seed
    reason: str


@attrs.frozen
class Report:
    source: str
    findings: list[Finding]
    rulings: list[Ruling]

    @property
    def ok(self) -> bool:
        return all(f.status != FAIL for f in self.findings)

    @property
    def first_bad_seq(self) -> int | None:
        bad = [f.seq for f in self.findings if f.status == FAIL and f.seq is not None]
        return min(bad) if bad else None

    def lines(self) -> list[str]:
        lines = [f.line() for f in self.findings]
        if self.ok:
            lines.append(f"verified {self.source}: every check passed")
        else:
            first = self.first_bad_seq
            lines.append(f"NOT verified {self.source}" + ("" if first is None else f": first bad seq {first}"))
        return lines


def verify(log: Log, seed: int | None = None) -> Report:
    """Every check on `log`. `seed`: the secret seed of a running game (an operator's audit)."""
    findings: list[Finding] = []
    problems = log.integrity()
    bad_seqs = [(s, p) for s, p in problems if p.startswith(("out of order", "belongs to"))]
    findings.append(_first_problem("seqs", bad_seqs, f"0 to {log.last_seq}, contiguous, one game id ({log.game_id})"))
    chain = [(s, p) for s, p in problems if (s, p) not in bad_seqs]
    findings.append(_first_problem("hash chain", chain, f"{len(log.envelopes)} links, every hash matches its event"))
    findings.append(Finding(OK, "rules", f"{log.game.slug} rules version {log.started.rules_version} (this pbm's)"))
    if problems:
        findings.append(Finding(NOTE, "re-adjudication", "not done: the log is not intact"))
        return Report(log.source, findings, [])
    rulings: list[Ruling] = []
    try:
        seed, seed_finding = _seed(log, seed)
        findings.append(seed_finding)
        findings.extend(_salts(log))
        findings.append(_opening(log, seed))
        rulings = _rulings(log, seed)
        findings.extend(_commands_finding(log, rulings, seed))
        findings.append(_outcome(log))
    except BadLog as error:  # a log whose events cannot even be folded
        findings.append(Finding(FAIL, "replay", error.problem, error.seq))
    return Report(log.source, findings, rulings)


def _first_problem(check: str, problems: list[tuple[int, str]], fine: str) -> Finding:
    if not problems:
        return Finding(OK, check, fine)
    seq, problem = problems[0]
    more = f" ({len(problems) - 1} more after it)" if len(problems) > 1 else ""
    return Finding(FAIL, check, problem + more, seq)


def _seed(log: Log, secret: int | None) -> tuple[int | None, Finding]:
    commitment = log.started.seed_commitment
    reveals = [i for i, e in enumerate(log.events) if isinstance(e, core.SeedRevealed)]
    if len(reveals) > 1 or (reveals and reveals[0] != log.last_seq):
        return None, Finding(FAIL, "seed", "the seed is revealed before the end of the log", reveals[0])
    try:
        seed = log.revealed_seed
    except BadLog as error:
        return None, Finding(FAIL, "seed", error.problem, error.seq)
    if seed is not None:
        if core.commitment(seed) != commitment:
            return None, Finding(FAIL, "seed", f"the revealed seed does not match the commitment {commitment[:16]}…", log.last_seq)
        return seed, Finding(OK, "seed", f"the revealed seed matches the commitment {commitment[:16]}…")
    if secret is not None:
        if core.commitment(secret) != commitment:
            return None, Finding(FAIL, "seed", "the secret seed given does not match the commitment", 0)
        return secret, Finding(OK, "seed", "not revealed yet; the secret seed given matches the commitment")
    if log.table().outcome is not None:
        return None, Finding(FAIL, "seed", "the game is over but its seed was never revealed", log.last_seq)
    return None, Finding(NOTE, "seed", "not revealed yet (the game is running): random outcomes cannot be checked")


def _salts(log: Log) -> list[Finding]:
    """The late salts' order (none for a game dealt at creation): the seed committed before any
    salt was given, and every salt in before the deal."""
    salting = salting_of(log.events)
    if salting is None:
        return []
    problems = order_problems(log.events)
    if problems:
        seq, problem = problems[0]
        return [Finding(FAIL, "salts", problem, seq)]
    if salting.waiting:
        return [Finding(NOTE, "salts", f"the deal still waits for {seats_text(salting.missing)}; the seed was committed at seq 0, before every salt")]
    silent = f"; silent at the deadline: {seats_text(salting.silent)}" if salting.silent else ""
    if salting.seeded:  # their salts are checked with the deal ("opening"), once the seed is known
        silent += ", salted from the committed seed"
    elif salting.silent:
        silent += " (an old log: they add nothing to the key)"
    return [Finding(OK, "salts", f"the seed was committed at seq 0, before the {len(salting.given)} salts; the deal came after them{silent}")]


def deal_start(events: list[Any]) -> int:
    """The seq of the opening deal's first event: 1, or right after SaltsClosed when it waited."""
    return next((seq + 1 for seq, event in enumerate(events) if isinstance(event, core.SaltsClosed)), 1)


def _opening(log: Log, seed: int | None) -> Finding:
    first_command = next((first for first, _count in log.commands()), len(log.events))
    salting = salting_of(log.events)
    if salting is not None and salting.waiting:
        return Finding(NOTE, "opening", "not dealt yet: the deal waits for the players' salts")
    start = deal_start(log.events)
    # BotsSeated says who is a program and ClockSet what the clock is, not what the rules dealt:
    # the shell's events are no part of the setup.
    recorded = [e for e in log.events[start:first_command] if not isinstance(e, SHELL_EVENTS)]
    started = log.started
    if started.fixed_deal:
        return Finding(NOTE, "opening", f"seqs 1 to {first_command - 1} are a deal given at creation, not drawn from the seed")
    rng = log.table(start - 1, seed).rng_at(start) if seed is not None else core.rng.NoRng()
    try:
        derived = list(log.game.setup(started.players, dict(started.options), None, rng))
    except ValueError as error:
        if seed is None:
            return Finding(NOTE, "opening", "not checked: the deal draws from the seed, which is not revealed")
        return Finding(FAIL, "opening", f"setup refuses this game's start: {error}", 0)
    mismatch = _mismatch(derived, recorded, 0)
    if mismatch is not None:  # name the seq in the log, not the index among the dealt events
        seqs = [seq for seq in range(start, first_command) if not isinstance(log.events[seq], SHELL_EVENTS)]
        index, what = mismatch
        mismatch = (seqs[index] if index < len(seqs) else first_command, what)
    if mismatch is None:
        source = "the seed" if seed is not None else "the rules (no randomness)"
        if seed is not None and salting is not None:
            source = "the seed and the players' salts"
            if salting.seeded:
                source += f" (the silent salts of {seats_text(salting.seeded)} derived from the revealed seed)"
        return Finding(OK, "opening", f"seqs {start} to {first_command - 1} re-derived from {source}")
    seq, what = mismatch
    return Finding(FAIL, "opening", f"the deal is not the one the seed gives ({what})", seq)


def _rulings(log: Log, seed: int | None) -> list[Ruling]:
    rulings = []
    for first, count in log.commands():
        env = log.envelopes[first]
        before = log.table_before(first)
        table = Table(log.game, before.events, before.state, seed)
        rulings.append(_ruling(log, table, first, count, env.actor, env.command))
        if rulings[-1].status == FAIL:
            break  # the states after a bad command prove nothing more
    return rulings


def _ruling(log: Log, table: Table, first: int, count: int, seat: int | None, move: str) -> Ruling:
    def ruling(status: str, reason: str, seq: int = first) -> Ruling:
        return Ruling(seq, count, seat, move, status, reason)

    if seat is None:
        return ruling(FAIL, "a command without a seat")
    try:
        derived = table.decide(seat, move)
    except core.IllegalMove as refusal:
        return ruling(FAIL, f"illegal: {refusal}")
    except Exception as error:  # NoRng's refusal, or a forged state the rules trip over
        if table.seed is None and isinstance(error, ValueError):
            return ruling(NOTE, "legal so far; its random outcome needs the seed, which is not revealed")
        return ruling(FAIL, f"cannot be re-decided: {type(error).__name__}: {error}")
    mismatch = _mismatch(derived, log.events[first : first + count], first)
    if mismatch is not None:
        seq, what = mismatch
        return ruling(FAIL, f"re-deciding it gives other events ({what})", seq)
    for offset, event in enumerate(log.events[first : first + count]):
        actor = log.envelopes[first + offset].actor
        expected = None if isinstance(event, core.SeedRevealed) else seat
        if actor != expected:
            return ruling(FAIL, f"recorded actor {actor!r}, the command's is {expected!r}", first + offset)
    return ruling(OK, "legal, and gives exactly the recorded events")


def _mismatch(derived: list[Any], recorded: list[Any], first: int) -> tuple[int, str] | None:
    """(seq, what) of the first difference between derived and recorded events, None if equal."""
    for offset, (mine, theirs) in enumerate(zip(derived, recorded)):
        if codec.unstructure(mine) != codec.unstructure(theirs):
            if mine.kind != theirs.kind:
                return first + offset, f"{mine.kind} where the log has {theirs.kind}"
            return first + offset, f"a different {mine.kind}"
    if len(derived) != len(recorded):
        seq = first + min(len(derived), len(recorded))
        return seq, f"{len(derived)} events where the log has {len(recorded)}"
    return None


def _commands_finding(log: Log, rulings: list[Ruling], seed: int | None) -> list[Finding]:
    bad = [r for r in rulings if r.status == FAIL]
    if bad:
        r = bad[0]
        return [Finding(FAIL, "re-adjudication", f"seat {r.seat}'s {r.move!r}: {r.reason}", r.seq)]
    unchecked = [r for r in rulings if r.status == NOTE]
    done = len(rulings) - len(unchecked)
    found = [
        Finding(
            OK,
            "re-adjudication",
            f"{done} of {len(rulings)} commands re-decided on the state before them give exactly the recorded events"
            + (", every random outcome re-derived from the seed" if seed is not None else ""),
        )
    ]
    if unchecked:
        found.append(Finding(NOTE, "re-adjudication", f"{len(unchecked)} commands draw randomness and wait for the seed's reveal", unchecked[0].seq))
    return found


def _outcome(log: Log) -> Finding:
    outcome = log.table().outcome
    if outcome is None:
        return Finding(NOTE, "outcome", f"running: waiting for {', '.join(f'seat {s}' for s in log.table().to_act) or 'nobody'}")
    winners = ", ".join(f"seat {s}" for s in outcome.winners) or "nobody"
    return Finding(OK, "outcome", f"won by {winners}, scores {list(outcome.scores)}")
