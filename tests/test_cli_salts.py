"""`pbm new --salts` and `pbm salt`: a deal that waits for the people's salts at the terminal."""

from __future__ import annotations

import json

import pytest

from tests.workers.test_deadlines import drop_jobs


@pytest.fixture(autouse=True)
def no_jobs_left(store, queue_client):
    """The looks at the salts' deadline (and any bot turn) these games queued are taken off rq:
    a later test that counts a queue's jobs finds only its own."""
    before = {info.game_id for info in store.games()}
    yield
    for info in store.games():
        if info.game_id not in before:
            drop_jobs(queue_client, info.game_id)


def test_a_game_waits_for_salts_at_the_terminal(pbm) -> None:
    game_id = pbm("new", "holly-oak", "-p", "3", "--salts", "--bot", "1=random").output.strip().splitlines()[-1]
    assert "waiting for salts" in pbm("list").output
    refused = pbm("play", game_id, "PLAY 1Sp", "--as", "0", ok=False)
    assert "waits for salts" in refused.output and refused.output.count("\n") == 1
    assert "waits for seat 2" in pbm("salt", game_id, "--as", "0", "my own words").output
    again = pbm("salt", game_id, "--as", "0", "twice", ok=False)
    assert "given its salt already" in again.output and again.output.count("\n") == 1
    assert "dealt" in pbm("salt", game_id, "--as", "2").output  # a salt made at random, never printed
    assert "waiting for seat" in pbm("list").output
    closed = pbm("salt", game_id, "--close", ok=False)
    assert "closed" in closed.output


def test_the_operator_closes_the_salts(pbm) -> None:
    game_id = pbm("new", "holly-oak", "-p", "3", "--salts").output.strip()
    pbm("salt", game_id, "--as", "1", "one")
    done = json.loads(pbm("salt", game_id, "--close", "--json").output)
    assert done["dealt"] is True and done["waiting_for_salts"] == []
    assert "the server salted the deal for seat 0 and seat 2 from the committed seed, since seat 0 and seat 2 sent none by the deadline" in pbm("log", game_id).output
    assert pbm("salt", game_id, ok=False).exit_code == 2
    quiet = pbm("new", "holly-oak", "-p", "3", "--salts").output.strip()
    pbm("salt", quiet, "--as", "0", "zero")
    pbm("salt", quiet, "--as", "2", "two")
    said = pbm("salt", quiet, "--close").output
    assert said.strip() == "the server salted the deal for seat 1 from the committed seed, since seat 1 sent none by the deadline; the cards are dealt"
