"""PBM_MAIL_SENDER_CHECK with real parts: a seat with an e-mail address plays only the mail that
comes from that address, since anyone copied on a reply holds the token in its Reply-To. Replies
go to a real `pbm mail-server` over SMTP (and `pbm mail-in`); pbm's answers reach the aiosmtpd
sink (tests/mail/conftest.py), where the test sees who was told what."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from events.commands import Games
from events.seats import Seats
from pbm.mail import inbound as mail_in
from tests.mail.conftest import run_pbm, text_of
from tests.mail.test_mail_in import mail_server, next_line, reply, turn  # noqa: F401 (turn: a fixture)
from tests.mail.test_notify import ANN

pytestmark = pytest.mark.usefixtures("clean_notify_queue")
BOB = "bob@copied.test"  # copied on Ann's turn mail, so he has her seat's Reply-To


def sent_by(mail: EmailMessage, sender: str) -> EmailMessage:
    mail.replace_header("From", sender)
    mail.replace_header("Message-ID", make_msgid(domain="players.test"))
    return mail


def test_a_reply_from_another_address_is_not_played_and_only_the_seat_is_told(dispatching: Games, turn, smtp_sink, cli_env):
    game_id, token = turn["game_id"], turn["token"]
    table = dispatching.table(game_id)
    move = table.legal_moves(0)[0]
    with mail_server(cli_env) as (port, lines):
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.send_message(sent_by(reply(turn["mail"], move), f"Bob <{BOB}>"))
        line = next_line(lines)
        assert line.endswith(f"mail-in: refused (game {game_id}, seat 0): its sender is not the seat's address (PBM_MAIL_SENDER_CHECK); answered"), line
        assert dispatching.store.length(game_id) == table.seq
        # Ann, from her own address, in other letters' case (a domain has none): played.
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.send_message(sent_by(reply(turn["mail"], move), f"Ann <{ANN.upper()}>"))
        played = next_line(lines)
    assert played.endswith(f"mail-in: played (game {game_id}, seat 0): played at seq {table.seq}; answered"), played
    assert dispatching.store.read(game_id, table.seq)[0].command == move
    assert smtp_sink.to(BOB) == []  # the sender is never answered
    refused, answered = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Re: ")]
    assert "was not played: it came from another address than this seat's" in text_of(refused)
    assert f"Your move {move!r} in {game_id} is played." in text_of(answered)
    for said in (line, played):
        assert token not in said and ANN not in said.lower() and BOB not in said


def test_a_mail_from_two_addresses_one_of_them_the_seats_is_not_played(dispatching: Games, turn, smtp_sink):
    game_id = turn["game_id"]
    length = dispatching.store.length(game_id)
    mail = sent_by(reply(turn["mail"], dispatching.table(game_id).legal_moves(0)[0]), f"Ann <{ANN}>, Bob <{BOB}>")
    received = mail_in.receive(dispatching, mail.as_bytes())
    assert (received.status, received.answered) == ("refused", True), received.line()
    assert dispatching.store.length(game_id) == length


def test_with_the_check_off_any_sender_with_the_token_plays(dispatching: Games, turn, smtp_sink, cli_env):
    game_id = turn["game_id"]
    table = dispatching.table(game_id)
    move = table.legal_moves(0)[0]
    done = run_pbm(cli_env | {"PBM_MAIL_SENDER_CHECK": "off"}, "mail-in", input=sent_by(reply(turn["mail"], move), BOB).as_bytes())
    assert done.returncode == 0 and "mail-in: played" in done.stderr.decode(), done.stderr
    assert dispatching.store.read(game_id, table.seq)[0].command == move


def test_a_seat_without_an_address_plays_mail_from_anyone(dispatching: Games, smtp_sink):
    """Nothing to compare the sender with: the token alone opens the seat, as before."""
    game_id = dispatching.create("tranquility", 2, seed=3)
    table = dispatching.table(game_id)
    seat = table.to_act[0]
    seats = Seats(dispatching.store.redis)
    seats.set_contact(game_id, seat, name="Ann")
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = BOB, f"pbm+{seats.issue(game_id, seat)}@pbm.test", "Re: your turn"
    mail.set_content(table.legal_moves(seat)[0] + "\n")
    received = mail_in.receive(dispatching, mail.as_bytes())
    assert received.status == "played", received.line()
    assert dispatching.store.length(game_id) > table.seq


@pytest.mark.parametrize("command", ["mail-in", "mail-server"])
def test_a_sender_check_setting_that_is_neither_on_nor_off_is_refused_in_one_line(cli_env, command: str):
    env = cli_env | {"PBM_MAIL_SENDER_CHECK": "maybe"}
    done = run_pbm(env, command, "--port", "0", input=b"") if command == "mail-server" else run_pbm(env, command, input=b"")
    [line] = done.stderr.decode().strip().splitlines()
    assert "PBM_MAIL_SENDER_CHECK must be on or off, not 'maybe'" in line, line
    assert done.returncode == (75 if command == "mail-in" else 1)  # mail-in: the MTA keeps the message

