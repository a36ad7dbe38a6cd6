"""Fixtures for mail and webhooks with real parts: an SMTP server (aiosmtpd) that keeps what it
receives, an HTTP receiver that checks each webhook's signature, and a dispatching command path
whose notifications a real `pbm worker --burst` sends."""

from __future__ import annotations

import email
import email.policy
import hashlib
import hmac
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from aiosmtpd.controller import Controller
from rq import Queue

from events.commands import Games
from events.store import Store
from tests.real_redis import free_port
from workers.dispatch import NOTIFY_QUEUE, Dispatcher

MAIL_FROM = "pbm@pbm.test"
INVITATION = "Invitation: "  # pbm.mail.notify.SUBJECTS["invite"]


def text_of(mail: EmailMessage) -> str:
    """A sent mail's text/plain part (every mail pbm sends also has an HTML alternative)."""
    return mail.get_body(("plain",)).get_content()


class Sink:
    """An aiosmtpd handler that keeps every message it is handed."""

    def __init__(self) -> None:
        self.received: list[tuple[list[str], EmailMessage]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope) -> str:
        message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self.lock:
            self.received.append((list(envelope.rcpt_tos), message))
        return "250 OK"

    def to(self, address: str, invitations: bool = False) -> list[EmailMessage]:
        """The mails to `address`; an invitation to a new game only when asked for: every game
        made over the API for a person with an address sends one first, and the tests of the other
        mails read past it."""
        with self.lock:
            return [message for rcpts, message in self.received
                    if address in rcpts and (invitations or not message["Subject"].startswith(INVITATION))]


@pytest.fixture
def smtp_sink(monkeypatch):
    """A real SMTP server on a free port; PBM_SMTP_URL and PBM_MAIL_FROM point at it."""
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("PBM_SMTP_URL", f"smtp://127.0.0.1:{port}")
    monkeypatch.setenv("PBM_MAIL_FROM", MAIL_FROM)
    monkeypatch.setenv("PBM_PUBLIC_URL", "https://pbm.test")
    sink.url = f"smtp://127.0.0.1:{port}"
    try:
        yield sink
    finally:
        controller.stop()


class Receiver(BaseHTTPRequestHandler):
    secret = b""
    hooks: list[dict] = []
    bad: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        expected = "sha256=" + hmac.new(self.secret, body, hashlib.sha256).hexdigest()
        if hmac.compare_digest(expected, self.headers.get("X-PBM-Signature", "")):
            self.hooks.append(json.loads(body))
            self.send_response(204)
        else:
            self.bad.append(self.headers.get("X-PBM-Signature", ""))
            self.send_response(401)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def local_webhooks(monkeypatch):
    """Webhooks to this machine over plain HTTP, as the receiver here is: allowed by the operator's
    settings (events.channels refuses both by default), in this process and the workers it starts."""
    monkeypatch.setenv("PBM_WEBHOOK_ALLOW_HTTP", "1")
    monkeypatch.setenv("PBM_WEBHOOK_ALLOW_PRIVATE", "1")


@pytest.fixture
def webhook_receiver(local_webhooks):
    """A real HTTP server on a free port that keeps the webhooks whose signature checks out."""

    class Handler(Receiver):
        hooks: list[dict] = []
        bad: list[str] = []

    with hooks_served(Handler):
        yield Handler


@contextmanager
def hooks_served(handler: type[Receiver]) -> Iterator[None]:
    """`handler` answering on a free port of 127.0.0.1 in a thread, its address as `handler.url`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def dispatching(store: Store, queue_client) -> Games:
    return Games(store, dispatch=Dispatcher(queue_client, log=store.redis))


@pytest.fixture
def clean_notify_queue(queue_client, store: Store):
    """Nothing of these tests is left for another test's worker: their games are deleted (a bot
    turn still queued finds no game and does nothing; recovery's index no longer names them) and
    their notifications taken off rq."""
    before = {info.game_id for info in store.games()}
    yield
    for info in store.games():
        if info.game_id not in before:
            store.delete(info.game_id)
    queue = Queue(NOTIFY_QUEUE, connection=queue_client)
    queue.empty()
    for registry in (queue.failed_job_registry, queue.scheduled_job_registry, queue.finished_job_registry):
        for job_id in registry.get_job_ids():
            registry.remove(job_id, delete_job=True)


def run_pbm(cli_env: dict[str, str], *args: str, input: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """`pbm ARGS` in a process of its own, with this test's environment (the SMTP server's URL)."""
    env = {**os.environ, **cli_env}
    return subprocess.run([sys.executable, "-m", "pbm", *args], env=env, input=input, capture_output=True, timeout=timeout)
