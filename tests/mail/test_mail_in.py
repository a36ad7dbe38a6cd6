"""Moves by mail with real parts: the turn mail a real worker sent to a real SMTP server (aiosmtpd)
is answered, from its Reply-To address, through `pbm mail-in` and through `pbm mail-server`; the
log shows the move, the answer comes back by mail. Plain, HTML-only and multipart replies; a
message delivered twice; a refusal with its reason and the moves."""

from __future__ import annotations

import queue
import signal
import smtplib
import subprocess
import os
import sys
import threading
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from events.commands import Games
from pbm.mail import inbound as mail_in
from pbm.mail.inbound import first_move_line
from tests.mail.conftest import run_pbm, text_of
from tests.mail.test_notify import ANN, create, people_and_bots, work_in_process

pytestmark = pytest.mark.usefixtures("clean_notify_queue")


@pytest.fixture
def turn(dispatching: Games, smtp_sink, queue_client) -> dict:
    """Ann's first turn mail, sent by a real worker: the game, her token and the mail."""
    created = create(dispatching, people_and_bots({"email": ANN}))
    work_in_process(queue_client, dispatching.store)
    [mail] = smtp_sink.to(ANN)
    return {"game_id": created["game_id"], "token": created["seats"][0]["token"], "mail": mail}


def reply(mail: EmailMessage, move: str, style: str = "plain") -> EmailMessage:
    """What a mail program makes of Ann's answer: her move on top, the turn mail quoted below."""
    quoted = "\n".join("> " + line for line in text_of(mail).splitlines())
    text = f"{move}\n\nOn Tue, 1 Dec 2026 at 09:00, pbm <{mail['From']}> wrote:\n{quoted}\n-- \nAnn, from her phone\n"
    html = (f"<html><head><style>p {{color: red}}</style></head><body><div dir='ltr'>{move}</div><br>"
            f"<div class='gmail_quote'><div class='gmail_attr'>On Tue, 1 Dec 2026 at 09:00 pbm wrote:</div>"
            f"<blockquote>{text_of(mail)[:500]}</blockquote></div></body></html>")
    answer = EmailMessage()
    answer["From"] = f"Ann <{ANN}>"
    answer["To"] = mail["Reply-To"]
    answer["Subject"] = "Re: " + mail["Subject"]
    answer["Message-ID"] = make_msgid(domain="players.test")
    answer["In-Reply-To"] = mail["Message-ID"]
    if style == "plain":
        answer.set_content(text)
    elif style == "html":
        answer.set_content(html, subtype="html")
    else:
        answer.set_content(text)
        answer.add_alternative(html, subtype="html")
    return answer


