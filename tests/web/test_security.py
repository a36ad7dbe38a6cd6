"""Security through the HTTP API: a seat's responses hold nothing hidden from it (the conformance
suite's view test, run on what the server answers, for every game); tokens never reach a log line,
an error, a job argument or Redis; and no input makes any endpoint answer 500 (schemathesis)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest
from rq.job import Job

import core
from pbm import turn_report
from pbm.names import Names
from core.rng import Rng
from core.table import Table
from events.commands import Games
from events.store import Store
from pbm.web import create_app
from tests.web.conftest import ADMIN, LOOSE, TestClient, bearer, new_game
from workers.dispatch import Dispatcher

MOVES = 60  # a stretch of each game: enough turns for hands to change, short enough for CI


def check_hidden(table: Table, seat: int, answered: dict, pick: Rng) -> bool:
    """The view the server answered for `seat` survives a redeal of everything it cannot see."""
    assert answered == json.loads(json.dumps(table.view(seat)))
    redealt = table.game.determinize(table.state, seat, Rng(pick.below(2**32), seat))
    twin = Table(table.game, list(table.events), redealt, table.seed)
    assert answered == json.loads(json.dumps(twin.view(seat))), f"seat {seat}'s answer shows cards hidden from it"
    return redealt != table.state


@pytest.mark.parametrize("slug", sorted(core.GAMES))
def test_a_seats_answers_hold_nothing_hidden_from_it(store: Store, slug: str):
    app = create_app(store.redis, games=Games(store), admin_token=ADMIN, limits=LOOSE)
    client = TestClient(app)
    game = core.get_game(slug)
    players = max(game.min_players, 2)
    created = new_game(client, game=slug, seats=[{"name": f"p{s}"} for s in range(players)], seed=17)
    tokens = [bearer(seat["token"]) for seat in created["seats"]]
    games: Games = app.state.pbm.games
    pick = Rng(5, 0)
    changed = False
    for _ in range(MOVES):
        table = games.table(created["game_id"])
        if not table.to_act:
            break
        for seat in range(players):
            me = client.get("/api/me", headers=tokens[seat]).json()
            changed |= check_hidden(table, seat, me["view"], pick)
            name = Names(tuple(f"p{s}" for s in range(players)), viewer=seat)  # the report names the seats
            # A move played for the seat (its only legal one) is marked in its own report alone.
            played_for = {env.seq: env.origin for env in games.store.read(created["game_id"]) if env.actor == seat and env.origin}
            assert me["report"] == [turn_report.marked(name.text(line), played_for.get(s)) for s, line in table.narrate(seat, start=me_start(games, created["game_id"], seat))]
        seat = table.to_act[pick.below(len(table.to_act))]
        legal = table.legal_moves(seat)
        answer = client.post("/api/me/moves", json={"move": legal[pick.below(len(legal))], "expected_seq": table.seq}, headers=tokens[seat])
        assert answer.status_code == 200, answer.text
        changed |= check_hidden(games.table(created["game_id"]), seat, answer.json()["view"], pick)
    log = client.get("/api/me/log", headers=tokens[0]).json()["log"]
    name = Names(tuple(f"p{s}" for s in range(players)), viewer=0)
    assert [entry["text"] for entry in log] == [name.text(line) for _s, line in games.table(created["game_id"]).narrate(0)]
    assert changed, "no redeal changed anything: the check proved nothing"


def me_start(games: Games, game_id: str, seat: int) -> int:
    from pbm.turn_report import last_move_seq

    return last_move_seq(games.store.read(game_id), seat) or 0


def every_value(client, key: bytes) -> bytes:
    kind = client.type(key)
    if kind == b"string":
        return client.get(key)
    if kind == b"hash":
        return b" ".join(k + b"=" + v for k, v in client.hgetall(key).items())
    if kind == b"list":
        return b" ".join(client.lrange(key, 0, -1))
    if kind == b"set":
        return b" ".join(client.smembers(key))
    if kind == b"zset":
        return b" ".join(member for member, _ in client.zrange(key, 0, -1, withscores=True))
    if kind == b"stream":
        return b" ".join(v for _id, fields in client.xrange(key) for v in fields.values())
    return b""


def test_tokens_never_reach_a_log_line_an_error_a_job_or_redis(store: Store, cli_env, caplog):
    caplog.set_level(logging.DEBUG)
    games = Games(store, dispatch=Dispatcher(store.redis))
    client = TestClient(create_app(store.redis, games=games, admin_token=ADMIN, moves_per_window=5, move_window_s=600))
    # A seed on which the bot leads, so its turn is a job whose arguments get checked.
    seed = next(seed for seed in range(100) if core.new_table("holly-oak", players=3, seed=seed).to_act == (2,))
    created = new_game(client, game="holly-oak", seats=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Robo", "bot": "random"}], seed=seed)
    game_id = created["game_id"]
    tokens = [seat["token"] for seat in created["seats"] if "token" in seat]
    answers = []
    for token in tokens:
        headers = bearer(token)
        answers.append(client.get("/api/me", headers=headers).text)
        for _ in range(7):  # refusals, then 429s
            answers.append(client.post("/api/me/moves", json={"move": "no such move"}, headers=headers).text)
        answers.append(client.post("/api/me/moves", json={"move": "x", "expected_seq": 0}, headers=headers).text)
        answers.append(client.get("/api/me", headers=bearer(token[:-2] + "zz")).text)
        answers.append(client.post("/api/me/moves", content=b"{" + token.encode(), headers=headers | {"Content-Type": "application/json"}).text)
    fresh = client.post(f"/api/games/{game_id}/seats/0/token", headers=bearer(ADMIN)).json()["token"]
    tokens.append(fresh)
    worker = subprocess.run(
        [sys.executable, "-m", "pbm", "worker", "--burst", "--no-recover"],
        env={**os.environ, **cli_env}, capture_output=True, text=True, timeout=240,
    )
    assert worker.returncode == 0, worker.stderr
    secrets = tokens + [t.rsplit(".", 1)[1] for t in tokens]
    logged = "\n".join(record.getMessage() for record in caplog.records) + worker.stdout + worker.stderr
    errors = "\n".join(answers).lower()
    assert "too many moves" in errors and "not a valid seat token" in errors
    for secret in secrets:
        assert secret not in logged.lower() and secret not in errors
    jobs = 0
    for key in store.redis.scan_iter(match="*", count=1000):
        value = every_value(store.redis, key)
        if key.startswith(b"rq:job:") and store.redis.type(key) == b"hash" and key.count(b":") == 2:
            job = Job.fetch(key.decode().removeprefix("rq:job:"), connection=store.redis)
            value += repr(job.args).encode() + repr(job.kwargs).encode()
            jobs += game_id in repr(job.args)
        for secret in secrets:
            assert secret.encode() not in key and secret.encode() not in value, key
    assert jobs, "the bot's turn jobs were not found: their arguments went unchecked"
