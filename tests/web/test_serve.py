"""`pbm serve` as a real process on a free port: it prints its URL, answers the API, and its log
lines never show a seat's token."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import httpx2 as httpx
import pytest

from tests.web.conftest import ADMIN, bearer


@pytest.fixture
def served(cli_env) -> Iterator[tuple[str, subprocess.Popen]]:
    env = {**os.environ, **cli_env, "PBM_ADMIN_TOKEN": ADMIN, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "pbm", "serve", "--port", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("pbm serving on http://127.0.0.1:"), line + process.stderr.read()
        url = line.split()[3]
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_pbm_serve_answers_and_never_logs_a_token(served):
    url, process = served
    with httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/openapi.json").json()["info"]["title"] == "pbm"
        body = {"game": "tranquility", "players": 2, "seats": [{"name": "Ann"}, {"name": "Bob", "bot": "random"}]}
        created = http.post("/api/games", json=body, headers=bearer(ADMIN)).json()
        token = created["seats"][0]["token"]
        assert created["seats"][0]["url"] == f"{url}/play/{token}"
        assert http.get("/api/me", headers=bearer(token)).status_code == 200
        http.get(f"/play/{token}")  # the page's path carries the token
        http.get(f"/play/{token.upper()}")
    process.terminate()
    out, err = process.communicate(timeout=30)
    logged = (out + err).lower()
    assert "get /api/me" in logged  # the access log is on
    assert "/play/<token>" in logged
    assert token not in logged and token.rsplit(".", 1)[1] not in logged
