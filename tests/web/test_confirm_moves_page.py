"""The seat's setting "Ask me to confirm each move before it is sent", through the app: saved by the
page's settings form with the seat's personal data (events.seats), off by default; while it is on a
move's form sends nothing but the question "Send 7Su?" (a page of its own without JavaScript, whose
Send posts the move again in the form and never in a URL; JSON to the page's script), and Send
plays it; turned off, a move goes at once again. The browser's side is tests/pages/test_confirm_browser.py."""

from __future__ import annotations

import html
import re

from events.seats import Seats
from events.store import Store
from tests.web.conftest import TestClient, bearer, new_game
from tests.web.test_orders_page import opened


def hidden_fields(page: str) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">', page)}


def mover(client: TestClient, created: dict) -> tuple[int, str, str]:
    """(seat, token, its first legal move) of the seat to move now."""
    view = client.get("/api/me", headers=bearer(created["seats"][0]["token"])).json()["view"]
    seat = view["to_act"][0]
    token = created["seats"][seat]["token"]
    return seat, token, client.get("/api/me", headers=bearer(token)).json()["view"]["legal_moves"][0]


def saved(client: TestClient, here: str, form: dict) -> str:
    answer = client.post(f"{here}/settings", data=form, follow_redirects=False)
    assert answer.status_code == 303 and re.fullmatch(re.escape(here) + r"\?note=[A-Za-z0-9_-]{16}(#refusal)?", answer.headers["location"])
    return html.unescape(client.get(answer.headers["location"]).text)


def test_a_seat_that_confirms_its_moves_is_asked_send_then_plays_without_javascript(client: TestClient, store: Store):
    created = new_game(client)
    game_id = created["game_id"]
    seat, token, move = mover(client, created)
    page, here, csrf = opened(client, token)
    assert 'name="confirm_moves">' in page  # off until the seat turns it on
    assert "Saved: your page asks you before it sends a move." in saved(client, here, {"csrf": csrf, "confirm_moves": "on"})
    assert Seats(store.redis).contact(game_id, seat)["confirm_moves"] == "1"
    assert 'name="confirm_moves" checked>' in client.get(here).text

    length = store.length(game_id)
    form = {"csrf": csrf, "move": move, "expected_seq": str(length), "idempotency_key": "k" * 32}
    asked = client.post(f"{here}/move", data=form, follow_redirects=False)
    assert asked.status_code == 200 and store.length(game_id) == length  # nothing sent yet
    question = f"Send {move.removeprefix('play ')}?"
    assert f"<h1 id=\"confirm-title\">{question}</h1>" in asked.text
    assert re.search(r'<form method="post" action="([^"]+)" class="confirm">', asked.text).group(1) == f"{here}/move"  # no query: the move is in the form
    assert f'<a class="button quiet" href="{here}">Change</a>' in asked.text
    again = hidden_fields(asked.text)
    assert again == {**form, "confirmed": "1"}

    sent = client.post(f"{here}/move", data=again, follow_redirects=False)
    assert sent.status_code == 303 and move not in sent.headers["location"]
    assert store.length(game_id) > length
    assert f"You played {move.removeprefix('play ')}." in html.unescape(client.get(sent.headers["location"]).text)


def test_the_pages_script_is_asked_in_json_and_a_seat_can_turn_it_off(client: TestClient, store: Store):
    created = new_game(client)
    game_id = created["game_id"]
    _seat, token, move = mover(client, created)
    _page, here, csrf = opened(client, token)
    saved(client, here, {"csrf": csrf, "confirm_moves": "on"})
    length = store.length(game_id)
    form = {"csrf": csrf, "move": move, "expected_seq": str(length)}
    asked = client.post(f"{here}/move", data=form, headers={"Accept": "application/json"})
    assert asked.status_code == 200 and asked.json() == {"confirm": move, "question": f"Send {move.removeprefix('play ')}?"}
    assert store.length(game_id) == length

    assert "Saved: your page sends a move as soon as you choose it." in saved(client, here, {"csrf": csrf})
    assert "confirm_moves" not in Seats(store.redis).contact(game_id, _seat)
    played = client.post(f"{here}/move", data=form, headers={"Accept": "application/json"})
    assert played.status_code == 200 and played.json()["played"] == move and store.length(game_id) > length


def test_a_settings_form_from_an_old_page_is_refused_in_that_form_and_changes_nothing(client: TestClient, store: Store):
    created = new_game(client)
    seat, token, _move = mover(client, created)
    _page, here, _csrf = opened(client, token)
    shown = saved(client, here, {"csrf": "0" * 64, "confirm_moves": "on"})
    assert re.search(r'<section class="settings".*Not saved: this form is out of date', shown, re.DOTALL)
    assert "confirm_moves" not in Seats(store.redis).contact(created["game_id"], seat)
