"""The clock through the web front end: a deadline at creation, the clock in the operator's listing
and game, pause/resume/extend by the operator, a seat's vacation, GET /api/me's deadline and the
seat's page with the deadline at the top; bad input refused in one line, nothing written."""

from __future__ import annotations

import html
import re

import core
from events import clock as clocks
from tests.conftest import forged
from tests.web.conftest import ADMIN, bearer, new_game

CLOCK = {"deadline": "48h", "reminders": "24h,2h", "vacation_days": 3, "autopilot_after": 2}


def test_a_game_created_with_a_deadline_shows_its_clock(client, store) -> None:
    created = new_game(client, **CLOCK)
    game_id = created["game_id"]
    assert created["clock"]["deadline_s"] == 172800 and created["clock"]["reminders_s"] == [86400, 7200]
    first = created["clock"]["seats"][0]
    assert first["to_act"] and first["due"].endswith("Z") and first["vacation_days_left"] == 3
    listed = {row["game_id"]: row for row in client.get("/api/games", headers=bearer(ADMIN)).json()["games"]}
    assert listed[game_id]["clock"]["seats"][0]["due"] == first["due"]
    plain = new_game(client)["game_id"]
    assert "clock" not in listed.get(plain, {}) and new_game(client)["clock"] is None
    one = client.get(f"/api/games/{game_id}", headers=bearer(ADMIN)).json()
    assert one["clock"]["deadline"] == "2d" and not one["clock"]["paused"]
    seat = first["seat"]
    me = client.get("/api/me", headers=bearer(created["seats"][seat]["token"])).json()
    assert me["deadline"] == first["due"] and me["clock"]["deadline"]["seat"] == seat
    other = client.get("/api/me", headers=bearer(created["seats"][(seat + 1) % 3]["token"])).json()
    assert other["deadline"] == first["due"] and other["clock"]["vacation_days_left"] == 3
    assert client.get("/api/me", headers=bearer(new_game(client)["seats"][0]["token"])).json()["deadline"] is None


