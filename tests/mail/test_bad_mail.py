"""Bad mail: garbage, forged tokens, a bomb of 1,000 messages, a 10 MB attachment, a flood from a
valid token. Each is dropped (no answer) or refused, with one clear line, and the game's keys in
Redis are exactly as they were."""

from __future__ import annotations

import email.policy
import smtplib
from email.message import EmailMessage

import pytest

from events import keys
from events.commands import Games
from pbm.mail import inbound as mail_in
from tests.conftest import forged, written
from tests.mail.conftest import run_pbm
from tests.mail.test_mail_in import answers, mail_server, next_line, reply, turn  # noqa: F401 (the fixture)

pytestmark = pytest.mark.usefixtures("clean_notify_queue")
LIMIT = 12


def mail_to(address: str, body: str = "play 7Su", sender: str = "mallory@elsewhere.test", **headers: str) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = address
    message["Subject"] = "Re: your turn"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message.as_bytes(policy=email.policy.SMTP)  # CRLF line ends, as on the wire


def garbage(token: str) -> list[bytes]:
    local = f"pbm+{forged(token)}@pbm.test"
    return [
        b"",
        b"\x00\xff\xfe" * 1000,
        b"not a mail at all\r\n\r\n\r\n",
        b"To: " + b"x" * 20_000 + b"\r\n\r\nplay 7Su\r\n",
        b"To: pbm+" + token.encode() + b"@pbm.test\r\nContent-Type: text/plain; charset=no-such-charset\r\n\r\n\xff\xfe play\r\n",
        mail_to(local),
        mail_to(f"pbm+{token.split('.')[0]}.0.short@pbm.test"),
        mail_to("pbm@pbm.test"),
        mail_to(f"pbm+{token}x@pbm.test"),
        b"To: pbm+" + token.encode() + b"@pbm.test\r\nContent-Type: multipart/mixed; boundary=\"zz\"\r\n\r\n--zz\r\nbroken",
    ]


