"""Turn notifications through real parts: a game created over the API with a person's seat that
has an e-mail address (or a webhook) and two bots; a real `pbm worker --burst` plays the bots and
sends the turn mail to a real SMTP server (aiosmtpd), or the signed webhook to a real HTTP server."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from events import keys
from events.commands import Games
from events.seats import Seats
from pbm.mail import notify
from pbm.web import create_app
from tests.mail.conftest import MAIL_FROM, run_pbm, text_of
from tests.web.conftest import ADMIN, TestClient, bearer

pytestmark = pytest.mark.usefixtures("clean_notify_queue")
ANN = "ann@players.test"


def create(dispatching: Games, seats: list[dict], game: str = "holly-oak") -> dict:
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app) as client:
        response = client.post("/api/games", json={"game": game, "players": len(seats), "seats": seats, "seed": 7, "late_salts": False}, headers=bearer(ADMIN))
    assert response.status_code == 201, response.text
    return response.json()


def people_and_bots(contact: dict) -> list[dict]:
    return [{"name": "Ann", **contact}, {"name": "Bot 1", "bot": "heuristic"}, {"name": "Bot 2", "bot": "heuristic"}]


def test_the_turn_mail_reaches_the_seat_once_with_its_report_hand_moves_link_and_reply_address(dispatching: Games, smtp_sink, cli_env):
    created = create(dispatching, people_and_bots({"email": ANN}))
    game_id, token = created["game_id"], created["seats"][0]["token"]
    worked = run_pbm(cli_env, "worker", "--burst")
    assert worked.returncode == 0, worked.stderr
    table = dispatching.table(game_id)
    assert table.to_act == (0,)  # the bots played up to Ann's turn
    [mail] = smtp_sink.to(ANN)
    assert mail["Reply-To"] == f"pbm+{token}@pbm.test" and mail["From"] == MAIL_FROM
    assert mail["Subject"] == f"Your turn: Holly Oak with Bot 1 (bot) and Bot 2 (bot) ({game_id})"
    body = text_of(mail)
    view = table.view(0)
    assert f"https://pbm.test/play/{token}" in body
    assert "your hand: " + " ".join(view["hand"]) in body
    assert all(move in body for move in view["legal_moves"])  # a hand of cards: listed as they are
    assert "Since your last move:" in body and "(bot) played" in body  # the bots' moves, narrated, named
    others = {card for seat in (1, 2) for card in table.view(seat)["hand"]}
    assert not others & set(re.findall(r"\S+", body)), "another seat's hidden card is in the mail"
    # Run again (a retried job, a second worker): the send is recorded, nothing goes out twice.
    assert notify.tell(dispatching, game_id, 0, "turn", table.seq) is False
    assert run_pbm(cli_env, "worker", "--burst").returncode == 0
    assert len(smtp_sink.to(ANN)) == 1
    assert dispatching.store.redis.hexists(keys.sent(game_id), f"{table.seq}:0:turn")
    # The worker's log never shows the token or the address.
    assert token not in worked.stderr.decode() and ANN not in worked.stderr.decode()


def test_two_reminders_of_one_turn_are_two_mails_and_each_is_sent_once(dispatching: Games, smtp_sink, queue_client):
    created = create(dispatching, people_and_bots({"email": ANN}))
    work_in_process(queue_client, dispatching.store)
    seq = dispatching.table(created["game_id"]).seq
    for note in ("Your move is due in 24 hours.", "Your move is due in 2 hours.", "Your move is due in 2 hours."):
        notify.tell(dispatching, created["game_id"], 0, "reminder", seq, note)
    reminders = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Reminder")]
    assert [text_of(mail).splitlines()[1] for mail in reminders] == ["Your move is due in 24 hours.", "Your move is due in 2 hours."]


def test_a_stale_turn_or_a_seat_without_a_channel_sends_nothing(dispatching: Games, smtp_sink, cli_env):
    created = create(dispatching, [{"name": "Ann", "email": ANN}, {"name": "Bob"}, {"name": "Cy"}])
    game_id = created["game_id"]
    table = dispatching.table(game_id)
    seat = table.to_act[0]
    assert seat != 0
    assert notify.tell(dispatching, game_id, seat, "turn", table.seq) is False  # Bob has no channel
    assert notify.tell(dispatching, game_id, 0, "turn", table.seq) is False  # not Ann's turn
    assert notify.tell(dispatching, game_id, 0, "end", table.seq) is False  # not over
    assert smtp_sink.received == []


def test_the_webhook_is_signed_with_the_seats_secret(dispatching: Games, webhook_receiver, cli_env, monkeypatch):
    monkeypatch.setenv("PBM_PUBLIC_URL", "https://pbm.test")
    created = create(dispatching, people_and_bots({"webhook": webhook_receiver.url}))
    webhook_receiver.secret = created["seats"][0]["webhook_secret"].encode()
    assert run_pbm(cli_env, "worker", "--burst").returncode == 0
    [hook] = webhook_receiver.hooks
    table = dispatching.table(created["game_id"])
    assert hook["kind"] == "turn" and hook["seat"] == 0 and hook["seq"] == table.seq
    assert hook["view"] == table.view(0) and hook["url"] == created["seats"][0]["url"].replace("http://testserver", "https://pbm.test")
    assert webhook_receiver.bad == []


def test_a_webhook_signed_with_another_secret_is_refused_by_the_receiver(dispatching: Games, webhook_receiver, cli_env):
    created = create(dispatching, people_and_bots({"webhook": webhook_receiver.url}))
    webhook_receiver.secret = b"not the seat's secret"
    assert run_pbm(cli_env, "worker", "--burst").returncode == 0
    assert webhook_receiver.hooks == [] and len(webhook_receiver.bad) == 1
    table = dispatching.table(created["game_id"])
    assert not dispatching.store.redis.hexists(keys.sent(created["game_id"]), f"{table.seq}:0:turn")  # not recorded: retried later


def test_an_smtp_server_that_is_not_there_fails_fast_and_the_bots_play_on(dispatching: Games, cli_env, monkeypatch, queue_client):
    from tests.real_redis import free_port

    monkeypatch.setenv("PBM_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")  # nobody listens
    # The bot (seat 1) moves first; then the game waits on a person whose mail cannot go out.
    game = create(dispatching, [{"name": "Ann", "email": ANN}, {"name": "Bot", "bot": "random"}, {"name": "Bob", "email": "bob@players.test"}])
    worked = run_pbm(cli_env, "worker", "--burst", "-v")
    assert worked.returncode == 0
    log = worked.stderr.decode()
    assert "mail not sent: ConnectionRefusedError" in log and ANN not in log and "bob@" not in log
    assert "Traceback" not in log and all(seat["token"] not in log for seat in game["seats"] if "token" in seat)
    table = dispatching.table(game["game_id"])
    assert table.seq > 2 and 1 not in table.to_act  # the bot played; the people wait, their mails to be retried
    assert not dispatching.store.redis.exists(keys.sent(game["game_id"]))
    # Each mail waits in rq's scheduled registry for its retry: no job sleeps.
    from rq import Queue
    from workers.dispatch import NOTIFY_QUEUE

    scheduled = Queue(NOTIFY_QUEUE, connection=queue_client).scheduled_job_registry.get_job_ids()
    retried = {kind: {job_id.rsplit("-", 1)[1] for job_id in scheduled if game["game_id"] in job_id and f"-{kind}-" in job_id} for kind in ("turn", "invite")}
    assert retried == {"turn": {str(seat) for seat in table.to_act}, "invite": {"0", "2"}}


def work_in_process(queue_client, store) -> None:
    """A burst of a real pbm worker inside the test process (many short bursts cost no start-up)."""
    from workers.worker import make_worker

    make_worker(queue_client, recovering=False, log=store.redis).work(burst=True, logging_level="WARNING")


def test_the_end_of_the_game_tells_every_seat_with_a_channel(dispatching: Games, smtp_sink, queue_client):
    seats = [{"name": "Ann", "email": ANN, "bot": "random"}, {"name": "Bob", "email": "bob@players.test"}, {"name": "Cy", "bot": "random"}]
    created = create(dispatching, seats)
    game_id, bob = created["game_id"], created["seats"][1]["token"]
    work_in_process(queue_client, dispatching.store)
    while (table := dispatching.table(game_id)).outcome is None:
        assert table.to_act == (1,)
        dispatching.submit(game_id, 1, table.legal_moves(1)[0])
        work_in_process(queue_client, dispatching.store)
    turns = [mail for mail in smtp_sink.to("bob@players.test") if mail["Subject"].startswith("Your turn")]
    # One turn mail per move Bob had a choice in; his only legal moves were played for him, untold.
    assert len(turns) == len({env.seq for env in dispatching.store.read(game_id) if env.actor == 1 and env.command and env.origin is None})
    ends = [mail for mail in smtp_sink.to("bob@players.test") if mail["Subject"].startswith("Game over")]
    assert len(ends) == 1 and f"https://pbm.test/play/{bob}" in text_of(ends[0])
    assert "game over: " in text_of(ends[0]) and "(winner)" in text_of(ends[0]) and "pbm replay verify" in text_of(ends[0])
    [ann_end] = [mail for mail in smtp_sink.to(ANN) if mail["Subject"].startswith("Game over")]
    assert ends[0]["Reply-To"] is None  # nothing to answer once the game is over
    assert "Your page:" not in text_of(ann_end)  # a bot's seat has no token: no link
    assert smtp_sink.to(ANN) == [ann_end]  # a bot's seat is never told of its turns
    assert Seats(dispatching.store.redis).contact(game_id, 1) == {"name": "Bob", "email": "bob@players.test"}


def test_the_rows_reach_follows_the_channels_and_the_turn_mails_follow_it(dispatching: Games, smtp_sink, queue_client, local_webhooks):
    created = create(dispatching, people_and_bots({"email": ANN}))
    game_id = created["game_id"]
    seats, row = Seats(dispatching.store.redis), keys.meta(game_id)
    assert dispatching.store.redis.hget(row, "reach") == b"0"
    work_in_process(queue_client, dispatching.store)
    assert len(smtp_sink.to(ANN)) == 1

    def ann_moves() -> None:
        table = dispatching.table(game_id)
        dispatching.submit(game_id, 0, table.legal_moves(0)[0])
        work_in_process(queue_client, dispatching.store)

    seats.erase_contact(game_id, 0, "email")  # Ann wants no more mail
    assert dispatching.store.redis.hget(row, "reach") == b""
    ann_moves()
    assert len(smtp_sink.to(ANN)) == 1
    seats.set_contact(game_id, 0, email=ANN)
    seats.set_contact(game_id, 2, webhook="http://127.0.0.1:9/never")  # a bot's seat: told at the end only
    assert dispatching.store.redis.hget(row, "reach") == b"0,2"
    ann_moves()
    assert len(smtp_sink.to(ANN)) == 2
    dispatching.store.redis.hdel(row, "reach")  # a row from before it was kept: the dispatcher reads the contacts
    ann_moves()
    assert len(smtp_sink.to(ANN)) == 3


def test_the_turn_mail_is_text_and_the_same_in_html_with_its_links_its_hand_in_colour_and_nothing_remote(dispatching: Games, smtp_sink, cli_env):
    created = create(dispatching, people_and_bots({"email": ANN}))
    token = created["seats"][0]["token"]
    assert run_pbm(cli_env, "worker", "--burst").returncode == 0
    [mail] = smtp_sink.to(ANN)  # as the test SMTP server received it, parsed again
    assert mail.get_content_type() == "multipart/alternative"
    assert [part.get_content_type() for part in mail.iter_parts()] == ["text/plain", "text/html"]
    text, html = text_of(mail), mail.get_body(("html",)).get_content()
    parsed = HtmlSeen()
    parsed.feed(html)
    # The same links as the text part, the seat's page first as a "Play now" button; nothing else.
    assert set(parsed.links) == set(re.findall(r"https?://\S+", text)) and f"https://pbm.test/play/{token}" in parsed.links
    assert "Play now" in parsed.words and f"Play now: https://pbm.test/play/{token}" in text
    assert parsed.tags.isdisjoint({"script", "img", "iframe", "object", "link", "style"}) and "javascript:" not in html
    assert not re.search(r"url\(|src=|@import", html)  # no remote image or style of any kind
    # Every word of the text part is in the HTML part (the hand as cards, each in its colour).
    words = set(re.findall(r"[\w@-]+", " ".join(parsed.words)))
    assert set(re.findall(r"[\w@-]+", text)) <= words | {"your", "hand"}
    hand = dispatching.table(created["game_id"]).view(0)["hand"]
    coloured = re.findall(r'color:(#[0-9a-f]{6});font-weight:700;text-align:center">([^<]+)</span>', html)
    assert [card for _colour, card in coloured] == hand
    assert {colour for colour, card in coloured if card.endswith("Sp")} == {"#2f8a3c"} and len({colour for colour, _ in coloured}) > 1


class HtmlSeen(HTMLParser):
    """What a mail reader would find in an HTML part: its tags, its links and its words."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.links: list[str] = []
        self.words: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)
        self.links += [value for key, value in attrs if key == "href"]

    def handle_data(self, data) -> None:
        self.words.append(data)


