""""Ask me to confirm each move before it is sent" in a real headless Chromium against a real `pbm
serve`, with JavaScript on and off: the seat turns it on from its page; a card clicked then asks
"Send 7Su?" and plays nothing; Change leaves the move unsent, Send plays it and the page says "You
played 7Su."; the move never goes into the page's URL. In process, through the app:
tests/web/test_confirm_moves_page.py. Skipped as test_browser.py is when chromium is missing."""

from __future__ import annotations

import httpx2 as httpx
import pytest

from tests.pages.test_browser import my_turn, seq_of, wait_for_redraw
from tests.pages.test_layout_browser import new_game


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_seat_that_confirms_is_asked_send_7su_and_change_sends_nothing(browser, served, javascript):
    url, _env = served
    created = new_game(url, "holly-oak", [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], forced_moves="ask")
    first = httpx.get(f"{url}/api/me", headers={"Authorization": f"Bearer {created['seats'][0]['token']}"}, timeout=30).json()
    mover = created["seats"][first["view"]["to_act"][0]]
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        page.goto(mover["url"])
        page.get_by_label("Ask me to confirm each move before it is sent").check()
        page.locator("form.settings").get_by_role("button", name="Save").click()
        page.get_by_text("Saved: your page asks you before it sends a move.").wait_for()
        assert page.get_by_label("Ask me to confirm each move before it is sent").is_checked()
        before = seq_of(page)
        card = page.locator("form.card-move button").first
        move = card.get_attribute("aria-label")
        question = f"Send {move.removeprefix('play ')}?"

        card.click()
        page.get_by_text(question).wait_for()
        page.get_by_role("button" if javascript else "link", name="Change").click()
        if javascript:
            assert page.get_by_text(question).count() == 0
        else:
            page.locator("#live").wait_for()  # back on the seat's page
        assert seq_of(page) == before and my_turn(page)

        page.locator("form.card-move button").first.click()
        page.get_by_text(question).wait_for()
        page.get_by_role("button", name="Send").click()
        if javascript:
            wait_for_redraw(page, before)
        page.get_by_text(f"You played {move.removeprefix('play ')}.").wait_for()
        assert seq_of(page) != before and not my_turn(page)
        assert move.split()[-1] not in page.url
        assert errors == []
    finally:
        context.close()