def test_garbage_and_forged_tokens_are_dropped_unanswered_and_change_nothing(dispatching: Games, turn, smtp_sink, cli_env):
    game_id, token = turn["game_id"], turn["token"]
    before, mails, length = written(dispatching.store.redis, game_id), len(smtp_sink.received), dispatching.store.length(game_id)
    for raw in garbage(token):
        received = mail_in.receive(dispatching, raw)
        assert received.status in ("dropped", "refused"), received
        assert "\n" not in received.line() and token not in received.line()
    # The forged ones through the CLI too: one line on stderr, exit 0 (an MTA must not bounce it).
    done = run_pbm(cli_env, "mail-in", input=mail_to(f"pbm+{forged(token)}@pbm.test"))
    assert done.returncode == 0 and done.stderr.decode() == "mail-in: dropped: its seat token is not valid (forged, replaced or of a deleted game)\n"
    done = run_pbm(cli_env, "mail-in", input=b"\x00garbage")
    assert done.returncode == 0 and done.stderr.decode() == "mail-in: dropped: no seat token in its recipient's address\n"
    # The one with the real token and an unreadable body is refused by answer: it is the seat's own
    # mail. Everything else is dropped: nothing written, nothing sent.
    new_mails = smtp_sink.received[mails:]
    assert all(rcpts == ["ann@players.test"] for rcpts, _ in new_mails)
    after = written(dispatching.store.redis, game_id)
    changed = {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
    assert changed <= {keys.sent(game_id).encode()} | {key for key in after if b":rate:" in key}
    assert dispatching.store.length(game_id) == length


def test_a_bomb_of_1000_forged_messages_through_the_mail_server_changes_nothing(dispatching: Games, turn, smtp_sink, cli_env):
    game_id, token = turn["game_id"], turn["token"]
    before, mails = written(dispatching.store.redis, game_id), len(smtp_sink.received)
    with mail_server(cli_env) as (port, lines):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            for number in range(1000):
                address = f"pbm+{forged(token)}@pbm.test" if number % 2 else f"pbm+{game_id}.{number % 3}.{'b' * 52}@pbm.test"
                client.sendmail("mallory@elsewhere.test", [address], mail_to(address, Message_ID=f"<bomb-{number}@elsewhere.test>"))
        said = [next_line(lines) for _ in range(1000)]
    assert all(line.endswith("mail-in: dropped: its seat token is not valid (forged, replaced or of a deleted game)") for line in said)
    assert written(dispatching.store.redis, game_id) == before and len(smtp_sink.received) == mails
    assert not any(token in line for line in said)


def test_a_10_mb_attachment_is_refused_by_the_server_and_dropped_by_mail_in(dispatching: Games, turn, smtp_sink, cli_env):
    game_id, token = turn["game_id"], turn["token"]
    message = reply(turn["mail"], dispatching.table(game_id).legal_moves(0)[0])
    message.add_attachment(b"\x00" * 10_000_000, maintype="application", subtype="octet-stream", filename="big.bin")
    raw = message.as_bytes(policy=email.policy.SMTP)
    before = written(dispatching.store.redis, game_id)
    with mail_server(cli_env) as (port, _lines):
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            with pytest.raises(smtplib.SMTPSenderRefused) as declared:  # smtplib declares its SIZE first
                client.sendmail("ann@players.test", [message["To"]], raw)
            assert declared.value.smtp_code == 552
            client.rset()
            client.mail("ann@players.test")  # a client that does not declare it: refused after the data
            client.rcpt(message["To"])
            code, said = client.data(raw)
            assert code == 552, said
    done = run_pbm(cli_env, "mail-in", input=raw)
    assert done.returncode == 0 and done.stderr.decode() == "mail-in: dropped: the message is over 1,000,000 bytes\n"
    assert written(dispatching.store.redis, game_id) == before
    assert answers(smtp_sink, game_id) == []
    assert token not in done.stderr.decode()


def test_a_flood_from_a_valid_token_is_answered_up_to_its_limit_then_dropped(dispatching: Games, turn, smtp_sink, monkeypatch):
    monkeypatch.setenv("PBM_MAILS_PER_10MIN", str(LIMIT))
    game_id = turn["game_id"]
    length = dispatching.store.length(game_id)
    said = [mail_in.receive(dispatching, reply(turn["mail"], f"play {number}Xx").as_bytes()) for number in range(LIMIT + 10)]
    assert [r.status for r in said] == ["refused"] * LIMIT + ["dropped"] * 10
    assert all(r.answered for r in said[: LIMIT]) and not any(r.answered for r in said[LIMIT :])
    assert len(answers(smtp_sink, game_id)) == LIMIT
    assert dispatching.store.length(game_id) == length


def test_an_automatic_reply_is_never_answered(dispatching: Games, turn, smtp_sink):
    game_id = turn["game_id"]
    message = reply(turn["mail"], "I am on holiday until Monday.")
    message["Auto-Submitted"] = "auto-replied"
    received = mail_in.receive(dispatching, message.as_bytes())
    assert received.status == "dropped" and not received.answered
    assert answers(smtp_sink, game_id) == []


def mutated(raw: bytes, data) -> bytes:
    """`raw` cut, with bytes flipped, or with a line repeated: what a broken mail system makes of it."""
    from hypothesis import strategies as st

    cut = data.draw(st.integers(0, len(raw)))
    flips = data.draw(st.lists(st.tuples(st.integers(0, max(0, len(raw) - 1)), st.integers(0, 255)), max_size=8))
    out = bytearray(raw[: max(cut, len(raw) // 2)])
    for at, value in flips:
        if at < len(out):
            out[at] = value
    return bytes(out) + data.draw(st.binary(max_size=200))


def test_no_mail_a_fuzzer_makes_raises_or_writes_to_the_log(dispatching: Games, turn, smtp_sink):
    """Random bytes and real replies cut and flipped: each is played, refused or dropped, never an
    exception (pbm mail-in would print a traceback); the log grows only by moves that were played."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    game_id = turn["game_id"]
    real = reply(turn["mail"], "play 99Xx").as_bytes()

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.data())
    def check(data) -> None:
        raw = data.draw(st.one_of(st.binary(max_size=2000), st.just(real).map(lambda r: r)))
        if data.draw(st.booleans()):
            raw = mutated(raw, data)
        length = dispatching.store.length(game_id)
        received = mail_in.receive(dispatching, raw)
        assert received.status in ("played", "refused", "dropped") and "\n" not in received.line()
        assert dispatching.store.length(game_id) == length or received.status == "played"

    check()