def test_bad_clock_settings_are_refused_in_one_line_and_nothing_is_created(client, store) -> None:
    before = store.redis.zcard("pbm:games")
    for extra, named in [
        ({"deadline": "2 days"}, "deadline: '2 days' is not a duration"),
        ({"deadline": "1h", "reminders": "2h"}, "reminders: 2h before a deadline of 1h"),
        ({"reminders": "2h"}, "need a deadline"),
        ({"deadline": "0s"}, "deadline: '0s' is out of range"),
    ]:
        body = {"game": "holly-oak", "players": 3, "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}], "late_salts": False, **extra}
        refused = client.post("/api/games", json=body, headers=bearer(ADMIN))
        assert refused.status_code == 422 and named in refused.json()["error"], refused.text
        assert "\n" not in refused.json()["error"]
    assert store.redis.zcard("pbm:games") == before


def test_the_operator_pauses_resumes_and_extends(client) -> None:
    created = new_game(client, **CLOCK)
    game_id = created["game_id"]
    due = created["clock"]["seats"][0]["due_ms"]

    def change(**body):
        return client.post(f"/api/games/{game_id}/clock", json=body, headers=bearer(ADMIN))

    assert change(action="pause").json()["clock"]["paused"]
    assert change(action="pause").status_code == 422
    token = created["seats"][created["clock"]["seats"][0]["seat"]]["token"]
    assert client.get("/api/me", headers=bearer(token)).json()["deadline"] is None  # paused: no due time
    page = client.get(f"/play/{token}").text
    assert "The clock is paused." in page
    resumed = change(action="resume").json()["clock"]
    assert not resumed["paused"] and resumed["seats"][0]["due_ms"] >= due
    extended = change(action="extend", by="12h").json()["clock"]
    assert extended["seats"][0]["due_ms"] >= due + 12 * 3_600_000
    assert "extend by: '12 h' is not a duration" in change(action="extend", by="12 h").json()["error"]
    assert change(action="extend").status_code == 422 and change(action="stop").status_code == 422
    assert change(action="pause", by="1h").status_code == 422
    unauthorized = client.post(f"/api/games/{game_id}/clock", json={"action": "pause"}, headers=bearer(token))
    assert unauthorized.status_code == 401


def test_a_seat_takes_vacation_from_its_yearly_bank(client, store) -> None:
    created = new_game(client, **CLOCK)
    seat = created["clock"]["seats"][0]["seat"]
    token = created["seats"][seat]["token"]
    taken = client.post("/api/me/vacation", json={"days": 2}, headers=bearer(token))
    assert taken.status_code == 200, taken.text
    row = taken.json()["clock"]["seats"][0]
    assert row["seat"] == seat and row["vacation_days_left"] == 1 and row["on_vacation_until"]
    assert row["due_ms"] >= created["clock"]["seats"][0]["due_ms"] + 2 * 86_400_000
    length = store.length(created["game_id"])
    refused = client.post("/api/me/vacation", json={"days": 2}, headers=bearer(token))
    assert refused.status_code == 422 and "has 1 vacation day left this year, not 2" in refused.json()["error"]
    assert client.post("/api/me/vacation", json={"days": 0}, headers=bearer(token)).status_code == 422
    assert store.length(created["game_id"]) == length  # nothing written
    page = client.get(f"/play/{token}").text
    assert "You are on vacation until" in page and "Your move is due <time" in page
    plain = new_game(client)
    assert "has no clock" in client.post("/api/me/vacation", json={"days": 1}, headers=bearer(plain["seats"][0]["token"])).json()["error"]


def test_a_seat_takes_vacation_from_its_page(client, store) -> None:
    created = new_game(client, **CLOCK)
    seat = created["clock"]["seats"][0]["seat"]
    token = created["seats"][seat]["token"]
    opened = client.get(f"/play/{token}")  # the link: its token goes into the seat's cookie
    page, here = opened.text, f"/play/g/{created['game_id']}/{seat}"
    assert opened.url.path == here
    assert "3 days left this year" in page and f'action="{here}/vacation"' in page
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    length = store.length(created["game_id"])

    def post(form: dict, token: str = token):
        client.cookies.set("pbm_seat", token, domain="127.0.0.1", path=here)  # the page's, or another
        return client.post(f"{here}/vacation", data=form, follow_redirects=False)

    for form, reason in (
        ({"days": "5", "csrf": csrf}, "has 3 vacation days left this year, not 5"),
        ({"days": "0", "csrf": csrf}, "a whole number from 1 to"),
        ({"days": "two", "csrf": csrf}, "a whole number from 1 to"),
        ({"days": "1", "csrf": "0" * 64}, "this form is out of date"),
    ):
        refused = post(form)
        assert refused.status_code == 303 and refused.headers["location"].startswith(f"{here}?note="), form
        assert refused.headers["location"].endswith("#refusal") and "vacation" not in refused.headers["location"]
        shown = client.get(refused.headers["location"]).text
        assert "No vacation taken: " in shown and reason in html.unescape(shown) and "Not played" not in shown, form
    assert post({"days": "1", "csrf": csrf}, token=forged(token)).status_code == 401
    assert store.length(created["game_id"]) == length  # nothing written
    taken = post({"days": "2", "csrf": csrf})
    assert taken.status_code == 303 and taken.headers["location"].startswith(f"{here}?note=")
    shown = client.get(taken.headers["location"]).text
    assert "Your vacation has begun" in shown and "You are on vacation until" in shown and "1 day left this year" in shown
    # Read as people read times (pbm.times), UTC on hover, the clock face for the page's script to make local.
    assert re.search(r'You are on vacation until <time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC" '
                     r'data-form="weekday"><span class="face">[A-Z][a-z]+day \d\d:\d\d UTC</span> \(in (1 day|2 days)\)</time>: your clock is stopped', shown)
    assert "Your vacation has begun" not in client.get(taken.headers["location"]).text  # a note is read once
    assert client.get("/api/me", headers=bearer(token)).json()["clock"]["vacation_days_left"] == 1
    plain = new_game(client)  # no clock, no form
    assert "/vacation" not in client.get(f"/play/{plain['seats'][0]['token']}").text


def test_the_page_shows_whose_turn_and_the_deadline_at_the_top(client) -> None:
    created = new_game(client, **CLOCK)
    seat = created["clock"]["seats"][0]["seat"]
    due = created["clock"]["seats"][0]["due"]
    mine = client.get(f"/play/{created['seats'][seat]['token']}").text
    top = mine[mine.index('<header class="top'): mine.index("</header>")]
    assert "Your turn." in top and f'Your move is due <time datetime="{due}" title=' in top
    waiting = client.get(f"/play/{created['seats'][(seat + 1) % 3]['token']}").text
    top = waiting[waiting.index('<header class="top'): waiting.index("</header>")]
    name = created["seats"][seat]["name"]
    assert f"Waiting for {name}." in top and f"{name}'s move is due <time datetime=\"{due}\"" in html.unescape(top)  # the seat number only where two names are alike


def test_a_seat_the_autopilot_plays_is_taken_back_by_its_players_move(client, app) -> None:
    created = new_game(client, **CLOCK)
    games = app.state.pbm.games
    game_id = created["game_id"]
    table = games.table(game_id)
    seat = table.to_act[0]
    games.seat_bots(game_id, {seat: clocks.AUTOPILOT})
    move = games.table(game_id).legal_moves(seat)[0]
    played = client.post("/api/me/moves", json={"move": move, "expected_seq": table.seq + 1}, headers=bearer(created["seats"][seat]["token"]))
    assert played.status_code == 200, played.text
    assert seat not in games.table(game_id).bots
    handed = games.store.read(game_id, table.seq + 1, table.seq + 1)[0]
    assert handed.kind == core.BotsSeated.kind and handed.event.bots == ()
    # A seat the operator gave to a bot stays the bot's.
    other = games.table(game_id).to_act[0]
    games.seat_bots(game_id, {other: "random"})
    refused = client.post("/api/me/moves", json={"move": "play 1Sp"}, headers=bearer(created["seats"][other]["token"]))
    assert refused.status_code == 409 and "played by a bot (random)" in refused.json()["error"]


def test_the_pages_report_tells_when_each_line_happened_with_utc_on_hover(client) -> None:
    created = new_game(client, forced_moves="ask")
    seat = next(s for s in created["seats"] if "1Sp" in client.get("/api/me", headers=bearer(s["token"])).json()["view"]["hand"])
    assert client.post("/api/me/moves", json={"move": "play 1Sp"}, headers=bearer(seat["token"])).status_code == 200
    page = client.get(f"/play/{seat['token']}").text
    report = page[page.index('<section class="report"'): page.index("</section>", page.index('<section class="report"'))]
    stamped = re.findall(r'<li>([^<]+) <span class="when">· <time datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC">'
                         r"(in under a minute|under a minute ago)</time></span></li>", report)
    assert stamped and stamped[0][0].startswith("you led 1Sp"), report
