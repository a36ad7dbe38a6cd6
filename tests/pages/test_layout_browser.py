"""Every page kind of every game on a phone and on a desktop, in a real headless Chromium against a
real `pbm serve` (conftest.py's `served`): the seat's page mid-game (a clock running, so times
show) and at the end, its replay page, the join page of a game with an open seat, and the person's
page. At 360x740, 390x844 and 1280x800 nothing may reach past the viewport's right edge: the
document does not scroll sideways (scrollWidth <= innerWidth) and no visible element's right edge
is past innerWidth. The buttons and links a player taps are at least 44 px high on a phone, a
refusal is not drawn under the sticky header, and deadlines read in the browser's time zone with
UTC on hover.

Screenshots at 390x844 and 1280x800 go to the run's artifacts directory (conftest.py), and with
PBM_SCREENSHOTS=write to docs/screenshots/, the set kept in the repository to review a change of
layout by. Skipped as test_browser.py is when chromium or playwright is missing.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from random import Random

import httpx2 as httpx
import pytest

from bench.random_moves import random_moves
from events.commands import Games
from tests.pages.conftest import ADMIN, ARTIFACTS
from tests.pages.test_review_browser import SEATS, finished_game

SIZES = {"narrow": (360, 740), "phone": (390, 844), "desktop": (1280, 800)}
SHOT_SIZES = ("phone", "desktop")  # the two; the narrowest is checked, not kept
KEPT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
MID_GAME_MOVES = {"holly-oak": 10, "holidays": 6, "holiday-board": 8, "tranquility": 6}
TAP_PX = 44
ZONE = "Asia/Tokyo"  # the browser's: the page's times must read in it, not in UTC

# Everything on the page that reaches past the viewport's right edge, and what a player taps that
# is too small; one function (the page's CSP refuses code made from text, and Playwright sends this
# as a function).
MEASURE = """() => {
  const width = window.innerWidth;
  const visible = (el) => {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none" || Number(style.opacity) === 0) return false;
    const box = el.getBoundingClientRect();
    return box.width > 1 && box.height > 1;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const over = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (!visible(el) || el.closest("details:not([open]) > :not(summary)")) continue;
    const right = el.getBoundingClientRect().right;
    if (right > width + 0.5) over.push(name(el) + " ends at " + Math.round(right));
  }
  const small = [];
  for (const el of document.querySelectorAll("button, a[href], summary, input[type=number], input[type=text], select")) {
    if (!visible(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.height < 43.5 && !el.closest("p, li, td, footer")) small.push(name(el) + " " + Math.round(box.width) + "x" + Math.round(box.height));
  }
  // Holiday!'s map labels as drawn (their real boxes, in the map's units): none under the plane,
  // on another label, on a route (its points every 2 units, widened by half its stroke) or past
  // the map.
  const labels = [];
  for (const map of document.querySelectorAll("svg.map")) {
    const edge = map.viewBox.baseVal;
    const plane = map.querySelector(".plane");
    const meet = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    const texts = [...map.querySelectorAll("text")].map((t) => [t.textContent, t.getBBox()]);
    texts.forEach(([text, box], i) => {
      if (plane && meet(box, plane.getBBox())) labels.push(text + " under the plane");
      if (box.x < edge.x || box.y < edge.y || box.x + box.width > edge.x + edge.width || box.y + box.height > edge.y + edge.height) labels.push(text + " past the map");
      texts.slice(i + 1).forEach(([other, its]) => { if (meet(box, its)) labels.push(text + " on " + other); });
    });
    for (const route of map.querySelectorAll("path.link")) {
      const half = parseFloat(getComputedStyle(route).strokeWidth) / 2, length = route.getTotalLength();
      for (const [text, box] of texts) {
        for (let at = 0; at <= length; at += 2) {
          const {x, y} = route.getPointAtLength(at);
          if (x > box.x - half && x < box.x + box.width + half && y > box.y - half && y < box.y + box.height + half) {
            labels.push(text + " on the route " + route.dataset.between);
            break;
          }
        }
      }
    }
  }
  return {scrollWidth: document.scrollingElement.scrollWidth, innerWidth: width, over: over.slice(0, 10), small: small.slice(0, 10), labels};
}"""


def problems(page, where: str, size: str) -> list[str]:
    """What is wrong with the page at this size: sideways scroll, an element past the right edge,
    on a phone a tap target too small, a map label under the plane, on another or on a route."""
    found = page.evaluate(MEASURE)
    wrong = []
    if found["scrollWidth"] > found["innerWidth"]:
        wrong.append(f"{where} at {size} scrolls sideways: {found['scrollWidth']} > {found['innerWidth']}")
    if found["over"]:
        wrong.append(f"{where} at {size}: past the right edge: {found['over']}")
    if found["labels"]:
        wrong.append(f"{where} at {size}: map labels misplaced: {found['labels']}")
    if size != "desktop" and found["small"]:
        wrong.append(f"{where} at {size}: tap targets under {TAP_PX} px: {found['small']}")
    return wrong


def every_size(page, where: str, wrong: list[str]) -> None:
    """The page at each width: what is wrong added to `wrong`, and shot at the issue's two sizes."""
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)  # a relayout
        wrong += problems(page, where, size)
        if size in SHOT_SIZES:
            shot = f"{where}-{size}.png"
            page.screenshot(path=str(ARTIFACTS / shot))
            if os.environ.get("PBM_SCREENSHOTS") == "write":
                KEPT.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(KEPT / shot))


