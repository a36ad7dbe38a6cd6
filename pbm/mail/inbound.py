"""Moves by mail: one RFC 5322 message in, one move through the command path, one answer out. It
is what `pbm mail-in` (an MTA's pipe) and `pbm mail-server` (SMTP) share. It never logs a token,
an address or a move's text (a move may be a card played face down), and a message without a
valid seat token is dropped without an answer, so nobody can learn which addresses exist.

The seat is the token in the recipient's plus address (pbm+<token>@example.org); the move is the
first line of the body that is not empty, quoted ('>'), an attribution ("On ... wrote:") or below
a signature ('-- '); plain text, HTML-only and multipart mail all work. The Message-ID is the
command id (hashed, kept to its seat), so a message delivered twice plays once and is answered
once. The answer goes to the seat's own channel (its e-mail address, else its webhook), never to
the message's From address.

A seat with an e-mail address plays only the mail that comes from it (PBM_MAIL_SENDER_CHECK, on
unless set to "off"): anyone copied on a reply holds the token in its address. The check reads the
From header, which a sender can write as they like: it stops a reply-all or a forwarded turn mail,
and a forger only where the MTA refuses mail that fails DMARC before it reaches pbm (docs/mail.md).
A mail from another address is refused, and that is told to the seat's own address.

A first line `salt: <text>` gives the seat's salt for a deal that waits for one (core.salts;
docs/fairness.md) instead of a move; like a move, it is never logged. A first line `dispute SEQ:
REASON` raises a dispute of that seq (events/disputes.py), kept beside the log for the operator.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

import attrs

import core
from core.bounds import MAX_MOVE_CHARS
from core.orders import is_order_text
from events import disputes, orders
from events.commands import CommandIdReused, Games, UnknownGame, UnreadableGame
from events.seats import NotASeat, OverAllowance, SeatError, Seats, parse
from events.store import NotPlayable
from pbm import clock_control, seating
from pbm.mail import notify, outbox

MAX_MESSAGE_BYTES = 1_000_000  # a reply with its quoted turn mail is a few KB; an attachment is refused
MAX_RECIPIENTS = 10
FLOOD_WINDOW_S = 600
MESSAGES_PER_WINDOW = 60  # per seat token (PBM_MAILS_PER_10MIN): past this, a flood is dropped unanswered
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc")
# "On Tue, 1 Dec 2026, pbm <pbm@example.org> wrote:", possibly cut before "wrote:" by a mail
# program's line wrapping (no game has a move starting with "On" followed by a date's digits).
_ATTRIBUTION = re.compile(r"^(.*\b(wrote|writes|schrieb|a écrit)\s*:|on\s.*\d.*)$", re.IGNORECASE)
_MESSAGE_ID = re.compile(r"<[!-;=?-~]{1,250}>")  # one <id@host>, quoted back in In-Reply-To
_SALT_LINE = re.compile(r"^salt:\s*(.*)$", re.IGNORECASE)  # no game has a move starting "salt:"
# "dispute 14: the trick went to the wrong seat" (no game has a move starting "dispute")
_DISPUTE_LINE = re.compile(r"^dispute\b\s*(?:seq\s*)?(\d*)\s*[:,.-]?\s*(.*)$", re.IGNORECASE)
_END_OF_REPLY = re.compile(r"^(-{2,}\s*(original message|forwarded message)|_{10,}|from:\s)", re.IGNORECASE)


@attrs.frozen
class Received:
    status: str  # "played", "refused", "dropped"
    reason: str  # one line, safe for a log: no token, address or move text
    game_id: str | None = None
    seat: int | None = None
    answered: bool = False

    def line(self) -> str:
        where = "" if self.game_id is None else f" (game {self.game_id}, seat {self.seat})"
        return f"mail-in: {self.status}{where}: {self.reason}" + ("; answered" if self.answered else "")


SENDER_CHECK_ENV = "PBM_MAIL_SENDER_CHECK"
_SWITCH = {"on": True, "1": True, "yes": True, "true": True, "off": False, "0": False, "no": False, "false": False}


class MailSettingError(ValueError):
    """A mail setting in the environment that pbm cannot read: one line naming it."""


def sender_check() -> bool:
    """Whether a seat with an e-mail address plays only mail from that address
    (PBM_MAIL_SENDER_CHECK: on by default; "off" to play any mail that carries the token)."""
    given = os.environ.get(SENDER_CHECK_ENV, "on")
    switch = _SWITCH.get(given.strip().lower())
    if switch is None:
        raise MailSettingError(f"{SENDER_CHECK_ENV} must be on or off, not {given[:40]!r}")
    return switch


def mail_limit() -> int:
    """How many messages one seat may send in FLOOD_WINDOW_S (PBM_MAILS_PER_10MIN, default 60)."""
    try:
        return max(1, int(os.environ.get("PBM_MAILS_PER_10MIN", MESSAGES_PER_WINDOW)))
    except ValueError:
        return MESSAGES_PER_WINDOW


def receive(games: Games, raw: bytes, recipients: Sequence[str] = ()) -> Received:
    """Play the move one message carries and answer it; what happened (`.line()` for the log).
    Redis errors pass through: the message was not handled, and its sender should try again."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return Received("dropped", f"the message is over {MAX_MESSAGE_BYTES:,} bytes")
    try:  # everything read from the headers, at once: the email package raises many kinds on bad ones
        message = email.message_from_bytes(raw, policy=email.policy.default)
        auto = str(message.get("Auto-Submitted", "no")).strip().lower()
        sender = parseaddr(str(message.get("From", "")))[1].lower()
        senders = [address.lower() for _name, address in getaddresses([str(value) for value in message.get_all("From", [])])]
        addresses = header_addresses(message)
        subject = "".join(char for char in " ".join(str(message.get("Subject", "")).split()) if char.isprintable())[:200]
        message_id = " ".join(str(message.get("Message-ID", "")).split())
    except Exception as error:
        return Received("dropped", f"not a readable mail message ({type(error).__name__})")
    token = seat_token([*recipients, *addresses])
    if token is None:
        return Received("dropped", "no seat token in its recipient's address")
    # Checked before it is counted: a forged token writes nothing, not even a flood counter.
    check = Seats(games.store.redis).check(token, FLOOD_WINDOW_S, mail_limit())
    try:
        if check is None:
            raise NotASeat()
        check.run()
    except NotASeat:
        return Received("dropped", "its seat token is not valid (forged, replaced or of a deleted game)")
    except OverAllowance:
        return Received("dropped", f"more than {mail_limit()} messages to this seat in {FLOOD_WINDOW_S // 60} minutes", check.game_id, check.seat)
    game_id, seat = check.game_id, check.seat
    if auto != "no" or sender == outbox.mail_from()[1].lower():
        return Received("dropped", "an automatic message (Auto-Submitted, or pbm's own): never answered", game_id, seat)
    command_id = mail_command_id(seat, message_id, raw)
    in_reply_to = message_id if _MESSAGE_ID.fullmatch(message_id) else None
    own = Seats(games.store.redis).contact(game_id, seat).get("email") if sender_check() else None
    if own and senders != [own.strip().lower()]:
        # Answered to the seat's own address (as every answer is), never to the sender: the seat
        # learns that a mail from elsewhere carried its link, the sender learns nothing.
        return answer(games, game_id, seat, command_id, "refused", f"its sender is not the seat's address ({SENDER_CHECK_ENV})", subject, in_reply_to,
                      detail="it came from another address than this seat's, and moves are played only from the address this mail came to")
    try:
        move = first_move_line(body_text(message))
    except Exception as error:  # a body in a charset or encoding Python cannot read
        return Received("dropped", f"its body cannot be read ({type(error).__name__})", game_id, seat)
    if move is None:
        return answer(games, game_id, seat, command_id, "refused", "no move found: write it alone on the first line", subject, in_reply_to)
    salt = _SALT_LINE.match(move)
    if salt is not None:
        return give_salt(games, game_id, seat, command_id, salt.group(1), subject, in_reply_to)
    dispute = _DISPUTE_LINE.match(move)
    if dispute is not None:
        return raise_dispute(games, game_id, seat, command_id, dispute.group(1), dispute.group(2), subject, in_reply_to)
    if is_order_text(move):
        return leave_orders(games, game_id, seat, command_id, reply_lines(body_text(message)), subject, in_reply_to)
    try:
        clock_control.take_back(games, game_id, seat, games.table(game_id))  # a seat the autopilot plays
        submitted = games.submit(game_id, seat, move, command_id=command_id)
    except (core.IllegalMove, CommandIdReused) as refusal:
        # The refusal quotes the move, which the log must not show: the answer alone carries it.
        if isinstance(refusal, CommandIdReused):  # an IllegalMove too: asked first
            said = "its Message-ID was used for another move"
        elif isinstance(refusal, clock_control.PlayedByBot):
            said = "a bot plays the seat now"
        else:
            said = "the move was refused by the rules"
        return answer(games, game_id, seat, command_id, "refused", said, subject, in_reply_to, move=move, detail=str(refusal))
    except (NotPlayable, UnknownGame, UnreadableGame) as error:
        return Received("dropped", f"the game cannot be played: {type(error).__name__}", game_id, seat)
    said = f"played at seq {submitted.seq}" + (" (this message was delivered before: nothing new)" if submitted.duplicate else "")
    return answer(games, game_id, seat, command_id, "played", said, subject, in_reply_to, move=move)


