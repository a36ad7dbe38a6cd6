"""Telling a seat: its invitation to a new game (by mail only), its turn, a reminder, a timeout,
the game's end, a dispute the operator settled (its words and the audit, settled_message), a
rematch begun (its new seat), or the answer to a move it mailed. It composes the seat's message from the log (its redacted report, its hand, its moves,
its link, how to answer), sends it through the seat's channel (pbm.mail.outbox) and records the send before
the job is acknowledged. It never writes the log, never logs a token, an address or a webhook URL,
and never puts another seat's hidden cards in a message (it renders only this seat's view).

`notify_seat` is an rq job, named by its dotted path in workers/dispatch.py (workers must not
import pbm; rq imports this module when the job runs). The send is recorded under (game, seq, seat,
kind, and the note's digest when it has one) right after it happens: a job run again (rq's retry,
recovery after a worker died between the send and its acknowledgement) finds the record and sends
nothing.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from core.table import Table
from events import keys
from events.commands import Games, UnknownGame, UnreadableGame
from events.envelope import Envelope
from events.people import People
from events.seats import SeatError, Seats
from events.orders import Orders
from events.disputes import Disputes
from pbm import disputes, seating, times, turn_report
from pbm.clock_control import now_ms
from pbm.people import link as person_page_link
from pbm.mail import outbox
from pbm.mail.html_part import html_part
from pbm.names import Names
from pbm.result import result_text
from pbm.view_text import moves_lines, view_lines

log = logging.getLogger("pbm.mail.notify")
KINDS = ("invite", "turn", "reminder", "timeout", "end", "dispute", "rematch")  # a dispute's note is its id (pbm.disputes)

# {you}: how the seat is addressed, its name (or "seat N" when it has none or shares it); {others}:
# the other players; {site}: the server's public address
HEADLINES = {
    "invite": "{you}, the operator of {site} has invited you to {game}, with {others}.",
    "turn": "Your turn in {game}, {you}.",
    "reminder": "Reminder: {game} is waiting for your move, {you}.",
    "timeout": "Your time ran out in {game}, {you}: the autopilot moved for you.",
    "end": "Game over: {game}.",
    "rematch": "A rematch has begun: {game}, {you}. Everyone accepted; your seat in it is below.",
}
# {title}: the game's name; {others}: the other players, by name ("Bob and Cy (bot)")
SUBJECTS = {
    "invite": "Invitation: {title} with {others} ({game_id})",
    "turn": "Your turn: {title} with {others} ({game_id})",
    "reminder": "Reminder, your turn: {title} with {others} ({game_id})",
    "timeout": "Timed out: {title} with {others} ({game_id})",
    "end": "Game over: {title} with {others} ({game_id})",
    "rematch": "Rematch: {title} with {others} ({game_id})",
}
FAIR_DEALING = [
    "Fair dealing: before the first card was dealt the server committed to a secret seed, which",
    "decides every deal; it is revealed when the game ends, and `pbm replay verify game.pbmlog` on",
    "the game's replay file checks every deal and move against it, on any machine.",
]
# What core's story says of the seed (core.table's narration): the mail keeps it for its footer.
COMMITTED = re.compile(r" \(seed commitment ([0-9a-f]+)…\)$")
REVEALED = "the seed is revealed: "
NO_ZONE = "(times in UTC: no time zone is set for you; the operator can set yours)"


def notify_seat(game_id: str, seat: int, kind: str, seq: int, note: str = "") -> bool:
    """Tell `seat` of `game_id` about `kind` at `seq` through its channel, once; True if sent now.

    Nothing is sent (False) when it was sent before, when the seat has no channel, or when the
    message no longer holds: a turn or reminder for a seq the game has moved past, an end before the
    end. A failed send raises outbox.SendFailed (one line, no address), and rq retries it later.
    """
    if kind not in KINDS:
        raise ValueError(f"no notification kind {kind!r} (kinds: {', '.join(KINDS)})")
    from workers.jobs import current_connection, games_for

    return tell(games_for(current_connection()), game_id, seat, kind, seq, note)


def sent_field(seq: int, seat: int, kind: str, note: str = "") -> str:
    """The record of one message. A note makes a message of its own (a turn's reminders a day and
    two hours before its deadline are two sends); a job run again has the same note, and sends once."""
    field = f"{seq}:{seat}:{kind}"
    return f"{field}:{hashlib.sha256(note.encode()).hexdigest()[:12]}" if note else field


def already_sent(games: Games, game_id: str, field: str) -> bool:
    return bool(games.store.redis.hexists(keys.sent(game_id), field))


def record_sent(games: Games, game_id: str, field: str) -> None:
    games.store.redis.hset(keys.sent(game_id), field, time.time_ns() // 1_000_000)


def tell(games: Games, game_id: str, seat: int, kind: str, seq: int, note: str = "") -> bool:
    field = sent_field(seq, seat, kind, note)
    where = f"game {game_id} seat {seat} {kind} at {seq}"
    if already_sent(games, game_id, field):
        log.info("notify %s: sent before, not again", where)
        return False
    try:
        table = games.table(game_id)
    except (UnknownGame, UnreadableGame) as error:
        log.info("notify %s: not sent (%s)", where, type(error).__name__)
        return False
    if not holds(table, seat, kind, seq):
        log.info("notify %s: not sent, the game is at %s now", where, table.seq)
        return False
    try:
        reach = Seats(games.store.redis).reach(game_id, seat)
    except SeatError as error:  # this worker's PBM_SECRET_KEY is not the server's
        raise outbox.SendFailed(str(error)) from None
    if not reach.get("email") and (kind == "invite" or not reach.get("webhook")):  # an invitation is a mail
        log.info("notify %s: not sent, the seat has no channel", where)
        return False
    name = seating.names(Seats(games.store.redis), game_id, table, seat)
    if kind == "dispute":
        channel = deliver(reach, kind, settled_message(games, table, game_id, seat, note, reach.get("token"), name))
        record_sent(games, game_id, field)
        log.info("notify %s: sent by %s", where, channel)
        return True
    person_link, tz = person_of(games, game_id, seat)
    clock = games.table_with_clock(game_id)[1]
    due = clock.due_ms(seat) if clock.settings is not None and seat in table.to_act and seat not in table.bots else None
    salts_due = clock.salts_due_ms(table.waiting_for_salts[0]) if table.waiting_for_salts else None
    message = compose(table, games.store.since_move(game_id, seat, table.seq - 1), game_id, seat, kind, note, reach.get("token"), person_link=person_link,
                      notes=Orders(games.store).notes(game_id, seat), name=name, due_ms=due, tz=tz, salts_due_ms=salts_due)
    channel = deliver(reach, kind, message)
    record_sent(games, game_id, field)
    log.info("notify %s: sent by %s", where, channel)
    return True


def person_of(games: Games, game_id: str, seat: int) -> tuple[str | None, str | None]:
    """The link to the page of the person who holds the seat (every game of theirs) and their time
    zone, each None when nobody holds it or they have none."""
    people = People(games.store.redis)
    holder = people.holder(game_id, seat)
    if holder is None:
        return None, None
    token, person = people.token(holder), people.get(holder)
    return None if token is None else person_page_link(None, token), None if person is None else person.tz


def holds(table: Table, seat: int, kind: str, seq: int) -> bool:
    """Whether a `kind` message about `seq` still says something true."""
    table.check_seat(seat)
    if kind == "end":
        return table.outcome is not None
    if kind in ("timeout", "dispute", "rematch"):
        return True
    if kind == "invite":
        return table.outcome is None
    return table.outcome is None and table.seq == seq and seat in table.to_act


def deliver(reach: dict[str, str], kind: str, message: dict[str, Any]) -> str:
    """Send through the seat's channel (mail first, else its webhook); the channel's name."""
    if reach.get("email"):
        reply_to = message["reply_to"]
        outbox.send_mail(outbox.new_mail(reach["email"], message["subject"], message["text"], reply_to, message.get("in_reply_to"), html=message.get("html")))
        return "mail"
    outbox.send_webhook(reach["webhook"], reach.get("webhook_secret", ""), kind, message["payload"])
    return "webhook"


def fair_dealing_apart(report: Sequence[str]) -> tuple[list[str], list[str]]:
    """The report without the seed's commitment and reveal, which a player needs only to check the
    deal, and those facts for the mail's fair-dealing footer."""
    kept, facts = [], []
    for line in report:
        if line.startswith(REVEALED):
            facts.append(f"The seed, revealed: {line[len(REVEALED):]}")
            continue
        committed = COMMITTED.search(line)
        if committed:
            facts.append(f"The server's commitment to it: {committed.group(1)}…")
            line = line[: committed.start()]
        kept.append(line)
    return kept, facts