def answers(smtp_sink, game_id: str) -> list[EmailMessage]:
    return [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Re: ")]


def test_a_reply_through_pbm_mail_in_plays_the_move_once_and_is_answered_once(dispatching: Games, turn, smtp_sink, cli_env):
    game_id = turn["game_id"]
    table = dispatching.table(game_id)
    move = table.legal_moves(0)[-1]
    raw = reply(turn["mail"], move).as_bytes()
    done = run_pbm(cli_env, "mail-in", input=raw)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().strip() == f"mail-in: played (game {game_id}, seat 0): played at seq {table.seq}; answered"
    played = dispatching.store.read(game_id, table.seq)[0]
    assert (played.actor, played.command) == (0, move) and played.command_id.startswith("mail:0:")
    [answer] = answers(smtp_sink, game_id)
    assert answer["In-Reply-To"] == reply_id(raw) and f"Your move {move!r} in {game_id} is played." in text_of(answer)
    assert answer["Reply-To"] == turn["mail"]["Reply-To"]
    length = dispatching.store.length(game_id)
    again = run_pbm(cli_env, "mail-in", input=raw)  # the MTA delivers it twice
    assert again.returncode == 0 and "delivered before" in again.stderr.decode()
    assert dispatching.store.length(game_id) == length and len(answers(smtp_sink, game_id)) == 1
    assert turn["token"] not in done.stderr.decode() + again.stderr.decode() and ANN not in done.stderr.decode()


def reply_id(raw: bytes) -> str:
    from email import message_from_bytes, policy

    return message_from_bytes(raw, policy=policy.default)["Message-ID"]


@pytest.mark.parametrize("style", ["plain", "html", "multipart"])
def test_plain_html_only_and_multipart_replies_are_read_alike(dispatching: Games, turn, smtp_sink, style: str):
    game_id = turn["game_id"]
    table = dispatching.table(game_id)
    move = table.legal_moves(0)[0]
    received = mail_in.receive(dispatching, reply(turn["mail"], move, style).as_bytes())
    assert (received.status, received.answered) == ("played", True), received.line()
    assert dispatching.store.read(game_id, table.seq)[0].command == move


def test_a_refused_move_is_answered_with_the_reason_and_the_moves(dispatching: Games, turn, smtp_sink, cli_env):
    game_id = turn["game_id"]
    length = dispatching.store.length(game_id)
    done = run_pbm(cli_env, "mail-in", input=reply(turn["mail"], "play 99Xx").as_bytes())
    assert done.returncode == 0 and done.stderr.decode().startswith(f"mail-in: refused (game {game_id}, seat 0): ")
    assert dispatching.store.length(game_id) == length
    [answer] = answers(smtp_sink, game_id)
    body = text_of(answer)
    assert "was not played" in body and "'play 99Xx'" in body and "your moves: " in body
    assert all(move in body for move in dispatching.table(game_id).legal_moves(0)[:5])
    assert "99Xx" not in done.stderr.decode()  # a move's text is never logged


def test_a_seat_the_operator_handed_to_a_bot_plays_no_mailed_move(dispatching: Games, turn, smtp_sink):
    """As on the API and the page: the person's move would race the bot's job. (A seat the
    autopilot took after timeouts is handed back instead: tests/mail/test_clock_mail.py.)"""
    game_id = turn["game_id"]
    move = dispatching.table(game_id).legal_moves(0)[0]
    dispatching.seat_bots(game_id, {**dispatching.table(game_id).bots, 0: "heuristic"})
    length = dispatching.store.length(game_id)
    received = mail_in.receive(dispatching, reply(turn["mail"], move).as_bytes())
    assert (received.status, received.answered) == ("refused", True), received.line()
    assert received.reason == "a bot plays the seat now"
    assert dispatching.store.length(game_id) == length
    [answer] = answers(smtp_sink, game_id)
    assert "your seat is played by a bot (heuristic) now" in text_of(answer)


def test_a_mail_server_under_another_secret_key_plays_the_move_and_says_it_cannot_answer(dispatching: Games, turn, smtp_sink, monkeypatch):
    game_id = turn["game_id"]
    move = dispatching.table(game_id).legal_moves(0)[0]
    monkeypatch.setenv("PBM_SECRET_KEY", "not the key the seat links were made under")
    received = mail_in.receive(dispatching, reply(turn["mail"], move).as_bytes())
    assert (received.status, received.answered) == ("played", False)
    assert "the answer was not sent" in received.reason and "PBM_SECRET_KEY" in received.reason
    assert turn["token"] not in received.line() and answers(smtp_sink, game_id) == []


def test_a_reply_through_pbm_mail_server_plays_the_move(dispatching: Games, turn, smtp_sink, cli_env):
    game_id = turn["game_id"]
    table = dispatching.table(game_id)
    move = table.legal_moves(0)[0]
    with mail_server(cli_env) as (port, lines):
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:  # answers at all: a loaded machine is slow
            client.send_message(reply(turn["mail"], move))
        line = next_line(lines)
    assert line.endswith(f"mail-in: played (game {game_id}, seat 0): played at seq {table.seq}; answered")
    assert dispatching.store.read(game_id, table.seq)[0].command == move
    assert len(answers(smtp_sink, game_id)) == 1


class mail_server:
    """`pbm mail-server --port 0` in a process of its own; yields its port and a queue of its
    stderr lines (read by a thread as they come: a full pipe would stop the server)."""

    def __init__(self, cli_env: dict[str, str]) -> None:
        self.env = {**os.environ, **cli_env}

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-m", "pbm", "mail-server", "--port", "0"], env=self.env, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = next_line(self.lines)
        assert "listening on" in first, first
        return int(first.rsplit(":", 1)[1]), self.lines

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))

    def __exit__(self, *exc) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def next_line(lines: queue.Queue, timeout: float = 60) -> str:
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError("no line from the mail server") from None


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("play 7Su\n", "play 7Su"),
        ("\n\n  play   7Su  \nthanks!\n", "play 7Su"),
        ("> quoted\n>> more\nplay 7Su\n", "play 7Su"),
        ("On Tue, 1 Dec 2026 at 09:00, pbm <pbm@x.test> wrote:\n> Your turn\n\nbid 300\n", "bid 300"),
        ("On Tue, 1 Dec 2026 at 09:00, pbm <pbm@x.test>\nwrote:\n> Your turn\npass\n", "pass"),
        ("-- \nAnn\n", None),
        ("\n\n", None),
        ("-----Original Message-----\nFrom: pbm\nplay 7Su", None),
    ],
)
def test_the_move_is_the_first_line_not_quoted_empty_an_attribution_or_a_signature(text: str, move: str | None):
    assert first_move_line(text) == move
