"""Schemathesis against /openapi.json, in process: whatever it sends (bounded examples per
operation), no endpoint answers 500. Run as generated and with valid credentials, so the fuzzing
also reaches past the token check."""

from __future__ import annotations

import os

import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from events.commands import Games
from events.server import EmbeddedRedis
from events.store import Store
from pbm.web import create_app
from tests.web.conftest import ADMIN, TestClient, bearer, new_game

EXAMPLES = int(os.environ.get("PBM_FUZZ_EXAMPLES", "30"))


# The schema is read from an app made at import (reading /openapi.json touches no Redis); the
# fixture points that app at its own embedded Redis (the fuzzer creates games by the hundred).
app = create_app(redis.Redis(unix_socket_path="/nonexistent"), admin_token=ADMIN)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """The app on a Redis of its own, with a game and a seat token to aim at."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("fuzz-redis"))
    client = server.client()
    app.state.pbm = create_app(client, games=Games(Store(client)), admin_token=ADMIN, moves_per_window=10_000).state.pbm
    yield new_game(TestClient(app))
    server.stop()


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case, fuzzed):
    created = fuzzed
    case.call_and_validate(checks=[not_a_server_error])
    # The same request with credentials that pass the token check.
    token = ADMIN if case.path.startswith("/api/games") else created["seats"][0]["token"]
    if "{game_id}" in case.path and case.path_parameters:
        case.path_parameters["game_id"] = created["game_id"]
    case.call_and_validate(headers=bearer(token), checks=[not_a_server_error])
