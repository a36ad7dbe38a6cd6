"""The replay page in a real headless Chromium against a real `pbm serve`: for a finished game of
each of the four games, a seat opens its page by its link, follows the page's link to its replay
and steps from the end to the start and back (last, first, next, previous, the arrow keys, a
jump); every step shown is the seat's view at that seq as replays.log folds it (and, for the
jump, as `pbm replay step` prints it), redrawn in place. Without JavaScript the same links work
as plain links. In a running game a seat disputes the step it jumped to with the page's form,
sees it confirmed and listed among its disputes, and the operator's `pbm disputes` lists it.
Skipped as test_browser.py is when chromium or playwright is missing.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from random import Random

import httpx2 as httpx
import pytest

from bench.random_moves import random_moves
from events.commands import Games
from events.store import Store
from pbm.names import Names
from replays.log import Log, from_store
from tests.pages.conftest import ADMIN, ARTIFACTS

SEATS = {"holly-oak": 3, "holidays": 3, "holiday-board": 3, "tranquility": 2}
STEP_MS = 10_000


NAMES: dict[str, tuple[str, ...]] = {}  # game id -> its seats' names, as the test made them


def finished_game(url: str, store: Store, slug: str, seed: int) -> tuple[dict, Log]:
    """A game played to its end by seeded random moves sent to the server's API; its log."""
    body = {"game": slug, "players": SEATS[slug], "seats": [{"name": f"p{s}"} for s in range(SEATS[slug])], "late_salts": False, "seed": seed}
    created = httpx.post(f"{url}/api/games", json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30).json()
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    games = Games(store)
    with httpx.Client(base_url=url, timeout=30) as client:
        for table, seat, move in random_moves(lambda: games.table(created["game_id"]), Random(seed)):
            answer = client.post("/api/me/moves", json={"move": move, "expected_seq": table.seq}, headers={"Authorization": f"Bearer {tokens[seat]}"})
            assert answer.status_code == 200, answer.text
    log = from_store(store, created["game_id"])
    assert log.table().outcome is not None
    NAMES[log.game_id] = tuple(seat["name"] for seat in created["seats"])
    return created, log


def shown(page) -> int:
    return int(page.locator("#live").get_attribute("data-step"))


def check_step(page, log: Log, seat: int, seq: int) -> None:
    """The page shows step `seq` as `seat` saw it: replays.log's view and line at that seq."""
    page.wait_for_function("s => document.getElementById('live').dataset.step === s", arg=str(seq), timeout=STEP_MS)
    assert json.loads(page.locator("#view-json").text_content()) == json.loads(json.dumps(log.table(seq).view(seat)))
    name = Names(NAMES[log.game_id], viewer=seat, bots=frozenset(log.table().bots))  # how the seat reads the seats
    assert page.locator(".this-step mark").inner_text() == name.text(log.narrate(seq, seat))
    assert page.locator(".history li.now").get_attribute("value") == str(seq)
    assert page.url.endswith(f"?seq={seq}") or (seq == log.last_seq and "?" not in page.url)


def cli_step(env: dict[str, str], game_id: str, seat: int, seq: int) -> dict:
    """`pbm replay step GAME --at SEQ --as SEAT --json`'s first position."""
    done = subprocess.run([sys.executable, "-m", "pbm", "replay", "step", game_id, "--at", str(seq), "--as", str(seat), "--script", "q", "--json"],
                          env=env, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout.splitlines()[0])


@pytest.mark.parametrize(("slug", "seed"), [("holly-oak", 3), ("holidays", 4), ("holiday-board", 5), ("tranquility", 6)])
def test_a_seat_steps_through_a_finished_game_from_end_to_start(browser, served, store, slug, seed):
    url, env = served
    created, log = finished_game(url, store, slug, seed)
    seat = 1
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        page.goto(next(s["url"] for s in created["seats"] if s["seat"] == seat))  # the seat's page
        page.get_by_role("link", name="Step through the game, event by event").click()
        page.wait_for_load_state()
        check_step(page, log, seat, log.last_seq)  # the replay opens at the end
        assert page.get_by_role("link", name="Download the replay file").count() == 1  # the game is over
        page.evaluate("window.loadedOnce = true")
        last = log.last_seq
        page.locator("a[data-way=prev]").click()
        check_step(page, log, seat, last - 1)
        page.keyboard.press("ArrowLeft")
        check_step(page, log, seat, last - 2)
        page.locator("a[data-way=first]").click()
        check_step(page, log, seat, 0)
        page.locator("a[data-way=next]").click()
        check_step(page, log, seat, 1)
        page.keyboard.press("ArrowRight")
        check_step(page, log, seat, 2)
        middle = last // 2
        page.locator("form.jump input[name=seq]").fill(str(middle))
        page.locator("form.jump button").click()
        check_step(page, log, seat, middle)
        assert json.loads(page.locator("#view-json").text_content()) == cli_step(env, created["game_id"], seat, middle)["output"]
        page.keyboard.press("End")
        check_step(page, log, seat, last)
        page.go_back()  # the address bar kept each step: back is the step before
        check_step(page, log, seat, middle)
        assert page.evaluate("window.loadedOnce") is True  # every step drawn in place, no reload
        page.screenshot(path=str(ARTIFACTS / f"review-{slug}.png"), full_page=True)
        assert errors == []
    except Exception:
        page.screenshot(path=str(ARTIFACTS / f"review-{slug}-failed.png"), full_page=True)
        raise
    finally:
        context.close()


