"""The seat's page's "Plan ahead", in process and without JavaScript: its forms add an order (move,
condition, `after` chain), reorder, remove and clear them through events.orders, as PUT
/api/me/orders does; a bad order is refused in one line drawn in that form, with nothing changed;
no order text and no refusal goes into a redirect's URL; a form from another site or an old page is
refused; the game's conditions are listed, and an order dropped shows on the page."""

from __future__ import annotations

import html
import re

from events.store import Store
from tests.web.conftest import TestClient, bearer, new_game


def opened(client: TestClient, token: str) -> tuple[str, str, str]:
    """(page html, page path, csrf) of the seat whose link `token` is: the cookie is left."""
    page = client.get(f"/play/{token}")
    assert page.status_code == 200
    return page.text, page.url.path, re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def plan_section(page: str) -> str:
    return html.unescape(re.search(r'<section class="plan".*?</section>', page, re.DOTALL).group(0))


def posted(client: TestClient, here: str, form: dict, **headers: str):
    """A form of Plan ahead posted as a browser without JavaScript posts it, then the page it
    redirects to; the redirect's URL names only a note."""
    answer = client.post(f"{here}/orders", data=form, headers=headers, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    location = answer.headers["location"]
    assert re.fullmatch(re.escape(here) + r"\?note=[A-Za-z0-9_-]{16}(#refusal)?", location), location
    return client.get(location).text, location


def held(client: TestClient, token: str) -> list[str]:
    return [order["text"] for order in client.get("/api/me/orders", headers=bearer(token)).json()["orders"]]


def test_plan_ahead_adds_reorders_removes_and_clears_orders_without_javascript(client: TestClient, store: Store):
    created = new_game(client)
    game_id = created["game_id"]
    views = {seat["seat"]: client.get("/api/me", headers=bearer(seat["token"])).json()["view"] for seat in created["seats"]}
    seat = next(s for s, view in views.items() if s not in view["to_act"])
    token = created["seats"][seat]["token"]
    hand = views[seat]["hand"]
    page, here, csrf = opened(client, token)
    plan = plan_section(page)
    assert "Plan ahead" in plan and "You hold no orders." in plan
    assert "<code><Season> is led (Spring, Summer, Fall, Winter)</code>" in plan and "<code>I lead</code>" in plan  # as pbm rules lists them
    assert f'<option value="play {hand[0]}">' in page  # the move field offers the hand's cards
    length = store.length(game_id)

    shown, _ = posted(client, here, {"csrf": csrf, "do": "add", "move": f"play {hand[0]}", "when": "Winter is led"})
    assert "Your standing orders are saved." in shown and f"if Winter is led: play {hand[0]}" in plan_section(shown)
    other = next(s for s in views if s != seat)
    posted(client, here, {"csrf": csrf, "do": "add", "move": f"play {hand[1]}", "when": "if I lead", "after": f"{other} play {views[other]['hand'][0]}"})
    posted(client, here, {"csrf": csrf, "do": "add", "move": f"next: play {hand[2]}"})  # a whole order in the move field, as in a mail
    first, second, third = f"if Winter is led: play {hand[0]}", f"after {other} play {views[other]['hand'][0]} if I lead: play {hand[1]}", f"next: play {hand[2]}"
    assert held(client, token) == [first, second, third]
    assert client.get("/api/me/orders", headers=bearer(token)).json()["orders"] == client.get("/api/me", headers=bearer(token)).json()["orders"]

    ids = [order["id"] for order in client.get("/api/me/orders", headers=bearer(token)).json()["orders"]]
    posted(client, here, {"csrf": csrf, "do": "down", "id": ids[0]})
    assert held(client, token) == [second, first, third]
    shown, _ = posted(client, here, {"csrf": csrf, "do": "up", "id": ids[2]})
    assert held(client, token) == [second, third, first]
    plan = plan_section(shown)
    assert plan.index(second) < plan.index(third) < plan.index(first)  # the page lists them in that order
    assert 'aria-label="remove order 3"' in shown and 'aria-label="move order 1 up"' not in shown
    posted(client, here, {"csrf": csrf, "do": "remove", "id": ids[1]})
    assert held(client, token) == [third, first]

    for form, reason in (
        ({"do": "add", "move": f"play {hand[3]}", "when": "Snow falls"}, "order 3 (`if Snow falls: play " + hand[3] + "`): unknown condition 'Snow falls'"),
        ({"do": "add", "move": "fly to the moon"}, "order 3 (`next: fly to the moon`)"),
        ({"do": "add", "move": f"play {hand[3]}", "after": f"{seat} play {hand[4]}"}, f"`after` names seat {seat}, the seat leaving the order"),
        ({"do": "add", "move": f"play {hand[3]}", "after": f"7 play {hand[4]}"}, "`after` names seat 7: this table has seats 0 to 2"),
        ({"do": "remove", "id": "nosuchorder"}, "you hold no such order now"),
        ({"do": "sideways", "id": ids[0]}, "an order is moved remove, up, down, not 'sideways'"),
    ):
        shown, location = posted(client, here, {"csrf": csrf, **form})
        assert location.endswith("#refusal")  # and, as posted() checks, names only a note
        refusal = html.unescape(re.search(r'<p class="refusal" id="refusal" role="alert">(.*?)</p>', shown, re.DOTALL).group(1))
        assert refusal.startswith("Not changed: ") and reason in refusal and "\n" not in refusal, (form, refusal)
        assert 'id="refusal"' in plan_section(shown)  # drawn in Plan ahead, not among the moves
        assert held(client, token) == [third, first]  # nothing changed
    shown, _ = posted(client, here, {"csrf": "0" * 64, "do": "clear"})
    assert "this form is out of date" in plan_section(shown) and held(client, token) == [third, first]
    shown, _ = posted(client, here, {"csrf": csrf, "do": "clear"}, origin="https://elsewhere.example")
    assert "a form must come from your own page" in plan_section(shown) and held(client, token) == [third, first]
    other_seat_page = f"/play/g/{game_id}/{other}"
    refused = client.post(f"{other_seat_page}/orders", data={"csrf": csrf, "do": "clear"}, follow_redirects=False)
    assert refused.status_code == 401 and held(client, token) == [third, first]  # this cookie opens its own seat only

    shown, _ = posted(client, here, {"csrf": csrf, "do": "clear"})
    assert "Your standing orders are all taken off." in shown and "You hold no orders." in plan_section(shown)
    assert held(client, token) == []
    assert store.length(game_id) == length  # orders live beside the log: none of this wrote to it
    assert all(client.get("/api/me", headers=bearer(s["token"])).json()["orders"] == [] for s in created["seats"])


def test_an_order_dropped_shows_on_the_page_of_its_seat_alone(client: TestClient):
    # Forced moves asked, not played: a seat after the mover with one card to follow would have
    # it played for it, and its order would be dropped for that card, not for the broken chain.
    for _ in range(20):  # a deal whose second seat to play has a choice (most have)
        created = new_game(client, forced_moves="ask")
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        (leader,) = client.get("/api/me", headers=bearer(tokens[0])).json()["view"]["to_act"]
        assert client.post("/api/me/moves", headers=bearer(tokens[leader]), json={"move": "play 1Sp"}).status_code == 200
        views = {seat: client.get("/api/me", headers=bearer(token)).json()["view"] for seat, token in tokens.items()}
        (mover,) = views[0]["to_act"]
        legal = views[mover]["legal_moves"]
        if len(legal) >= 2:
            break
    later = (mover + 1) % 3  # plays after the mover in this trick
    assert len(legal) >= 2 and later != leader
    page, here, csrf = opened(client, tokens[later])
    posted(client, here, {"csrf": csrf, "do": "add", "move": f"play {views[later]['hand'][0]}", "after": f"{mover} {legal[1]}"})
    assert client.post("/api/me/moves", headers=bearer(tokens[mover]), json={"move": legal[0]}).status_code == 200
    line = f"your order `after {mover} {legal[1]}: play {views[later]['hand'][0]}` was dropped: it waited for seat {mover} to {legal[1]}, and seat {mover}'s move was {legal[0]}"
    page = client.get(here).text
    assert line in plan_section(page)
    assert held(client, tokens[later]) == []
    for seat in (s for s in tokens if s != later):
        client.cookies.clear()
        assert "was dropped" not in opened(client, tokens[seat])[0]
