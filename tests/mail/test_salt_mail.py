"""A salt by mail: a reply whose first line is `salt: <text>` gives the seat's salt for a deal that
waits for one; a second one is refused and answered with the reason; neither is logged."""

from __future__ import annotations

import pytest

from events.commands import Games
from events.seats import Seats
from pbm.mail import inbound as mail_in
from pbm.mail import notify
from tests.mail.test_bad_mail import mail_to
from tests.mail.conftest import text_of

pytestmark = pytest.mark.usefixtures("clean_notify_queue")
ANN = "ann@players.test"


def test_a_mailed_salt_is_given_once_and_answered(dispatching: Games, smtp_sink) -> None:
    game_id = dispatching.create("holly-oak", 3, seed=9, salt_seats=[0, 1])
    seats = Seats(dispatching.store.redis)
    seats.set_contact(game_id, 0, name="Ann", email=ANN)
    token = seats.issue(game_id, 0)
    first = mail_in.receive(dispatching, mail_to(f"pbm+{token}@pbm.test", "Salt: four fair dice\n\n> your game waits", sender=ANN, Message_ID="<a@players.test>"))
    assert first.status == "salted" and first.answered and "four fair dice" not in first.line()
    assert dispatching.table(game_id).salting.given == ((0, "four fair dice"),)
    [answer] = smtp_sink.to(ANN)
    assert "Your salt for" in text_of(answer)
    again = mail_in.receive(dispatching, mail_to(f"pbm+{token}@pbm.test", "salt: another", sender=ANN, Message_ID="<b@players.test>"))
    assert again.status == "refused" and again.answered
    assert "given its salt already" in text_of(smtp_sink.to(ANN)[-1])
    assert dispatching.table(game_id).salting.given == ((0, "four fair dice"),)


def test_the_turn_mail_after_the_deadline_says_the_server_salted_the_silent_seat(dispatching: Games, smtp_sink) -> None:
    game_id = dispatching.create("holly-oak", 3, seed=9, salt_seats=[0, 1, 2])
    seats = Seats(dispatching.store.redis)
    for seat, name in enumerate(("Ann", "Bob", "Cy")):
        seats.set_contact(game_id, seat, name=name, email=f"{name.lower()}@players.test")
    dispatching.give_salt(game_id, 0, "ann's")
    dispatching.give_salt(game_id, 2, "cy's")
    dispatching.close_salts(game_id)
    table = dispatching.table(game_id)
    [first] = table.to_act
    assert notify.tell(dispatching, game_id, first, "turn", table.seq)
    body = text_of(smtp_sink.to(f"{('ann', 'bob', 'cy')[first]}@players.test")[-1])
    who = "you" if first == 1 else "Bob"
    assert f"the server salted the deal for {who} from the committed seed, since {who} sent none by the deadline" in body