def test_without_javascript_the_steps_are_plain_links(browser, served, store):
    url, _env = served
    created, log = finished_game(url, store, "tranquility", 9)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(url + "/review/" + created["seats"][0]["token"])
    assert "/review/g/" in page.url and created["seats"][0]["token"] not in page.url
    check_step(page, log, 0, log.last_seq)
    page.locator("a[data-way=first]").click()
    check_step(page, log, 0, 0)
    page.locator("a[data-way=next]").click()
    check_step(page, log, 0, 1)
    page.goto(page.url.split("?")[0] + "?seq=nope")
    assert page.locator("p.refusal").inner_text().startswith("seq must be a whole number")
    context.close()


def test_a_seat_disputes_a_step_from_its_replay_page_and_the_operator_lists_it(browser, served, store):
    url, env = served
    body = {"game": "holly-oak", "players": 3, "seats": [{"name": f"p{s}"} for s in range(3)], "late_salts": False, "seed": 12}
    created = httpx.post(f"{url}/api/games", json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30).json()
    game_id, tokens = created["game_id"], {seat["seat"]: seat["token"] for seat in created["seats"]}
    games = Games(store)
    with httpx.Client(base_url=url, timeout=30) as client:  # a few moves: the game runs on
        for table, seat, move in itertools.islice(random_moves(lambda: games.table(game_id), Random(12)), 5):
            assert client.post("/api/me/moves", json={"move": move, "expected_seq": table.seq}, headers={"Authorization": f"Bearer {tokens[seat]}"}).status_code == 200
    disputed = 3
    reason = "p0 led a card it could not have held"
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        page.goto(next(s["url"] for s in created["seats"] if s["seat"] == 1))
        page.get_by_role("link", name="Step through the game, event by event").click()
        page.wait_for_load_state()
        page.locator("form.jump input[name=seq]").fill(str(disputed))
        page.locator("form.jump button").click()
        page.wait_for_function("s => document.getElementById('live').dataset.step === s", arg=str(disputed), timeout=STEP_MS)
        form = page.locator("section.dispute form")
        assert form.locator("input[name=seq]").input_value() == str(disputed)  # the step shown, redrawn in place
        form.locator("input[name=reason]").fill(reason)
        form.get_by_role("button", name="Raise a dispute").click()
        page.wait_for_selector("section.dispute p.notice", timeout=STEP_MS)
        notice = page.locator("section.dispute p.notice").inner_text()
        assert notice.startswith("Your dispute of this step is with the operator")
        assert page.url.split("#")[0].split("&")[0].endswith(f"?seq={disputed}")
        mine = page.locator("table.disputes tbody tr")
        assert mine.count() == 1 and mine.locator("td").all_inner_texts() == [str(disputed), reason, "not yet"]
        page.screenshot(path=str(ARTIFACTS / "review-dispute.png"), full_page=True)
        assert errors == []
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "review-dispute-failed.png"), full_page=True)
        raise
    finally:
        context.close()
    listed = subprocess.run([sys.executable, "-m", "pbm", "disputes", "--json"], env=env, capture_output=True, text=True, timeout=60, check=True)
    [dispute] = [d for d in json.loads(listed.stdout)["disputes"] if d["game_id"] == game_id]
    assert (dispute["seat"], dispute["seq"], dispute["reason"], dispute["status"]) == (1, disputed, reason, "open")
    assert dispute["id"] in notice
    said = subprocess.run([sys.executable, "-m", "pbm", "disputes", game_id], env=env, capture_output=True, text=True, timeout=60, check=True).stdout
    assert f"{game_id} {dispute['id']}: seat 1 disputes seq {disputed}" in said and reason in said and "[open]" in said