def give_salt(games: Games, game_id: str, seat: int, command_id: str, salt: str, subject: str, in_reply_to: str | None) -> Received:
    """A mailed salt through the command path; answered like a move (a second delivery of the
    same message is refused as a second salt, and answered once)."""
    try:
        games.give_salt(game_id, seat, salt)
    except core.IllegalMove as refusal:
        return answer(games, game_id, seat, command_id, "refused", "the salt was refused", subject, in_reply_to, detail=str(refusal))
    except (NotPlayable, UnknownGame, UnreadableGame) as error:
        return Received("dropped", f"the game cannot be played: {type(error).__name__}", game_id, seat)
    return answer(games, game_id, seat, command_id, "salted", "salt given", subject, in_reply_to)


def raise_dispute(games: Games, game_id: str, seat: int, command_id: str, seq: str, reason: str, subject: str, in_reply_to: str | None) -> Received:
    """A mailed dispute (`dispute SEQ: REASON`), kept beside the log for the operator; answered
    like a move. The Message-ID is its command id: a message delivered twice raises it once."""
    try:
        if not seq or len(seq) > 9:
            raise disputes.BadDispute("write `dispute SEQ: REASON`, SEQ the number of the event in dispute (your replay page shows it)")
        dispute, duplicate = disputes.raise_dispute(games, game_id, seat, int(seq), reason, command_id)
    except core.IllegalMove as refusal:  # BadDispute names what is wrong; the log line does not quote it
        return answer(games, game_id, seat, command_id, "refused", "the dispute was refused", subject, in_reply_to, detail=str(refusal))
    except (NotPlayable, UnknownGame, UnreadableGame) as error:
        return Received("dropped", f"the game cannot be played: {type(error).__name__}", game_id, seat)
    said = f"dispute {dispute.id} raised at seq {dispute.seq}" + (" (this message was delivered before: nothing new)" if duplicate else "")
    return answer(games, game_id, seat, command_id, "disputed", said, subject, in_reply_to,
                  headline=f"Your dispute of seq {dispute.seq} in {game_id} is with the operator (dispute {dispute.id}).",
                  note="When the operator settles it, every seat is sent the audit report at that seq with the operator's words.")


