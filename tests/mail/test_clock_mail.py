"""The clock's notices through real parts: a person's seat with an e-mail address, two bots and a
deadline of a few seconds; a real `pbm worker` (with its scheduler) mails the seat each reminder
before the deadline, once, then the timeout when the autopilot has moved for it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from events import clock as clocks, keys
from workers.dispatch import CLOCK_CHANGES

CHANGES = {cls.kind for cls in CLOCK_CHANGES}
from events.commands import Games
from events.store import Store
from pbm.web import create_app
from tests.web.conftest import ADMIN, TestClient, bearer
from tests.workers.test_deadlines import drop_jobs
from tests.mail.conftest import text_of

pytestmark = pytest.mark.usefixtures("clean_notify_queue")
ANN = "ann@players.test"


def test_reminders_then_the_timeout_reach_the_seat_once_each(dispatching: Games, store: Store, smtp_sink, cli_env, tmp_path, queue_client) -> None:
    seats = [{"name": "Ann", "email": ANN}, {"name": "Bot 1", "bot": "heuristic"}, {"name": "Bot 2", "bot": "heuristic"}]
    body = {"game": "holly-oak", "players": 3, "seats": seats, "seed": 7, "late_salts": False, "deadline": "6s", "reminders": "4s,2s"}
    with TestClient(create_app(store.redis, games=dispatching, admin_token=ADMIN)) as client:
        created = client.post("/api/games", json=body, headers=bearer(ADMIN))
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    said = (tmp_path / "worker.err").open("w")
    env = {**os.environ, **cli_env, "PBM_SMTP_URL": smtp_sink.url, "PBM_MAIL_FROM": "pbm@pbm.test", "PBM_PUBLIC_URL": "https://pbm.test"}
    worker = subprocess.Popen([sys.executable, "-m", "pbm", "worker"], env=env, stdout=subprocess.DEVNULL, stderr=said)
    try:
        give_up = time.monotonic() + 120
        while not any(mail["Subject"].startswith("Timed out") for mail in smtp_sink.to(ANN)):
            assert time.monotonic() < give_up, f"no timeout mail; mails: {[m['Subject'] for m in smtp_sink.to(ANN)]}"
            time.sleep(0.2)
        time.sleep(1)  # anything sent twice would arrive by now
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        said.close()
        drop_jobs(queue_client, game_id)  # its next turns' deadlines, still scheduled
    mails = smtp_sink.to(ANN)
    subjects = [mail["Subject"] for mail in mails]
    reminders = [mail for mail in mails if mail["Subject"].startswith("Reminder")]
    timeouts = [mail for mail in mails if mail["Subject"].startswith("Timed out")]
    first_timeout = subjects.index(timeouts[0]["Subject"])
    # Per turn of Ann's: her turn mail, two reminders (4 s and 2 s before), the timeout; only the
    # first turn is counted (the worker went on to her next turn while the test watched).
    assert subjects[0].startswith("Your turn") and len([s for s in subjects[:first_timeout] if s.startswith("Reminder")]) == 2, subjects
    assert len(timeouts) == 1
    # The timeout (the shell's event) began no turn: every turn mail was for a seq a move began.
    turn_seqs = [int(field.split(b":")[0]) for field in store.redis.hkeys(keys.sent(game_id)) if field.endswith(b":0:turn")]
    assert turn_seqs and all(store.read(game_id, seq - 1, seq - 1)[0].kind not in CHANGES for seq in turn_seqs), turn_seqs
    for mail in reminders[:2]:
        # Its deadline in the seat's words; a reminder a loaded worker wrote after it says "was due".
        assert "left to move" in text_of(mail) and re.search(r"Your move (is due in |was due .* ago)", text_of(mail)), text_of(mail)
    assert "your time ran out: the autopilot played" in text_of(timeouts[0])
    log = store.read(game_id)
    assert any(env.command_id and env.command_id.startswith("timeout:") and env.actor == 0 for env in log)
    assert clocks.Clock.read(log).timeouts[0][1] == 0
    assert "Traceback" not in (tmp_path / "worker.err").read_text()
