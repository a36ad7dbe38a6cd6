"""Sending what pbm tells a seat: mail over SMTP (PBM_SMTP_URL, from PBM_MAIL_FROM) and signed
webhooks. It only transports what it is handed; it never reads the log, never logs an address, a
webhook URL or a token, and never waits long: one attempt, bounded by SEND_TIMEOUT_S (rq's
scheduler retries a failed notification later, so a dead channel never holds up a worker).

    PBM_SMTP_URL=smtp://user:password@mail.example.org:587   STARTTLS when the server offers it
    PBM_SMTP_URL=smtps://user:password@mail.example.org:465  TLS from the first byte
    PBM_SMTP_URL=smtp://127.0.0.1:2525                       a local relay, no login
    PBM_MAIL_FROM=pbm@example.org  (or "Play by mail <pbm@example.org>")

A password is never sent over a connection that is not encrypted, except to a loopback relay.
A seat's answer address is the From address's plus address: pbm+<token>@example.org.
"""

from __future__ import annotations

import email.policy
import functools
import hashlib
import hmac
import http.client
import ipaddress
import json
import os
import re
import smtplib
import socket
import ssl
from email.message import EmailMessage
from email.utils import formataddr, parseaddr
from typing import Any
from urllib.parse import unquote, urlsplit

from events.channels import BadChannel, checked_email, webhook_addresses
from events.seats import TOKEN_IN_TEXT

SEND_TIMEOUT_S = 10
SIGNATURE_HEADER = "X-PBM-Signature"  # "sha256=<hex HMAC-SHA256 of the body, keyed by the seat's webhook secret>"
KIND_HEADER = "X-PBM-Kind"
DEFAULT_FROM = "pbm@localhost"
_ADDRESS = re.compile(r"[^\s<>@,;:\"']+@[^\s<>@,;:\"']+")


class SendFailed(Exception):
    """A send that did not happen, in one line that names no address, URL or token."""

    one_line = True  # the worker logs its message alone, without a traceback (workers.worker)


def scrub(text: str) -> str:
    """`text` with any token, mail address or URL taken out: safe for a log line or an error."""
    text = re.sub(r"https?://\S+", "<url>", text)
    text = _ADDRESS.sub("<address>", text)
    return TOKEN_IN_TEXT.sub("<token>", " ".join(text.split()))[:300]


def mail_from() -> tuple[str, str]:
    """(display name, address) that pbm's mail comes from."""
    name, address = parseaddr(os.environ.get("PBM_MAIL_FROM") or DEFAULT_FROM)
    if "@" not in address:
        raise SendFailed("PBM_MAIL_FROM is not a mail address")
    return name, address


def answer_address(token: str) -> str:
    """The seat's plus address: mail to it is played as that seat's move (pbm mail-in)."""
    local, _, domain = mail_from()[1].rpartition("@")
    return f"{local.split('+', 1)[0]}+{token}@{domain}"


def new_mail(to: str, subject: str, body: str, reply_to: str | None, in_reply_to: str | None = None, html: str | None = None) -> EmailMessage:
    """One mail: `body` as its text/plain part and, given `html`, the same as text/html beside it
    (multipart/alternative: a mail reader shows the last part it can)."""
    from email.utils import make_msgid

    name, address = mail_from()
    try:
        checked_email(to, "the seat's e-mail")  # stored before the rule, it may be a list: never sent to
    except BadChannel as refused:
        raise SendFailed(f"mail not sent: {refused}") from None
    # Headers folded at 998 characters, RFC 5322's limit, not 78: the library folds a subject of
    # 70-odd characters whole onto a second line, which a reader then shows with a leading space.
    message = EmailMessage(policy=email.policy.default.clone(max_line_length=998))
    message["From"] = formataddr((name, address)) if name else address
    message["To"] = to
    message["Subject"] = subject
    if reply_to:
        message["Reply-To"] = reply_to
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = in_reply_to
    message["Message-ID"] = make_msgid(domain=address.rpartition("@")[2])
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: vacation responders must not answer it
    message.set_content(body)
    if html is not None:
        message.add_alternative(html, subtype="html")
    return message