def compose(
    table: Table,
    envelopes: Sequence[Envelope],
    game_id: str,
    seat: int,
    kind: str,
    note: str = "",
    token: str | None = None,
    headline: str | None = None,
    report: Sequence[str] | None = None,
    person_link: str | None = None,
    notes: Sequence[Mapping[str, Any]] = (),
    name: Names | None = None,
    due_ms: int | None = None,
    tz: str | None = None,
    now: int | None = None,
    salts_due_ms: int | None = None,
) -> dict[str, Any]:
    """The seat's message: subject, text and its HTML alternative (for mail) and payload (for a
    webhook), with its reply address. Only `seat`'s own view and redacted report go in. `name`:
    how `seat` reads the seats (seating.names); without it, by number. The payload's fields keep
    seat numbers. `due_ms`: the seat's deadline, told in its person's time zone `tz` (else UTC,
    said so) as seen at `now` (default: the clock's now). While the opening deal waits for this
    seat's salt, the message says so, and until `salts_due_ms` (None: the clock is paused)."""
    name = name or Names(viewer=seat, bots=frozenset(table.bots))
    you = Names(name.names, bots=name.bots)(seat)  # how the seat is addressed: its own name
    view = table.view(seat)
    title = f"{game_id} ({table.game.title})"
    report = turn_report.since_last_move(table, envelopes, seat, notes, name) if report is None else list(report)
    link = None if token is None else seating.link(None, token)
    over = table.outcome is not None
    reply_to = None if token is None or over else outbox.answer_address(token)
    moves = view["legal_moves"]
    told, seed_facts = fair_dealing_apart(report)  # the payload keeps the report whole
    others = [name(other) for other in range(table.players) if other != seat]
    others_text = " and ".join(others) if len(others) < 3 else ", ".join(others[:-1]) + " and " + others[-1]
    written_ms = now_ms() if now is None else now
    lines = [headline or HEADLINES[kind].format(game=title, you=you, others=others_text or "nobody else", site=seating.public_url())]
    if note:
        lines.append(note)
    if due_ms is not None and not over:
        # A mail written late (a busy worker) may find the deadline passed: "was due ... ago".
        tense = "is" if due_ms >= written_ms else "was"
        lines.append(f"Your move {tense} due {times.when_text(due_ms, written_ms, tz)}." + ("" if tz else f" {NO_ZONE}"))
    if seat in table.waiting_for_salts:
        lines += salt_lines(salts_due_ms, written_ms, tz, reply_to is not None)
    if kind == "invite":  # nobody has moved yet
        lines += ["", "So far:"]
    else:
        lines += ["", "Since your last move:" if told else "Nothing has happened since your last move."]
    lines += [f"  {line}" for line in told]
    lines.append("")
    lines += view_lines({**view, "legal_moves": []}, game_id, table.bots, name=name, options=dict(table.started.options))
    if moves:
        lines += moves_lines(view, more=None)
    lines.append("")
    if link:
        lines.append(f"Play now: {link}" if moves and not over else f"Your page: {link}")
    if over and token is not None:
        lines.append(f"Your replay, step by step: {seating.review_link(None, token)}")
    if person_link:
        lines.append(f"All your games: {person_link}")
    if reply_to and moves:
        lines += [
            "",
            "To answer by mail, reply to this message (it goes to your seat's own address) with",
            f"your move alone on the first line, for example: {moves[0]}",
            "Quoted lines (starting with '>') and everything after a signature line ('-- ') are ignored.",
        ]
    if reply_to and not over:
        lines += [
            "To leave orders for your coming turns instead, reply with one order a line, for example",
            "`next: MOVE` or `if CONDITION: MOVE` (they replace the orders you hold; the conditions of",
            f"this game: `pbm rules {table.game.slug}` or the rules page). Orders are never shown to other seats.",
        ]
    elif reply_to:
        lines += ["", "You will get a mail when it is your turn again; answer that one with your move."]
    elif not over and token is None:
        lines += ["", "(No link is kept for your seat: ask the operator for a fresh one with `pbm invite`.)"]
    if over or seed_facts:
        lines += [""] * (lines[-1] != "") + [*FAIR_DEALING, *seed_facts]
        if over and token is not None:
            lines += [
                f"Download the replay file from your replay page, or at {seating.replay_file_link(None, game_id, seat)}",
                "in the browser that opened the replay link (this address holds no secret; your link does),",
                "or with your seat's token as a bearer token: GET /api/me/export.",
            ]
    subject = SUBJECTS.get(kind, "{game_id}").format(game_id=game_id, title=table.game.title, others=others_text or "nobody else")
    if kind == "end" and table.outcome is not None:
        subject += f" ({result_text(view['game'], view['outcome'], view.get('loss') and name.text(view['loss']), name)})"
    payload = {
        "kind": kind,
        "game_id": game_id,
        "game": table.game.slug,
        "seat": seat,
        "seq": table.seq,
        "note": note,
        "report": report,
        "view": view,
        "url": link,
        "review_url": seating.review_link(None, token) if over and token is not None else None,
        "export_url": seating.replay_file_link(None, game_id, seat) if over and token is not None else None,
        "person_url": person_link,
        "reply_to": reply_to,
        "outcome": None if table.outcome is None else table.outcome.to_dict(),
    }
    return {"subject": subject, "text": "\n".join(lines) + "\n", "html": html_part(subject, lines, table.game.slug, view.get("hand")),
            "payload": payload, "reply_to": reply_to}


