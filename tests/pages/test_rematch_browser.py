"""From a join link to a rematch in a real headless Chromium against a real `pbm serve`: two
visitors, each in a browser of their own, open a game's join link, claim its two open seats, go on
to their person pages and from there to their seats; the game is played by the API to its last
moves and by clicking to its end; one visitor asks for a rematch from the seat's page, the other
accepts it there, and the new game is on both person pages and opens from the seat's page. No
address bar ever shows a token. Skipped as tests/pages/test_browser.py's are when chromium or
playwright is missing.
"""

from __future__ import annotations

import re
import time

import httpx2 as httpx

from events.commands import Games
from events.store import Store
from tests.pages.conftest import ADMIN, ARTIFACTS
from tests.pages.test_browser import GAME_SECONDS, PLAYERS, my_turn, over, seq_of, wait_for_redraw

SLUG = "tranquility"


def until_the_last_moves(games: Games, game_id: str) -> None:
    """Plays each seat's first legal move by the API while the next such move would not end the game."""
    table = games.table(game_id)
    while True:
        seat = table.to_act[0]
        move = table.legal_moves(seat)[0]
        ahead = table.copy()
        ahead.play(seat, move)
        if ahead.outcome is not None:
            return
        games.submit(game_id, seat, move)
        table = games.table(game_id)


def claim(page, join_url: str, name: str) -> None:
    """The visitor opens the join link, takes the first open seat under `name`, and goes on to
    their person page by the link the answer shows."""
    page.goto(join_url)
    assert re.fullmatch(r".*/join/g/[a-z0-9-]+", page.url), page.url  # the token went into a cookie
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Take the seat").click()
    page.get_by_role("heading", name=re.compile(f"You hold seat [01], {name}")).wait_for()
    page.locator("p", has_text="All your games").get_by_role("link").click()
    page.wait_for_url(re.compile(r".*/me$"))


def test_two_visitors_join_play_to_the_end_and_rematch(browser, served, store: Store):
    url, _env = served
    body = {"game": SLUG, "players": 2, "seats": [{"open": True}, {"open": True}], "late_salts": False, "forced_moves": "ask", "seed": 11}
    created = httpx.post(f"{url}/api/games", json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30).json()
    game_id, join_url = created["game_id"], created["join_url"]
    contexts = [browser.new_context(viewport={"width": 1100, "height": 900}) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        claim(pages[0], join_url, "Ann")
        claim(pages[1], join_url, "Bob")
        until_the_last_moves(Games(store), game_id)
        for page in pages:  # from the person page to the seat
            page.reload()
            page.get_by_role("link", name=re.compile(rf"\({game_id}\), seat [01]")).click()
            page.wait_for_url(re.compile(rf".*/play/g/{game_id}/[01]$"))
        end, clicked = time.monotonic() + GAME_SECONDS, 0
        while not all(over(page) for page in pages):
            assert time.monotonic() < end, f"not over after {GAME_SECONDS} s"
            turn = next((page for page in pages if my_turn(page)), None)
            if turn is None:
                time.sleep(0.05)  # the other page's live update is on its way
                continue
            before = seq_of(turn)
            PLAYERS[SLUG](turn)
            wait_for_redraw(turn, before)
            clicked += 1
        assert clicked >= 1  # the end came by a click, on a page redrawn live

        ann, bob = pages
        ann.get_by_role("button", name="Ask for a rematch").click()
        ann.get_by_text("You are in for the rematch").wait_for()
        assert "waiting for Bob" in ann.locator("section.rematch").inner_text()
        bob.reload()  # an acceptance adds nothing to the finished game's log: no live update
        bob.get_by_role("button", name="Accept the rematch").click()
        bob.get_by_text("Everyone is in: the rematch has begun.").wait_for()
        bob.screenshot(path=str(ARTIFACTS / "rematch-accepted.png"), full_page=True)

        rematch_ids = set()
        for page in pages:
            page.goto(f"{url}/me")
            games_listed = set(re.findall(rf"\(({SLUG}-[0-9a-f]+)\), seat", page.locator("main").inner_text()))
            assert game_id in games_listed and len(games_listed) == 2, games_listed
            rematch_ids |= games_listed - {game_id}
        assert len(rematch_ids) == 1  # one new game, on both pages
        [new_id] = rematch_ids
        ann.go_back()  # the finished game's seat page again
        ann.reload()
        ann.get_by_role("link", name="Open your seat in the rematch").click()
        ann.wait_for_url(re.compile(rf".*/play/g/{new_id}/1$"))  # Ann played seat 0: seat 1 now
        assert ann.locator("header.top .you").inner_text().startswith("you are Ann")
        for page in pages:
            assert "/play/" + new_id + "." not in page.url and ".join." not in page.url
        assert errors == []
    except Exception:
        for n, page in enumerate(pages):
            page.screenshot(path=str(ARTIFACTS / f"rematch-failed-visitor{n}.png"), full_page=True)
        raise
    finally:
        for context in contexts:
            context.close()