def smtp_settings() -> dict[str, Any]:
    url = os.environ.get("PBM_SMTP_URL")
    if not url:
        raise SendFailed("no PBM_SMTP_URL: pbm has no mail server to send through")
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise SendFailed("PBM_SMTP_URL is not smtp://[user:password@]host[:port] or smtps://...")
    try:
        port = parts.port or (465 if parts.scheme == "smtps" else 25)
    except ValueError:
        raise SendFailed("PBM_SMTP_URL has a port that is not a number") from None
    return {
        "tls": parts.scheme == "smtps",
        "host": parts.hostname,
        "port": port,
        "user": None if parts.username is None else unquote(parts.username),
        "password": None if parts.password is None else unquote(parts.password),
    }


def loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One per process: loading the system's certificates costs about 70 ms, more than a send."""
    return ssl.create_default_context()


def send_mail(message: EmailMessage) -> None:
    """One SMTP delivery to the configured server; SendFailed (one scrubbed line) if it fails."""
    settings = smtp_settings()
    try:
        if settings["tls"]:
            client: smtplib.SMTP = smtplib.SMTP_SSL(settings["host"], settings["port"], timeout=SEND_TIMEOUT_S, context=tls_context())
        else:
            client = smtplib.SMTP(settings["host"], settings["port"], timeout=SEND_TIMEOUT_S)
        with client:
            client.ehlo()
            encrypted = settings["tls"]
            if not encrypted and client.has_extn("starttls"):
                client.starttls(context=tls_context())
                client.ehlo()
                encrypted = True
            if settings["user"] is not None:
                if not encrypted and not loopback(settings["host"]):
                    raise SendFailed("the SMTP server offers no STARTTLS: pbm will not send its password in clear")
                client.login(settings["user"], settings["password"] or "")
            client.send_message(message)
    except SendFailed:
        raise
    except (OSError, smtplib.SMTPException) as error:
        raise SendFailed(f"mail not sent: {type(error).__name__}: {scrub(str(error)) or 'no detail'}") from None


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def send_webhook(url: str, secret: str, kind: str, payload: dict[str, Any]) -> None:
    """POST the payload as JSON, signed with the seat's webhook secret, to an address of the URL's
    host that events.channels allows now; SendFailed unless 2xx. The host is resolved and checked
    here, at each send (a name may point elsewhere since it was accepted), and the connection goes
    to the address checked; TLS still checks the name's certificate. No redirect is followed."""
    try:
        addresses = webhook_addresses(url)
    except BadChannel as refused:
        raise SendFailed(f"webhook not delivered: {refused}") from None
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
    headers = {"Host": parts.netloc.rpartition("@")[2], "Content-Type": "application/json", "User-Agent": "pbm",
               KIND_HEADER: kind, SIGNATURE_HEADER: sign(secret, body)}
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        sock = socket.create_connection((addresses[0][1], port), timeout=SEND_TIMEOUT_S)
        if parts.scheme == "https":
            sock = tls_context().wrap_socket(sock, server_hostname=parts.hostname)
        connection = http.client.HTTPConnection(parts.hostname, port, timeout=SEND_TIMEOUT_S)
        connection.sock = sock  # connected already, to the address checked
        try:
            connection.request("POST", target, body=body, headers=headers)
            response = connection.getresponse()
            response.read(1024)
        finally:
            connection.close()
    except (OSError, http.client.HTTPException, ValueError) as error:
        raise SendFailed(f"webhook not delivered: {type(error).__name__}: {scrub(str(error)) or 'no detail'}") from None
    if not 200 <= response.status < 300:
        raise SendFailed(f"webhook not delivered: it answered HTTP {response.status}")