def salt_lines(due_ms: int | None, now: int, tz: str | None, by_mail: bool) -> list[str]:
    """What a seat the opening deal waits for is told: that it waits for their salt, how to give
    it and until when (docs/fairness.md)."""
    how = "on your page" + (", or by replying to this mail with `salt: ANY TEXT` on its first line" if by_mail else "")
    if due_ms is None:
        until = "The salts have no deadline yet: the game's clock is stopped (it starts once every seat is taken, or the operator resumes it)."
    else:
        until = (f"The cards are dealt once every salt is in, or {times.when_text(due_ms, now, tz)} at the latest"
                 " (the server salts for a seat that sent none)." + ("" if tz else f" {NO_ZONE}"))
    return [
        "",
        "The opening deal waits for your salt: any text, mixed with the secret seed the server committed to before any salt came in,",
        f"so neither the server nor a player can choose the deal. Give it {how}.",
        until,
    ]


def settled_message(games: Games, table: Table, game_id: str, seat: int, dispute_id: str, token: str | None, name: Names) -> dict[str, Any]:
    """The operator's settlement of a dispute, told to `seat`: their words and the audit report at
    the dispute's seq, as this seat may read it (while the game runs: its own view only, and the
    dispute's reason only if it is this seat's, since a reason may name its seat's cards)."""
    dispute = Disputes(games.store).one(game_id, dispute_id)
    if dispute.open:
        raise ValueError(f"dispute {dispute_id} of {game_id} is not settled")
    over = table.outcome is not None
    whose = "your" if dispute.seat == seat else f"{name(dispute.seat)}'s"
    report = disputes.audit_for(games, game_id, seat, dispute)
    lines = [f"The operator settled {whose} dispute at seq {dispute.seq} of {game_id} ({table.game.title}).", ""]
    if dispute.seat == seat or over:
        lines.append(f"The dispute: {dispute.reason}")
    lines += [f"The operator's words: {dispute.note}", ""]
    if token is not None:
        lines += [f"Step through the game yourself: {seating.review_link(None, token)}", ""]
    lines += [f"The audit report at seq {dispute.seq} (`pbm replay audit {game_id} --seq {dispute.seq}`, as your seat may read it):", "", report]
    shown = dispute.to_json()
    if dispute.seat != seat and not over:
        shown["reason"] = None
    payload = {"kind": "dispute", "game_id": game_id, "game": table.game.slug, "seat": seat, "seq": table.seq, "dispute": shown, "audit": report,
               "review_url": None if token is None else seating.review_link(None, token)}
    return {"subject": f"Dispute settled: {game_id}, seq {dispute.seq}", "text": "\n".join(lines) + "\n", "payload": payload, "reply_to": None}
