"""A whole game played by mail, as the README shows it: `pbm new` with two bots, `pbm invite
--email` for the person, then every turn mail answered from its Reply-To address until the end
mail comes; bots and mails go through a real worker, answers through pbm.mail.inbound."""

from __future__ import annotations

import re

import pytest

from events.commands import Games
from pbm.mail import inbound as mail_in
from tests.mail.test_mail_in import reply
from tests.mail.test_notify import ANN, work_in_process
from tests.mail.conftest import text_of

pytestmark = pytest.mark.usefixtures("clean_notify_queue")


def test_a_game_played_by_mail_from_start_to_end(pbm, dispatching: Games, smtp_sink, queue_client, monkeypatch):
    monkeypatch.setenv("PBM_MAILS_PER_10MIN", "1000")  # a whole game in seconds is no flood here
    game_id = pbm("new", "holly-oak", "--players", "3", "--bot", "1=heuristic", "--bot", "2=heuristic", "--seed", "3").stdout.strip()
    link = pbm("invite", game_id, "0", "--email", ANN).stdout.strip()
    token = link.rsplit("/", 1)[1]
    answered = 0
    while True:
        work_in_process(queue_client, dispatching.store)
        table = dispatching.table(game_id)
        if table.outcome is not None:
            break
        turns = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Your turn")]
        assert len(turns) == answered + 1, "one turn mail for each turn, no more"
        assert turns[-1]["Reply-To"] == f"pbm+{token}@pbm.test"
        move = re.search(r"your move alone on the first line, for example: (.+)", text_of(turns[-1])).group(1).strip()
        received = mail_in.receive(dispatching, reply(turns[-1], move).as_bytes())
        assert received.status == "played", received.line()
        answered += 1
    [end] = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Game over")]
    assert "game over: " in text_of(end) and link in text_of(end)
    # Her only legal moves were played for her (no mail, no stop); every other move came by mail.
    moves = [env for env in dispatching.store.read(game_id) if env.actor == 0 and env.command and env.origin is None]
    assert len(moves) == answered and all(env.command_id.startswith("mail:0:") for env in moves)
    forced = [env for env in dispatching.store.read(game_id) if env.actor == 0 and env.origin == "forced"]
    assert all(env.command_id.startswith("forced:") for env in forced)
    assert pbm("replay", "verify", game_id).exit_code == 0
