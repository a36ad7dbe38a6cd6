"""pbm.mail.outbox against a real SMTP server that wants a login (aiosmtpd with an authenticator, on
loopback), and its settings: what PBM_SMTP_URL may say, and that no failure names an address, a
password or a token."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbm.mail import outbox
from tests.mail.conftest import Sink
from tests.real_redis import free_port

TOKEN = "g-1.0." + "a" * 52


def authenticated_server(sink: Sink, logins: list):
    def authenticator(server, session, envelope, mechanism, auth_data) -> AuthResult:
        logins.append((auth_data.login, auth_data.password))
        return AuthResult(success=(auth_data.login, auth_data.password) == (b"ann", b"s3cr/t"))

    port = free_port()
    # No TLS on this loopback test server: pbm sends a password in clear to loopback only.
    controller = Controller(sink, hostname="127.0.0.1", port=port, authenticator=authenticator, auth_require_tls=False, auth_required=True)
    controller.start()
    return controller, port


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_login_with_the_urls_credentials_then_the_mail_goes_out(monkeypatch):
    sink, logins = Sink(), []
    controller, port = authenticated_server(sink, logins)
    try:
        monkeypatch.setenv("PBM_MAIL_FROM", "Play by mail <pbm@pbm.test>")
        monkeypatch.setenv("PBM_SMTP_URL", f"smtp://ann:s3cr%2Ft@127.0.0.1:{port}")  # a quoted '/'
        outbox.send_mail(outbox.new_mail("bob@players.test", "hello", "body", outbox.answer_address(TOKEN)))
        [(rcpts, message)] = sink.received
        assert rcpts == ["bob@players.test"] and message["Reply-To"] == f"pbm+{TOKEN}@pbm.test"
        assert message["From"] == "Play by mail <pbm@pbm.test>" and logins == [(b"ann", b"s3cr/t")]
        assert len(sink.received) == 1
    finally:
        controller.stop()


def test_only_a_loopback_relay_gets_a_password_without_tls():
    assert outbox.loopback("127.0.0.1") and outbox.loopback("::1") and outbox.loopback("localhost")
    assert not outbox.loopback("mail.example.org") and not outbox.loopback("10.0.0.1")


@pytest.mark.parametrize(
    ("url", "wrong"),
    [
        (None, "no PBM_SMTP_URL"),
        ("http://mail.example.org", "is not smtp://"),
        ("smtp://", "is not smtp://"),
        ("smtp://mail.example.org:port", "port that is not a number"),
    ],
)
def test_a_bad_smtp_url_is_one_clear_line(monkeypatch, url, wrong):
    if url is None:
        monkeypatch.delenv("PBM_SMTP_URL", raising=False)
    else:
        monkeypatch.setenv("PBM_SMTP_URL", url)
    with pytest.raises(outbox.SendFailed, match=wrong):
        outbox.smtp_settings()


def test_the_defaults_of_each_scheme(monkeypatch):
    monkeypatch.setenv("PBM_SMTP_URL", "smtps://u:p@mail.example.org")
    assert outbox.smtp_settings() == {"tls": True, "host": "mail.example.org", "port": 465, "user": "u", "password": "p"}
    monkeypatch.setenv("PBM_SMTP_URL", "smtp://mail.example.org")
    assert outbox.smtp_settings()["port"] == 25 and outbox.smtp_settings()["user"] is None


def test_scrub_takes_out_tokens_addresses_and_urls():
    text = f"550 <ann@players.test>: no such user; see https://x.test/{TOKEN} or pbm+{TOKEN}@pbm.test\nmore"
    assert outbox.scrub(text) == "550 <<address>>: no such user; see <url> or <address> more"
