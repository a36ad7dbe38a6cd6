"""The replay page (/review/g/{game}/{seat}) through the real app over the test Redis: it opens by
the seat's cookie only, refuses a bad step with one line and changes nothing, shows each step as
replays.log does for that seat, and while the game runs never shows another seat's hidden cards
(at no past step, in no part of the page); once it is over, any seat's view, the whole state and
the replay file."""

from __future__ import annotations

import json
import re
from html import unescape
from random import Random

import pytest

import core
from bench.random_moves import random_moves
from events.commands import Games
from pbm import seating
from pbm.web import create_app
from replays.log import Log, from_store
from tests.web.conftest import ADMIN, LOOSE, TestClient, bearer, new_game

SEATS = {"holly-oak": 3, "holidays": 3, "holiday-board": 3, "tranquility": 2}


@pytest.fixture
def loose(store):
    app = create_app(store.redis, games=Games(store), admin_token=ADMIN, limits=LOOSE)
    with TestClient(app) as client:
        yield client


def start(client: TestClient, slug: str = "holly-oak", seed: int = 11) -> dict:
    return new_game(client, game=slug, seats=[{"name": f"p{s}"} for s in range(SEATS[slug])], seed=seed)


def play(client: TestClient, created: dict, moves: int | None = None, chooser: int = 3) -> Log:
    """Random legal moves through the API, `moves` of them (None: to the end); the log then."""
    games: Games = client.app.state.pbm.games
    game_id = created["game_id"]
    tokens = {seat["seat"]: bearer(seat["token"]) for seat in created["seats"]}
    for n, (table, seat, move) in enumerate(random_moves(lambda: games.table(game_id), Random(chooser))):
        if moves is not None and n >= moves:
            break
        answer = client.post("/api/me/moves", json={"move": move, "expected_seq": table.seq}, headers=tokens[seat])
        assert answer.status_code == 200, answer.text
    return from_store(games.store, game_id)


def opened(client: TestClient, created: dict, seat: int = 0) -> str:
    """The seat's replay link opened in `client` (its cookie set); the page's path."""
    answer = client.get(f"/review/{created['seats'][seat]['token']}", follow_redirects=False)
    assert answer.status_code == 303
    return answer.headers["location"]


def shown_view(html: str) -> dict:
    return json.loads(unescape(re.search(r'<pre id="view-json">(.*?)</pre>', html, re.S).group(1)))


def shown_line(html: str) -> str:
    return unescape(re.search(r'<p class="line"><mark>(.*?)</mark>', html, re.S).group(1))


@pytest.mark.parametrize("slug", sorted(SEATS))
def test_the_link_sets_the_cookie_and_each_step_is_the_logs_view_for_the_seat(loose: TestClient, slug: str):
    created = start(loose, slug)
    log = play(loose, created, moves=12)
    here = opened(loose, created, seat=1)
    assert here == f"/review/g/{created['game_id']}/1"
    name = seating.names(loose.app.state.pbm.seats, created["game_id"], log.table(), 1)  # seat 1 reads names
    for seq in range(log.last_seq + 1):
        page = loose.get(f"{here}?seq={seq}")
        assert page.status_code == 200
        assert shown_view(page.text) == json.loads(json.dumps(log.table(seq).view(1)))
        assert shown_line(page.text) == name.text(log.narrate(seq, 1))
        assert f'data-step="{seq}"' in page.text
        assert re.search(rf'<li value="{seq}" class="now" aria-current="step">', page.text)
    last = loose.get(here)  # no seq: the last step
    assert f'data-step="{log.last_seq}"' in last.text
    assert "Download the replay file" not in last.text and "The whole state" not in last.text
    assert 'href="/static/pbm/' in last.text and "review.js" in last.text and "<script>" not in last.text
    page = loose.get(f"/play/g/{created['game_id']}/1")
    assert f'href="{here}"' in page.text  # the seat's page links to its replay


def test_without_the_cookie_or_with_another_games_the_page_does_not_open(loose: TestClient):
    first, second = start(loose), start(loose, "tranquility")
    here = f"/review/g/{first['game_id']}/0"
    with TestClient(loose.app) as stranger:
        refused = stranger.get(here)
        assert refused.status_code == 401 and "open the link in your invitation" in refused.text
        stranger.cookies.set("pbm_seat", second["seats"][0]["token"], domain="127.0.0.1", path=here)
        refused = stranger.get(here)
        assert refused.status_code == 401 and "not a valid seat token" in refused.text
        stranger.cookies.set("pbm_seat", first["seats"][1]["token"], domain="127.0.0.1", path=here)
        assert stranger.get(here).status_code == 401  # another seat of the same game
        assert stranger.get(here + "/export").status_code == 401
    assert loose.get("/review/no-such-game.0." + "a" * 52).status_code == 401


