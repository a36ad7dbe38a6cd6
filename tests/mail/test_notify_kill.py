"""A worker killed between a notification's send and its acknowledgement: the mail goes out once.

To land the kill exactly there, rq's queues live on a Redis of their own (PBM_QUEUE_URL, as an
operator may run them): the SMTP server, on receiving the mail, pauses that Redis's writes, so the
worker records the send in the log's Redis and then blocks on rq's acknowledgement. The test sees
the record, kills the worker with SIGKILL, lets the Redis go on, and starts a new worker: its
recovery finds the notification the dead worker held and runs it again, which sends nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from rq.job import Job

from events import keys
from events.commands import Games
from events.store import Store
from pbm.web import create_app
from tests.mail.conftest import MAIL_FROM, Sink
from tests.mail.test_notify import ANN, people_and_bots
from tests.real_redis import free_port, redis_server
from tests.web.conftest import ADMIN, TestClient, bearer
from workers.dispatch import Dispatcher, notify_job_id


class PausingSink(Sink):
    """Keeps each message, and pauses rq's Redis for writes before saying 250."""

    def __init__(self, queue_admin) -> None:
        super().__init__()
        self.queue_admin = queue_admin

    async def handle_DATA(self, server, session, envelope) -> str:
        self.queue_admin.execute_command("CLIENT", "PAUSE", 20_000, "WRITE")
        return await super().handle_DATA(server, session, envelope)


def test_a_worker_killed_between_the_send_and_its_acknowledgement_sends_once(store: Store, cli_env, monkeypatch):
    from aiosmtpd.controller import Controller

    with redis_server() as (queue_url, queue_admin):
        sink = PausingSink(queue_admin)
        port = free_port()
        controller = Controller(sink, hostname="127.0.0.1", port=port)
        controller.start()
        env = {**os.environ, **cli_env, "PBM_QUEUE_URL": queue_url, "PBM_SMTP_URL": f"smtp://127.0.0.1:{port}", "PBM_MAIL_FROM": MAIL_FROM}
        worker, game_id = None, None
        try:
            games = Games(store, dispatch=Dispatcher(queue_admin, log=store.redis))
            app = create_app(store.redis, games=games, admin_token=ADMIN)
            with TestClient(app) as client:
                created = client.post("/api/games", json={"game": "holly-oak", "players": 3, "seats": people_and_bots({"email": ANN}), "seed": 7, "late_salts": False}, headers=bearer(ADMIN)).json()
            game_id = created["game_id"]
            worker = subprocess.Popen([sys.executable, "-m", "pbm", "worker"], env=env, stderr=subprocess.PIPE)
            deadline = time.monotonic() + 120
            while not store.redis.exists(keys.sent(game_id)):
                assert time.monotonic() < deadline and worker.poll() is None, "the invitation was never sent"
                time.sleep(0.005)
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            job_id = notify_job_id(game_id, 0, 0, "invite")  # the first mail of the game: queued as it was made
            # Sent and recorded, never acknowledged: rq still has the job as started, under a dead worker.
            assert Job.fetch(job_id, connection=queue_admin).get_status() == "started"
            queue_admin.execute_command("CLIENT", "UNPAUSE")
            again = subprocess.run([sys.executable, "-m", "pbm", "worker", "--burst"], env=env, capture_output=True, text=True, timeout=120)
            assert again.returncode == 0, again.stderr
            assert "recovered 1 lost job(s)" in again.stderr
            job = Job.fetch(job_id, connection=queue_admin)
            assert job.get_status() == "finished" and job.return_value() is False  # it ran again, and sent nothing
            assert [mail["Subject"].split(":")[0] for mail in sink.to(ANN, invitations=True)] == ["Invitation", "Your turn"]  # the turn's follows
            assert created["seats"][0]["token"] not in again.stderr
        finally:
            queue_admin.execute_command("CLIENT", "UNPAUSE")
            if worker is not None and worker.poll() is None:
                worker.kill()
                worker.wait()
            controller.stop()
            if game_id is not None:
                store.delete(game_id)