def test_a_turn_mail_tells_the_deadline_in_the_persons_time_zone_or_in_utc_saying_so(dispatching: Games):
    from pbm import times

    created = create(dispatching, people_and_bots({"email": ANN}))
    table = dispatching.table(created["game_id"])
    now = times.ms_of("2026-12-01T17:00:00Z")
    due = times.ms_of("2026-12-03T18:00:00Z")
    paris = notify.compose(table, [], created["game_id"], 0, "turn", due_ms=due, tz="Europe/Paris", now=now)
    assert "Your move is due in 2 days, Thursday 19:00 CET.\n" in paris["text"]
    unknown = notify.compose(table, [], created["game_id"], 0, "turn", due_ms=due, now=now)
    assert f"Your move is due in 2 days, Thursday 18:00 UTC. {notify.NO_ZONE}" in unknown["text"]
    assert "Thursday 19:00 CET" in paris["html"] and "Thursday 18:00 UTC" in unknown["html"]
    # Written after the deadline (a worker that was busy): past tense, not "is due ... ago".
    late = notify.compose(table, [], created["game_id"], 0, "reminder", due_ms=due, tz="Europe/Paris", now=due + 90_000)
    assert "Your move was due 1 minute ago, Thursday 19:00 CET.\n" in late["text"]
