"""The people's whole path in a real headless Chromium against a real `pbm serve`, by clicking
only: the operator signs in to the console and creates a game with one person invited by e-mail
and one open seat, and reads the person's link and the join link from its answer (shown once,
there: the operator sends them on; a mail goes to the invited person only when a turn of theirs
begins, with a worker); the invited person opens theirs, a visitor claims the open seat from the
join link, each in a browser of their own; both play to the end from their person pages (each
turn: the person page, the seat's page, moves, back by the seat page's link); one asks for a rematch
from the finished seat's page, the other accepts, and the rematch is on both person pages. With
JavaScript and without: then every form posts, and a page is reloaded where the script would
have redrawn it live. Every wait is for what a page shows. No address bar ever shows a token.
Skipped as tests/pages/test_browser.py's are when chromium or playwright is missing.
"""

from __future__ import annotations

import re

import attrs
import pytest

from tests.pages.conftest import ADMIN, ARTIFACTS
from tests.pages.test_browser import PLAYERS, my_turn, over, seq_of

# Of the games two can play, the one whose random play is shortest (about 16 moves, 26 at most).
SLUG = "holiday-board"
TURNS = 6  # then nobody bids, which ends the game: some ten moves in all
TOKEN_FREE = r"/admin(/.*)?|/me|/play/g/[a-z0-9-]+/[01](\?.*)?|/join/g/[a-z0-9-]+"  # the addresses a page may show


def seat_page(game: str, seat: str) -> re.Pattern[str]:
    """A seat's page (`game`, `seat`: patterns), or that page back from the salt its script sent at
    once (?note=<id>, "Your salt is in"): with JavaScript that may come before the first load is seen."""
    return re.compile(rf".*/play/g/{game}/{seat}(\?note=[A-Za-z0-9_-]{{16}})?$")


@attrs.define(eq=False)
class Person:
    """One player in a browser of their own: their page (the tab), name and seat."""

    page: object
    name: str
    seat: int
    site: str
    javascript: bool

    def home(self) -> None:
        """From a seat's page back to their person page, by its link."""
        self.page.get_by_role("link", name="All your games").click()
        self.page.wait_for_url(re.compile(r".*/me$"))

    def line(self, game_id: str, group: str):
        """Their page's line for the game under `group` ("your-turn", "waiting", "finished")."""
        return self.page.locator(f"section.seats.{group} li", has=self.page.get_by_role("link", name=re.compile(rf"\({game_id}\), seat")))

    def shows(self, game_id: str, group: str, saying: str = "") -> str:
        """Waits until their page lists the game under `group`, its line saying `saying`: redrawn
        live, or reloaded without JavaScript. Answers the line."""
        if not self.javascript:
            self.page.reload()
        line = self.line(game_id, group).filter(has_text=saying)
        line.wait_for()
        return line.inner_text()

    def to_seat(self, game_id: str):
        """From their page to their seat's page in the game, by its link."""
        self.page.get_by_role("link", name=re.compile(rf"\({game_id}\), seat")).click()
        self.page.wait_for_url(seat_page(re.escape(game_id), "[01]"))
        return self.page


def sign_in_and_create(page, site: str) -> tuple[str, str, str]:
    """The operator signs in and creates the game by the console's form (forced moves, late salts
    and the clock's other settings as the form has them, a deadline typed): its id, the invited
    person's link and the join link, read from the answer."""
    page.goto(f"{site}/admin")
    page.get_by_label("The operator's token").fill(ADMIN)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Sign out").wait_for()
    page.get_by_role("link", name="New game").click()
    page.get_by_label("Game").select_option(SLUG)
    page.get_by_role("spinbutton", name="Players").fill("2")
    page.get_by_role("button", name="Choose seats").click()
    first, second = page.locator("fieldset.seat").all()
    first.get_by_label("Who").select_option("email")
    first.get_by_label("Name", exact=True).fill("Bea")
    first.get_by_label("E-mail", exact=True).fill("bea@example.org")
    second.get_by_label("Who").select_option("open")
    page.get_by_label("Deadline per move").fill("48h")
    page.get_by_role("button", name="Create the game").click()
    page.get_by_role("heading", name=re.compile("^Created ")).wait_for()
    game_id = page.locator("h1 a").inner_text()
    person_url = page.locator("table.links tbody tr").first.get_by_role("link").filter(has_text="/me/").get_attribute("href")
    join_url = page.locator("main p", has_text="Join link").get_by_role("link").get_attribute("href")
    page.screenshot(path=str(ARTIFACTS / "path-created.png"), full_page=True)
    return game_id, person_url, join_url


def invited_opens_and_visitor_claims(bea: Person, cy: Person, game_id: str, person_url: str, join_url: str) -> None:
    """The invited person opens their link: the game waits for a player. The visitor opens the
    join link, takes the open seat under their name and follows the answer to their person page."""
    bea.page.goto(person_url)
    assert bea.page.url == f"{bea.site}/me"  # the token went into the person's cookie
    assert "waiting for players (seat 1 open)" in bea.line(game_id, "waiting").inner_text()
    page = cy.page
    page.goto(join_url)
    assert re.fullmatch(r".*/join/g/[a-z0-9-]+", page.url), page.url  # the token went into a cookie
    page.get_by_label("Your name").fill(cy.name)
    page.get_by_role("button", name="Take the seat").click()
    page.get_by_role("heading", name=f"You hold seat {cy.seat}, {cy.name}").wait_for()
    page.locator("p", has_text="All your games").get_by_role("link").click()
    page.wait_for_url(re.compile(r".*/me$"))


