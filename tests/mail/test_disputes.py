"""Disputes through real parts: a seat raises one over the API (POST /api/me/disputes) or by a mail
reply starting `dispute`; it is kept beside the log (the log does not change); the operator sees it
with `pbm disputes` and in the console and settles it with a note; a real worker then sends every
seat, through a real SMTP server, the audit at that seq with the operator's words, each seat's copy
holding only what that seat may see while the game runs. Bad input gets one line and changes nothing."""

from __future__ import annotations

import re
import uuid

import pytest

from events import keys
from events.commands import Games
from events.disputes import MAX_PER_SEAT, MAX_REASON_CHARS, Disputes
from pbm.mail import inbound as mail_in
from pbm.web import create_app
from tests.mail.test_bad_mail import mail_to
from tests.mail.test_notify import work_in_process
from tests.web.conftest import ADMIN, TestClient, bearer
from tests.mail.conftest import text_of

pytestmark = pytest.mark.usefixtures("clean_notify_queue")


def addresses() -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{who}-{tag}@players.test" for who in ("ann", "bob", "cy")]


@pytest.fixture
def table_of_three(dispatching: Games):
    """A running Holly Oak game of three people, each with an address, and a few moves played."""
    mails = addresses()
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app) as client:
        seats = [{"name": name, "email": mail} for name, mail in zip(("Ann", "Bob", "Cy"), mails)]
        response = client.post("/api/games", json={"game": "holly-oak", "players": 3, "seats": seats, "seed": 11, "late_salts": False}, headers=bearer(ADMIN))
        assert response.status_code == 201, response.text
        created = response.json()
        game_id = created["game_id"]
        for _ in range(4):
            table = dispatching.table(game_id)
            seat = table.to_act[0]
            dispatching.submit(game_id, seat, table.legal_moves(seat)[0])
        yield client, game_id, [seat["token"] for seat in created["seats"]], mails


def stored(games: Games, game_id: str) -> list:
    return Disputes(games.store).all(game_id)


def test_a_seat_raises_a_dispute_over_the_api_once_per_key_and_bad_ones_change_nothing(dispatching: Games, table_of_three) -> None:
    client, game_id, tokens, _mails = table_of_three
    log_length = dispatching.store.length(game_id)
    body = {"seq": 2, "reason": "  the lead  was not mine to play "}
    raised = client.post("/api/me/disputes", json=body, headers={**bearer(tokens[0]), "Idempotency-Key": "k1"})
    assert raised.status_code == 201, raised.text
    dispute = raised.json()["dispute"]
    assert dispute["seq"] == 2 and dispute["seat"] == 0 and dispute["reason"] == "the lead was not mine to play" and dispute["status"] == "open"
    again = client.post("/api/me/disputes", json=body, headers={**bearer(tokens[0]), "Idempotency-Key": "k1"})
    assert again.status_code == 200 and again.json() == {"dispute": dispute, "duplicate": True}
    reused = client.post("/api/me/disputes", json={"seq": 1, "reason": "another"}, headers={**bearer(tokens[0]), "Idempotency-Key": "k1"})
    assert reused.status_code == 422 and "used for another dispute" in reused.json()["error"]
    bad = {
        "no seq": {"seq": log_length, "reason": "x"},
        "future": {"seq": 10**6, "reason": "x"},
        "empty": {"seq": 1, "reason": " \n "},
        "long": {"seq": 1, "reason": "x" * (MAX_REASON_CHARS + 1)},
        "text seq": {"seq": "1", "reason": "x"},
        "control": {"seq": 1, "reason": "a\x00b"},
    }
    for what, wrong in bad.items():
        refused = client.post("/api/me/disputes", json=wrong, headers=bearer(tokens[1]))
        assert refused.status_code == 422, (what, refused.text)
        error = refused.json()["error"]
        assert "\n" not in error and "Traceback" not in error, what
    assert "no seq 1000000" in client.post("/api/me/disputes", json=bad["future"], headers=bearer(tokens[1])).json()["error"]
    assert "empty" in client.post("/api/me/disputes", json=bad["empty"], headers=bearer(tokens[1])).json()["error"]
    assert f"at most {MAX_REASON_CHARS}" in client.post("/api/me/disputes", json=bad["long"], headers=bearer(tokens[1])).json()["error"]
    assert [d.id for d in stored(dispatching, game_id)] == [dispute["id"]]
    assert dispatching.store.length(game_id) == log_length  # a dispute is no event
    mine = client.get("/api/me/disputes", headers=bearer(tokens[0])).json()["disputes"]
    assert [d["id"] for d in mine] == [dispute["id"]]
    assert client.get("/api/me/disputes", headers=bearer(tokens[1])).json()["disputes"] == []  # not another seat's
    assert client.post("/api/me/disputes", json=body, headers=bearer("pbm-not-a-token")).status_code == 401