def new_game(url: str, slug: str, seats: list[dict], **extra) -> dict:
    body = {"game": slug, "players": len(seats), "seats": seats, "late_salts": False, **extra}
    answer = httpx.post(f"{url}/api/games", json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30)
    assert answer.status_code == 201, answer.text
    return answer.json()


def mid_game(url: str, store, slug: str, seed: int) -> dict:
    """A game with a clock, its first seat a person with an address and a time zone, played by
    seeded random moves through the API to the middle of a round."""
    person = {"name": "Ann", "email": f"ann-{uuid.uuid4().hex[:8]}@players.test", "tz": "Europe/Paris"}
    seats = [person] + [{"name": name} for name in ("Bob", "Cy", "Dee")[: SEATS[slug] - 1]]
    created = new_game(url, slug, seats, seed=seed, deadline="48h", forced_moves="ask")
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    games = Games(store)
    with httpx.Client(base_url=url, timeout=30) as client:
        for played, (table, seat, move) in enumerate(random_moves(lambda: games.table(created["game_id"]), Random(seed))):
            if played >= MID_GAME_MOVES[slug] and 0 in table.to_act:
                break
            answer = client.post("/api/me/moves", json={"move": move, "expected_seq": table.seq}, headers={"Authorization": f"Bearer {tokens[seat]}"})
            assert answer.status_code == 200, answer.text
    return created


@pytest.mark.parametrize(("slug", "seed"), [("holly-oak", 3), ("holidays", 4), ("holiday-board", 5), ("tranquility", 6)])
def test_every_page_of_every_game_fits_a_phone_and_a_desktop(browser, served, store, slug, seed):
    url, _env = served
    running = mid_game(url, store, slug, seed)
    ended, _log = finished_game(url, store, slug, seed)
    joinable = new_game(url, slug, [{"name": "Ann"}] + [{"open": True}] * (SEATS[slug] - 1), seed=seed)
    context = browser.new_context(timezone_id=ZONE, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    wrong: list[str] = []
    try:
        page.goto(running["seats"][0]["url"])
        assert page.locator("header.top.my-turn").count() == 1  # Ann's turn: the deadline is hers
        due = page.locator("header.top time")
        assert due.get_attribute("title").endswith(" UTC")  # the exact time on hover
        assert due.locator(".face").inner_text().endswith(" GMT+9")  # the browser's zone (Chromium's name for JST in en-GB)
        every_size(page, f"{slug}-seat", wrong)
        page.get_by_role("link", name="Step through the game, event by event").click()
        page.wait_for_load_state()
        every_size(page, f"{slug}-replay", wrong)
        page.goto(ended["seats"][0]["url"])
        assert page.locator("section.outcome").count() == 1
        every_size(page, f"{slug}-end", wrong)
        page.goto(joinable["join_url"])
        assert page.locator("form").count() >= 1
        every_size(page, f"{slug}-join", wrong)
        page.goto(running["seats"][0]["person_url"])
        assert page.get_by_role("link", name=running["game_id"], exact=False).count() == 1
        every_size(page, f"{slug}-person", wrong)
        assert wrong == []
        assert errors == []
    finally:
        context.close()


def test_a_refused_move_is_not_drawn_under_the_sticky_header_on_a_phone(browser, served, store):
    url, _env = served
    created = mid_game(url, store, "holly-oak", 8)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(created["seats"][0]["url"])
        held = page.locator("form.card-move button")
        assert held.count() >= 1
        # A card that is not a legal move now, sent as if it were: the page comes back at #refusal.
        page.evaluate("""() => { const form = document.querySelector("form.card-move"); form.querySelector("input[name=move]").value = "play 99Zz"; form.submit(); }""")
        page.wait_for_url("**#refusal")
        refusal = page.locator("#refusal").bounding_box()
        header = page.locator("header.top").bounding_box()
        assert refusal is not None and header is not None
        assert refusal["y"] >= header["y"] + header["height"] - 1, (refusal, header)  # below the header, not under it
        page.screenshot(path=str(ARTIFACTS / "holly-oak-refusal-phone.png"))
    finally:
        context.close()


def test_a_move_sent_by_the_pages_script_is_confirmed_in_words_on_a_phone(browser, served, store):
    url, _env = served
    created = mid_game(url, store, "holly-oak", 9)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(created["seats"][0]["url"])
        card = page.locator("form.card-move").first.locator("input[name=move]").get_attribute("value")
        page.locator("form.card-move button").first.click()
        page.locator(".notice").wait_for()
        assert page.locator(".notice").inner_text() == f"You played {card.removeprefix('play ')}."
        page.screenshot(path=str(ARTIFACTS / "holly-oak-played-phone.png"))
    finally:
        context.close()
