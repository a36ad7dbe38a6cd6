"""A game by mail in which the player's replies set standing orders: each reply's lines are her
orders (one a line), the answer lists them, and the orders play her turns until they run out or
are dropped (a new round deals new cards); her next turn mail tells her which were dropped."""

from __future__ import annotations

import pytest

from events.commands import Games
from pbm.mail import inbound as mail_in
from tests.mail.test_mail_in import reply, turn  # noqa: F401  (turn: a fixture)
from tests.mail.test_notify import ANN, work_in_process
from tests.mail.conftest import text_of

pytestmark = pytest.mark.usefixtures("clean_notify_queue")


def test_a_game_by_mail_played_by_orders_set_in_replies(pbm, dispatching: Games, smtp_sink, queue_client, monkeypatch):
    monkeypatch.setenv("PBM_MAILS_PER_10MIN", "1000")
    game_id = pbm("new", "holly-oak", "--players", "3", "--bot", "1=heuristic", "--bot", "2=heuristic", "--seed", "3").stdout.strip()
    pbm("invite", game_id, "0", "--email", ANN)
    replied = 0
    for _ in range(400):
        work_in_process(queue_client, dispatching.store)
        table = dispatching.table(game_id)
        if table.outcome is not None:
            break
        turns = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Your turn")]
        if len(turns) == replied:
            continue
        text = text_of(turns[-1])
        assert "To leave orders for your coming turns" in text
        hand = table.view(0)["hand"]
        orders = "\n".join(f"next: play {card}" for card in hand)
        received = mail_in.receive(dispatching, reply(turns[-1], orders).as_bytes())
        assert received.status == "ordered", received.line()
        replied += 1
        [answer] = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Re: ")][-1:]
        assert "Your orders in" in text_of(answer) and "are set" in text_of(answer)
    assert dispatching.table(game_id).outcome is not None
    envelopes = dispatching.store.read(game_id)
    by_order = [env for env in envelopes if env.actor == 0 and env.origin == "order"]
    by_hand = [env for env in envelopes if env.actor == 0 and env.command and env.origin is None]
    assert by_hand == [] and len(by_order) > 3 * replied  # a reply a round, not a reply a move
    assert pbm("replay", "verify", game_id).exit_code == 0


def test_a_bad_order_by_mail_is_refused_naming_it_and_nothing_is_stored(dispatching: Games, turn, smtp_sink):  # noqa: F811
    from events.orders import Orders

    game_id = turn["game_id"]
    card = dispatching.table(game_id).view(0)["hand"][0]
    received = mail_in.receive(dispatching, reply(turn["mail"], f"next: play {card}\nif Snow falls: play 2Sp").as_bytes())
    assert received.status == "refused" and "Snow" not in received.line()
    [answer] = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Re: ")]
    assert "order 2 (`if Snow falls: play 2Sp`): unknown condition" in text_of(answer)
    assert Orders(dispatching.store).read(game_id, 0) == []