def test_a_seat_may_raise_only_so_many(dispatching: Games, table_of_three) -> None:
    client, game_id, tokens, _mails = table_of_three
    for n in range(MAX_PER_SEAT):
        assert client.post("/api/me/disputes", json={"seq": 1, "reason": f"number {n}"}, headers=bearer(tokens[2])).status_code == 201
    over = client.post("/api/me/disputes", json={"seq": 1, "reason": "one more"}, headers=bearer(tokens[2]))
    assert over.status_code == 422 and f"{MAX_PER_SEAT} disputes" in over.json()["error"]
    assert len(stored(dispatching, game_id)) == MAX_PER_SEAT


def test_a_mailed_dispute_is_raised_once_and_answered_and_a_bad_one_changes_nothing(dispatching: Games, table_of_three, smtp_sink) -> None:
    _client, game_id, tokens, mails = table_of_three
    address = f"pbm+{tokens[1]}@pbm.test"
    first = mail_in.receive(dispatching, mail_to(address, "Dispute 3: the trick went to the wrong seat\n\n> your turn", sender=mails[1], Message_ID="<d1@players.test>"))
    assert first.status == "disputed" and first.answered and "wrong seat" not in first.line()
    twice = mail_in.receive(dispatching, mail_to(address, "Dispute 3: the trick went to the wrong seat", sender=mails[1], Message_ID="<d1@players.test>"))
    assert twice.status == "disputed" and "answered before" in twice.reason
    [dispute] = stored(dispatching, game_id)
    assert (dispute.seat, dispute.seq, dispute.reason) == (1, 3, "the trick went to the wrong seat")
    answers = [mail for mail in smtp_sink.to(mails[1]) if "dispute" in text_of(mail).lower()]
    assert len(answers) == 1 and f"Your dispute of seq 3 in {game_id} is with the operator" in text_of(answers[0])
    for body, said in (("dispute: no number", "write `dispute SEQ: REASON`"), ("dispute 999: too far", "no seq 999"), ("dispute 2", "the reason is empty")):
        refused = mail_in.receive(dispatching, mail_to(address, body, sender=mails[1], Message_ID=f"<{uuid.uuid4().hex}@players.test>"))
        assert refused.status == "refused" and refused.answered, body
        assert said in text_of(smtp_sink.to(mails[1])[-1]), body
    assert stored(dispatching, game_id) == [dispute]


def test_the_operator_settles_a_dispute_and_every_seat_gets_its_audit(dispatching: Games, table_of_three, smtp_sink, queue_client, pbm) -> None:
    client, game_id, tokens, mails = table_of_three
    reason = "my lead at seq 2 was refused for no reason"
    dispute = client.post("/api/me/disputes", json={"seq": 2, "reason": reason}, headers=bearer(tokens[0])).json()["dispute"]
    listed = pbm("disputes").output
    assert f"{game_id} {dispute['id']}: seat 0 disputes seq 2" in listed and "[open]" in listed
    assert dispatching.store.redis.zscore(keys.DISPUTED, game_id) is not None
    assert "settle with GAME --settle ID --note TEXT" in pbm("disputes", game_id, "--settle", dispute["id"], ok=False).output
    assert "is empty" in pbm("disputes", game_id, "--settle", dispute["id"], "--note", "  ", ok=False).output
    assert "no dispute 'nope'" in pbm("disputes", game_id, "--settle", "nope", "--note", "x", ok=False).output
    work_in_process(queue_client, dispatching.store)
    before = {mail: len(smtp_sink.to(mail)) for mail in mails}
    settled = pbm("disputes", game_id, "--settle", dispute["id"], "--note", "The lead was legal: the log shows it was your turn.")
    assert "the audit goes to seat 0, seat 1, seat 2" in settled.output
    again = pbm("disputes", game_id, "--settle", dispute["id"], "--note", "again", ok=False)
    assert "settled already: it is closed" in again.output and "\n" not in again.output.strip()
    assert pbm("disputes").output.count(dispute["id"]) == 0  # no longer open
    assert dispatching.store.redis.zscore(keys.DISPUTED, game_id) is None
    assert "settled" in pbm("disputes", game_id).output
    work_in_process(queue_client, dispatching.store)
    table = dispatching.table(game_id)
    assert table.outcome is None
    for seat, mail in enumerate(mails):
        [told] = [m for m in smtp_sink.to(mail)[before[mail]:] if m["Subject"] == f"Dispute settled: {game_id}, seq 2"]
        text = text_of(told)
        assert "The operator's words: The lead was legal: the log shows it was your turn." in text
        assert "## The disputed point: seq 2" in text and "## Disputes" in text and "## Verification" in text
        assert (reason in text) == (seat == 0)  # a reason is its seat's own while the game runs
        others = {card for other in range(3) if other != seat for card in table.view(other)["hand"]}
        assert not [card for card in others if re.search(rf"(?<![0-9A-Za-z]){card}(?![0-9A-Za-z])", text)], "another seat's hidden card is in its audit"
        assert tokens[seat] in text and not any(token in text for other, token in enumerate(tokens) if other != seat)
    # Run again: each seat was told once.
    work_in_process(queue_client, dispatching.store)
    assert all(len([m for m in smtp_sink.to(mail) if m["Subject"].startswith("Dispute settled")]) == 1 for mail in mails)
    audit = pbm("replay", "audit", game_id, "--seq", "2", "--referee").output
    assert "Disputes" in audit and reason in audit and "The lead was legal" in audit


CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')
KEY = re.compile(r'name="idempotency_key" value="([^"]+)"')


def test_the_replay_page_raises_a_dispute_of_the_step_it_shows(dispatching: Games, table_of_three) -> None:
    client, game_id, tokens, _mails = table_of_three
    opened = client.get(f"/review/{tokens[0]}")
    assert opened.status_code == 200 and tokens[0] not in str(opened.url)
    page = client.get(f"/review/g/{game_id}/0?seq=3")
    assert "Dispute this step" in page.text
    csrf, key = CSRF.search(page.text).group(1), KEY.search(page.text).group(1)
    form = {"csrf": csrf, "seq": "3", "idempotency_key": key, "reason": "this trick was not won by Cy"}
    sent = client.post(f"/review/g/{game_id}/0/disputes", data=form, follow_redirects=False)
    assert sent.status_code == 303 and sent.headers["location"].startswith(f"/review/g/{game_id}/0?seq=3&note=")
    landed = client.get(sent.headers["location"])
    [dispute] = stored(dispatching, game_id)
    assert (dispute.seat, dispute.seq, dispute.reason) == (0, 3, "this trick was not won by Cy")
    assert f"dispute <code>{dispute.id}</code>" in landed.text and "this trick was not won by Cy" in landed.text
    assert client.post(f"/review/g/{game_id}/0/disputes", data=form, follow_redirects=False).status_code == 303  # sent twice: one dispute
    for wrong, said in (({**form, "reason": "  ", "idempotency_key": "other"}, "the reason is empty"),
                        ({**form, "csrf": "0" * 64, "idempotency_key": "third"}, "out of date"),
                        ({**form, "seq": "x", "idempotency_key": "fourth"}, "whole number")):
        answer = client.post(f"/review/g/{game_id}/0/disputes", data=wrong, follow_redirects=True)
        assert "Not raised: " in answer.text and said in answer.text, said
    assert stored(dispatching, game_id) == [dispute]
    other = client.post(f"/review/g/{game_id}/1/disputes", data=form, follow_redirects=False)  # not seat 1's cookie
    assert other.status_code == 401 and stored(dispatching, game_id) == [dispute]


def test_the_console_lists_open_disputes_and_settles_one_with_the_operators_words(dispatching: Games, table_of_three) -> None:
    client, game_id, tokens, _mails = table_of_three
    dispute = client.post("/api/me/disputes", json={"seq": 1, "reason": "the deal looks wrong"}, headers=bearer(tokens[2])).json()["dispute"]
    signed = client.post("/admin/sign-in", data={"token": ADMIN})
    csrf = CSRF.search(signed.text).group(1)
    home = client.get("/admin")
    assert f"seat 2 disputes seq 1" in home.text and "the deal looks wrong" in home.text
    settle = f"/admin/games/{game_id}/disputes/{dispute['id']}/settle"
    empty = client.post(settle, data={"csrf": csrf, "note": " "}, follow_redirects=False)
    assert empty.status_code == 422 and "Not done: the note is empty" in empty.text
    assert stored(dispatching, game_id)[0].open
    done = client.post(settle, data={"csrf": csrf, "note": "The deal matches the seed."}, follow_redirects=False)
    assert done.status_code == 303
    assert "The dispute is settled" in client.get(done.headers["location"]).text
    [settled] = stored(dispatching, game_id)
    assert settled.note == "The deal matches the seed." and not settled.open
    again = client.post(settle, data={"csrf": csrf, "note": "twice"}, follow_redirects=False)
    assert again.status_code == 422 and "settled already: it is closed" in again.text
    assert stored(dispatching, game_id) == [settled]
    assert "seat 2 disputes seq 1" not in client.get("/admin").text