@pytest.mark.parametrize("query", ["seq=abc", "seq=-1", "seq=99999", "seq=1e3", "as=7", "as=x", "seq="])
def test_a_bad_step_gets_one_line_and_changes_nothing(loose: TestClient, query: str):
    created = start(loose)
    log = play(loose, created, moves=3)
    here = opened(loose, created)
    answer = loose.get(f"{here}?{query}")
    assert answer.status_code == 400, answer.text
    lines = re.findall(r'<p class="refusal" role="alert">(.*?)</p>', answer.text)
    assert len(lines) == 1 and "\n" not in lines[0]
    assert from_store(loose.app.state.pbm.games.store, created["game_id"]).raw == log.raw


def hand_cards(log: Log, seq: int, seat: int) -> set[str]:
    """The cards in `seat`'s hand right after `seq`, as the whole state holds them."""
    return set(log.table(seq).view(seat)["hand"])


@pytest.mark.parametrize("slug", ["holly-oak", "holidays"])
def test_while_the_game_runs_no_step_shows_another_seats_hidden_cards(loose: TestClient, slug: str):
    """At every past step seat 0's replay holds no card of another seat's hand at that step that
    seat 0 has not been shown by now: in its views at any step or in its story. (Card texts in
    these two games are words of their own, so a card on the page is found by its text.)"""
    created = start(loose, slug)
    log = play(loose, created, moves=25)
    assert not log.table().outcome
    here = opened(loose, created)
    told = " ".join(json.dumps(log.table(s).view(0)) + " " + log.narrate(s, 0) for s in range(log.last_seq + 1))
    seen = set(re.findall(r"[A-Za-z0-9]+", told))
    hidden_somewhere = False
    for seq in range(log.last_seq + 1):
        hidden = {card for other in range(1, SEATS[slug]) for card in hand_cards(log, seq, other)} - seen
        hidden_somewhere |= bool(hidden)
        page = loose.get(f"{here}?seq={seq}")
        assert page.status_code == 200
        # The notation names the kings, whoever holds them: the same text at every step of every game.
        drawn = re.sub(r'<details class="notation">.*?</details>', "", page.text, flags=re.S)
        words = set(re.findall(r"[A-Za-z0-9]+", unescape(drawn)))
        assert hidden & words == set(), f"seq {seq}: seat 0's replay shows {hidden & words}"
        assert loose.get(f"{here}?seq={seq}&as=1").status_code == 403
    assert hidden_somewhere, "no hidden card at any step: the check proved nothing"
    assert loose.get(here + "/export").status_code == 409


def test_once_over_any_seats_view_the_whole_state_and_the_file(loose: TestClient):
    created = start(loose, "tranquility")
    log = play(loose, created)
    assert log.table().outcome is not None
    here = opened(loose, created)
    page = loose.get(f"{here}?seq=5&as=1")
    assert page.status_code == 200
    assert shown_view(page.text) == json.loads(json.dumps(log.table(5).view(1)))
    assert "The whole state at this step" in page.text and "Download the replay file" in page.text
    exported = loose.get(here + "/export")
    assert exported.status_code == 200
    assert exported.content == loose.get("/api/me/export", headers=bearer(created["seats"][0]["token"])).content


def test_the_ways_out_of_a_step(loose: TestClient):
    created = start(loose, "holly-oak")
    log = play(loose, created, moves=40)
    here = opened(loose, created)
    mine = [env.seq for env in log.envelopes if env.command is not None and env.actor == 0]
    page = loose.get(f"{here}?seq=0").text
    assert f'href="{here}?seq={mine[0]}" data-way="next_mine"' in page
    assert f'href="{here}?seq=1" data-way="next"' in page
    assert 'class="off" aria-disabled="true">Previous<' in page
    rounds = [log.table(s).view(0)["round"] for s in range(log.last_seq + 1)]
    if len(set(rounds)) > 1:
        second = rounds.index(sorted(set(rounds))[1])
        assert f'href="{here}?seq={second}" data-way="next_round"' in page
        after = loose.get(f"{here}?seq={second + 1}").text
        assert f'href="{here}?seq={second}" data-way="prev_round"' in after
    forced = [env.seq for env in log.envelopes if env.origin == "forced"]
    for seq in forced[:3]:
        before = loose.get(f"{here}?seq={seq - 1}").text
        assert f'href="{here}?seq={seq}" data-way="next_skipping"' not in before