def leave_orders(games: Games, game_id: str, seat: int, command_id: str, lines: list[str], subject: str, in_reply_to: str | None) -> Received:
    """A reply whose lines are orders: they become the seat's orders (all or none), and the
    answer lists them. A message delivered twice sets them once (its answer is recorded)."""
    if notify.already_sent(games, game_id, f"answer:{command_id}"):
        return Received("ordered", "orders set; answered before", game_id, seat)
    texts = [line for line in lines if is_order_text(line)]
    try:
        held = orders.leave(games, game_id, seat, texts)
    except core.IllegalMove as refusal:  # core.orders.BadOrder names the order; the log line does not
        return answer(games, game_id, seat, command_id, "refused", "the orders were refused", subject, in_reply_to, detail=str(refusal))
    except (NotPlayable, UnknownGame, UnreadableGame) as error:
        return Received("dropped", f"the game cannot be played: {type(error).__name__}", game_id, seat)
    listed = [f"  {n}. {order.text}" for n, order in enumerate(held, 1)] or ["  (none left: every order has fired)"]
    return answer(games, game_id, seat, command_id, "ordered", f"{len(texts)} orders set", subject, in_reply_to,
                  headline=f"Your orders in {game_id} are set; you hold now:", note="\n".join(listed))


def answer(
    games: Games,
    game_id: str,
    seat: int,
    command_id: str,
    status: str,
    reason: str,
    subject: str,
    in_reply_to: str | None,
    move: str | None = None,
    detail: str | None = None,
    headline: str | None = None,
    note: str = "",
) -> Received:
    """Tell the seat what became of its mail, once per message (the send is recorded under its
    command id, so a message delivered twice is answered once)."""
    field = f"answer:{command_id}"
    if notify.already_sent(games, game_id, field):
        return Received(status, reason + "; answered before", game_id, seat)
    try:
        reach = Seats(games.store.redis).reach(game_id, seat)
    except SeatError as error:  # this process's PBM_SECRET_KEY is not the server's
        return Received(status, f"{reason}; the answer was not sent ({error})", game_id, seat)
    if not reach.get("email") and not reach.get("webhook"):
        return Received(status, reason + "; the seat has no channel to answer through", game_id, seat)
    shown = "" if move is None else repr(move[:MAX_MOVE_CHARS])
    if headline is not None:
        kind = status
    elif status == "played":
        headline = f"Your move {shown} in {game_id} is played."
        kind = "played"
    elif status == "salted":
        headline = f"Your salt for {game_id} is in: it is mixed with the seed into every deal."
        kind = "salted"
    else:
        headline = f"Your mail to {game_id} was not played: {detail or reason}" + (f" (the move: {shown})" if shown else "")
        kind = "refused"
    try:
        table = games.table(game_id)
        name = seating.names(Seats(games.store.redis), game_id, table, seat)
        if status != "played":  # a refusal may quote the rules' words for seats ("it is not seat 1's turn")
            headline = name.text(headline)
        message = notify.compose(table, games.store.since_move(game_id, seat, table.seq - 1), game_id, seat, "turn", note, token=reach.get("token"), headline=headline, name=name)
        message["subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject or game_id}"
        message["in_reply_to"] = in_reply_to
        message["payload"]["kind"] = kind
        notify.deliver(reach, kind, message)
    except outbox.SendFailed as failed:
        return Received(status, f"{reason}; the answer was not sent ({failed})", game_id, seat)
    notify.record_sent(games, game_id, field)
    return Received(status, reason, game_id, seat, answered=True)


def mail_command_id(seat: int, message_id: str, raw: bytes) -> str:
    """The command id of a mailed move: its Message-ID hashed (any length, any bytes), kept to
    its seat; a message without one is known by its bytes."""
    name = message_id.encode("utf-8", "surrogateescape") if message_id else raw
    return f"mail:{seat}:{hashlib.sha256(name).hexdigest()[:32]}"


def header_addresses(message: EmailMessage) -> list[str]:
    found = []
    for header in RECIPIENT_HEADERS:
        for value in message.get_all(header, []):
            found += [address for _name, address in getaddresses([str(value)])]
    return found


def seat_token(addresses: Iterable[str]) -> str | None:
    """The first well-formed seat token in a plus address (pbm+<token>@domain) among `addresses`."""
    for address in list(addresses)[: MAX_RECIPIENTS * 4]:
        local = address.strip().strip("<>").rpartition("@")[0]
        _base, plus, token = local.partition("+")
        if plus and parse(token) is not None:
            return token.lower()
    return None


class _Text(HTMLParser):
    """An HTML body's text, one line per block, without what it quotes (<blockquote>)."""

    BLOCKS = {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "table", "pre"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.quoted = 0
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "blockquote":
            self.quoted += 1
        elif tag in ("style", "script", "head", "title"):
            self.hidden += 1
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "blockquote":
            self.quoted = max(0, self.quoted - 1)
        elif tag in ("style", "script", "head", "title"):
            self.hidden = max(0, self.hidden - 1)
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.quoted and not self.hidden:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def body_text(message: EmailMessage) -> str:
    """The message's text: its plain-text body, else its HTML body as text."""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    content = part.get_content()
    if not isinstance(content, str):
        return ""
    return html_text(content) if part.get_content_subtype() == "html" else content


def first_move_line(text: str) -> str | None:
    """The first line that is not empty, quoted, an attribution or past the end of the reply."""
    lines = reply_lines(text)
    return lines[0] if lines else None


def reply_lines(text: str) -> list[str]:
    """The reply's own lines: not empty, quoted or an attribution, up to the end of the reply."""
    found = []
    for line in text.splitlines():
        if line.rstrip() in ("--", "-- ") or _END_OF_REPLY.match(line.strip()):
            break
        stripped = " ".join(line.replace("\u00a0", " ").split())
        if not stripped or stripped.startswith(">") or _ATTRIBUTION.match(stripped):
            continue
        found.append(stripped)
    return found
