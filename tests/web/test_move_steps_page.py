"""The seat's page at a step towards a move, through the real app: the choices ride in the page's
query (?card=18&cell=c2), a choice that fits no move is said in one line and changes nothing, and
the step links lead back to the seat's own page."""

from __future__ import annotations

import html
import re

from tests.web.conftest import bearer, new_game


def test_the_page_takes_the_steps_from_its_query_and_a_bad_choice_changes_nothing(client, store) -> None:
    created = new_game(client, game="tranquility", seats=[{"name": "Ann"}, {"name": "Bob"}], seed=3, forced_moves="ask")
    token = created["seats"][0]["token"]
    opened = client.get(f"/play/{token}")
    here = f"/play/g/{created['game_id']}/0"
    assert opened.url.path == here and 'data-step="card"' in opened.text
    card = client.get("/api/me", headers=bearer(token)).json()["view"]["hand"][0]
    assert f'href="{here}?card={card}"' in opened.text
    at_card = client.get(f"{here}?card={card}").text
    assert 'data-step="cell"' in at_card and f'data-chosen="card={card}"' in at_card
    cells = re.findall(r'class="move cell-move">.*?name="move" value="(play [^"]+)"', at_card)
    assert cells and all(move.startswith(f"play {card} ") for move in cells)  # an empty sea: every cell is free
    length = store.length(created["game_id"])
    for query, said in (("card=99", "no move of yours goes with card '99': pick again"),
                        ("card=" + "9" * 300, "no move of yours goes with card '" + "9" * 40 + "': pick again"),
                        (f"card={card}&cell=z9", "no move of yours goes with cell 'z9': pick again")):
        page = client.get(f"{here}?{query}")
        assert page.status_code == 200 and said in html.unescape(page.text), query
        assert 'data-step="card"' in page.text  # the steps start again
    assert client.get(f"{here}?note=nothing&card={card}").status_code == 200  # a note the server never left: none shown
    assert store.length(created["game_id"]) == length  # a step writes nothing
