"""The operator's console (/admin) in a real headless Chromium against a real `pbm serve`: the
operator signs in, creates a game with one person invited by e-mail, one open seat and a bot, sees
it listed as waiting for players, hands a seat to a bot and back, runs and pauses its clock, steps
through a seat's replay (the seat's own page, whose script redraws a step in place), and signs out,
by clicking only (the console's own pages have no script). Skipped as tests/pages/test_browser.py's
are when chromium or playwright is missing."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator

import pytest

from bench import serving
from tests.pages.conftest import ARTIFACTS, CHROMIUM, need_browser

ADMIN = "console-browser-admin-token-32-characters"


@pytest.fixture(scope="module")
def console_site(redis_client, redis_home, tmp_path_factory) -> Iterator[str]:
    need_browser()
    logs = tmp_path_factory.mktemp("console-site")
    env = {**os.environ, "PBM_HOME": str(redis_home), "PBM_ADMIN_TOKEN": ADMIN, "PYTHONUNBUFFERED": "1"}
    env.pop("PBM_PUBLIC_URL", None)
    with (logs / "serve.log").open("w") as out:
        server, url = serving.start(env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield url
    finally:
        serving.stop(server)
        logged = (logs / "serve.log").read_text()
        assert "Traceback" not in logged, logged[-3000:]
        requests = logged.split("\n", 4)[-1]  # after the lines that say what is served (/play/<seat token>)
        assert ADMIN not in logged and "/play/" not in requests and "/join/" not in requests  # no secret in a logged URL


def test_the_operator_runs_a_game_from_the_console(console_site: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        page.goto(f"{console_site}/admin")
        page.get_by_label("The operator's token").fill("not-the-token-" * 3)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_contain_text("not the operator's token")
        page.get_by_label("The operator's token").fill(ADMIN)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("button", name="Sign out")).to_be_visible()
        cookie = next(c for c in page.context.cookies() if c["name"] == "pbm_console")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/admin"

        page.get_by_role("link", name="New game").click()
        page.locator("select[name=game]").select_option("holly-oak")
        page.get_by_role("spinbutton", name="Players").fill("3")
        page.get_by_role("button", name="Choose seats").click()
        page.locator("select[name=kind0]").select_option("email")
        page.locator("input[name=name0]").fill("Bea")
        page.locator("input[name=email0]").fill("bea@example.org")
        page.locator("select[name=kind1]").select_option("open")
        page.locator("select[name=kind2]").select_option("bot")
        page.locator("input[name=name2]").fill("Robo")
        page.locator("select[name=bot2]").select_option("heuristic")
        page.get_by_label("Deadline per move").fill("48h")
        page.get_by_role("button", name="Create the game").click()
        expect(page.get_by_role("heading", level=1)).to_contain_text("Created")
        assert re.search(r"/play/[0-9a-z]", page.content()) and "/join/" in page.content()  # shown once, here
        assert "/play/" not in page.url and "/join/" not in page.url
        game_id = page.locator("h1 a").inner_text()
        page.screenshot(path=str(ARTIFACTS / "console-created.png"), full_page=True)

        page.get_by_role("link", name="Games", exact=True).click()
        waiting = page.locator("section.games").filter(has=page.get_by_role("heading", name=re.compile("Waiting for players")))
        expect(waiting.get_by_role("link", name=game_id)).to_be_visible()
        expect(waiting).to_contain_text("open seat 1")
        page.screenshot(path=str(ARTIFACTS / "console-games.png"), full_page=True)
        waiting.get_by_role("link", name=game_id).click()

        page.get_by_role("button", name="Hand seat 0 to the bot").click()
        expect(page.get_by_role("status").first).to_contain_text("The seat is a bot's now.")
        expect(page.locator("#seat0")).to_contain_text("bot: heuristic")
        page.get_by_role("button", name="Hand seat 0 back to its person").click()
        expect(page.get_by_role("status").first).to_contain_text("a person's again")
        expect(page.locator("#seat0")).to_contain_text("a person")

        # A game with open seats waits with its clock paused until they are taken.
        expect(page.locator("#clock")).to_contain_text("paused")
        page.get_by_role("button", name="Resume the clock").click()
        expect(page.get_by_role("status").first).to_contain_text("The clock runs again.")
        page.get_by_role("button", name="Pause the clock").click()
        expect(page.get_by_role("status").first).to_contain_text("The clock is paused.")
        page.screenshot(path=str(ARTIFACTS / "console-game.png"), full_page=True)

        # A seat's replay from the game's page, no seat link needed, with the audit's clock table.
        page.get_by_role("link", name="Seat 0's replay").click()
        expect(page.get_by_role("status").first).to_contain_text("the game goes on")
        last = int(page.locator("#live").get_attribute("data-last"))
        expect(page.get_by_role("heading", name="The clock (as the audit tells it)")).to_be_visible()
        page.get_by_role("link", name="First", exact=True).click()  # review.js: in place
        expect(page.get_by_role("status").first).to_contain_text(f"Step 0 of {last}")
        page.screenshot(path=str(ARTIFACTS / "console-review.png"), full_page=True)
        page.get_by_role("link", name="Back to the game in the console").click()
        expect(page.locator("#clock")).to_be_visible()

        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("status").first).to_contain_text("Signed out.")
        page.goto(f"{console_site}/admin/games/{game_id}")
        expect(page.get_by_role("button", name="Sign in")).to_be_visible()
        browser.close()