def give_salts(bea: Person, cy: Person, game_id: str) -> None:
    """The deal waits for each seat's salt, given on its page: made and sent by the page's
    script, or typed."""
    for person in (bea, cy):
        page = person.to_seat(game_id)
        if not person.javascript:
            page.get_by_label("Your salt").fill(f"{person.name} typed this")
            page.get_by_role("button", name="Give my salt").click()
        page.locator(".notice", has_text="Your salt is in").wait_for()
        person.home()
        if person is bea:
            assert "the deal waits for the players' salts" in bea.line(game_id, "waiting").inner_text()


def redrawn(page, drawn_at: str) -> None:
    """Until the page is drawn at another seq: in place by its script, or a new page after a form."""
    page.locator(f'#live:not([data-seq="{drawn_at}"])').wait_for()


def play(page, ending: bool) -> None:
    """A move as test_browser.py's player makes it (the lowest bid, a flight, a sight); `ending`,
    a pass where nobody has bid: when nobody bids, the game ends."""
    passing = page.get_by_role("button", name="pass", exact=True)
    if ending and passing.count() and page.locator(".auction", has_text="no bid yet").count():
        return passing.click()
    PLAYERS[SLUG](page)


def play_a_turn(person: Person, game_id: str, ending: bool) -> bool:
    """Their turn, from their person page: to the seat, moves by clicking until it is not their
    turn, and back. Answers whether the game is over."""
    page = person.to_seat(game_id)
    assert my_turn(page)
    while my_turn(page):
        before = seq_of(page)
        play(page, ending)
        redrawn(page, before)
        assert page.locator("form .refusal").count() == 0, page.locator("form .refusal").first.inner_text()
    finished = over(page)
    person.home()
    return finished


def play_to_the_end(bea: Person, cy: Person, game_id: str) -> Person:
    """Turn by turn, each from their person page, which says "your turn" (with its deadline) and
    then whom it waits for; the other's page shows their turn coming. Answers who moved last."""
    other = {bea: cy, cy: bea}
    mover = cy if cy.line(game_id, "your-turn").count() else bea  # Cy's page was drawn after the deal
    turns = 0
    while True:
        assert ": due " in mover.shows(game_id, "your-turn")  # the clock runs: each turn has its deadline
        finished = play_a_turn(mover, game_id, ending=turns >= TURNS)
        turns += 1
        if finished:
            break
        assert f": waiting for {other[mover].name}" in mover.line(game_id, "waiting").inner_text()
        mover = other[mover]
    assert turns > TURNS
    for person in (bea, cy):  # each reads the result as theirs
        result = person.shows(game_id, "finished")
        assert re.search(r": (you won|won by|nobody won)", result), result
        if ": you won" in result:
            assert f": won by {person.name} (" in other[person].shows(game_id, "finished")
    return mover


def rematch(asker: Person, accepter: Person, game_id: str) -> str:
    """The asker asks from the finished seat's page, the accepter (told on their person page)
    accepts from theirs and opens their new seat, one seat on. Answers the rematch's id."""
    page = asker.to_seat(game_id)
    page.get_by_role("button", name="Ask for a rematch").click()
    page.get_by_text("You are in for the rematch").wait_for()
    assert f"waiting for {accepter.name}" in page.locator("section.rematch").inner_text()
    asker.home()
    accepter.page.reload()  # asking adds nothing to the finished game's log: nothing to redraw live
    assert "a rematch is asked for, waiting for you" in accepter.line(game_id, "finished").inner_text()
    page = accepter.to_seat(game_id)
    page.get_by_role("button", name="Accept the rematch").click()
    page.get_by_text("Everyone is in: the rematch has begun.").wait_for()
    page.screenshot(path=str(ARTIFACTS / f"path-rematch-{'js' if accepter.javascript else 'nojs'}.png"), full_page=True)
    page.get_by_role("link", name="Open your seat in the rematch").click()
    page.wait_for_url(seat_page(rf"{SLUG}-[0-9a-f]+", str(1 - accepter.seat)))  # the rematch's deal waits for salts too
    assert page.locator("header.top .you").inner_text().startswith(f"you are {accepter.name}")
    return page.url.split("/play/g/")[1].split("/")[0]


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_operator_invites_a_visitor_joins_both_play_from_their_pages_and_rematch(browser, served, javascript):
    site, _env = served
    contexts = [browser.new_context(java_script_enabled=javascript, viewport={"width": 1100, "height": 900}) for _ in range(3)]
    pages = [context.new_page() for context in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    operator = pages[0]
    bea, cy = Person(pages[1], "Bea", 0, site, javascript), Person(pages[2], "Cy", 1, site, javascript)
    try:
        game_id, person_url, join_url = sign_in_and_create(operator, site)
        invited_opens_and_visitor_claims(bea, cy, game_id, person_url, join_url)
        give_salts(bea, cy, game_id)
        last = play_to_the_end(bea, cy, game_id)
        asker, accepter = last, (cy if last is bea else bea)
        new_id = rematch(asker, accepter, game_id)

        # The new game on both person pages: the asker's was drawn before it began (live, or reloaded).
        accepter.home()
        for person in (asker, accepter):
            assert person.shows(game_id, "finished", saying="; rematch: ").endswith(f"; rematch: {new_id}")
            assert person.page.get_by_role("link", name=re.compile(rf"\({new_id}\), seat {1 - person.seat}$")).count() == 1
        for page in pages:
            assert re.fullmatch(TOKEN_FREE, page.url.removeprefix(site)), page.url  # no token in an address bar
        assert errors == []
    except Exception:
        for name, page in zip(("operator", "invited", "visitor"), pages):
            page.screenshot(path=str(ARTIFACTS / f"path-failed-{name}.png"), full_page=True)
        raise
    finally:
        for context in contexts:
            context.close()
