"""Secrets at rest: the compose file's Redis wants a password and publishes no port, the server's
port is published on the host's loopback only and the image runs as an unprivileged user, and pbm
reads the password from REDIS_URL; a running game's whole state needs --referee. (The embedded
server's file modes: tests/test_embedded.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from events.commands import Games
from pbm.cli import main
from tests.real_redis import redis_server
from tests.replays.conftest import play_random

COMPOSE = Path(__file__).resolve().parent.parent / "docker-compose.yml"
DOCKERFILE = COMPOSE.parent / "Dockerfile"
PASSWORD = "0123456789abcdef-test"


def interpolated(value: str) -> str:
    """What docker compose makes of ${REDIS_PASSWORD} and ${REDIS_PASSWORD:?message}."""
    return re.sub(r"\$\{REDIS_PASSWORD(?::\?[^}]*)?\}", PASSWORD, value)


def test_compose_keeps_redis_internal_and_behind_a_password(tmp_path: Path) -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    redis_service = compose["services"]["redis"]
    assert "ports" not in redis_service
    assert redis_service["networks"] and all(compose["networks"][name].get("internal") for name in redis_service["networks"])
    urls = [service["environment"]["REDIS_URL"] for service in compose["services"].values() if "REDIS_URL" in service.get("environment", {})]
    assert urls and all(interpolated(url) == f"redis://:{PASSWORD}@redis:6379/0" for url in urls)
    # The server makes seat links and the workers write them into mails: one key, required.
    keys = {compose["services"][name]["environment"].get("PBM_SECRET_KEY") for name in ("server", "worker")}
    assert len(keys) == 1 and keys.pop().startswith("${PBM_SECRET_KEY:?")
    command = [interpolated(arg) for arg in redis_service["command"]]
    at = command.index("--requirepass")
    assert command[at + 1] == PASSWORD
    # The same server options on a real redis-server; pbm with the services' REDIS_URL.
    with redis_server(*command[1:at], *command[at + 2 :], password=command[at + 1]) as (_url, admin):
        port = admin.connection_pool.connection_kwargs["port"]
        service_url = interpolated(urls[0]).replace("@redis:6379", f"@127.0.0.1:{port}")
        run = lambda url, *args: CliRunner().invoke(main, list(args), env={"REDIS_URL": url, "PBM_HOME": str(tmp_path)})
        created = run(service_url, "new", "holly-oak", "--players", "3")
        assert created.exit_code == 0, created.output
        refused = run(service_url.replace(f":{PASSWORD}@", ""), "list")
        assert refused.exit_code == 1 and "requires a password" in refused.stderr


def test_the_image_runs_as_a_user_and_compose_publishes_only_on_the_hosts_loopback() -> None:
    """Read, not run (no Docker engine here): the image's last USER is a numeric uid other than
    root's, set after its last RUN (so every service's command runs as it), and each published
    port binds 127.0.0.1, never every address of the host."""
    lines = [line.strip() for line in DOCKERFILE.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    steps = [line.split(None, 1)[0].upper() for line in lines]
    users = [index for index, step in enumerate(steps) if step == "USER"]
    assert users and users[-1] > max(index for index, step in enumerate(steps) if step == "RUN")
    uid, _, gid = lines[users[-1]].split(None, 1)[1].partition(":")
    assert uid.isdigit() and int(uid) != 0 and gid.isdigit() and int(gid) != 0, lines[users[-1]]
    compose = yaml.safe_load(COMPOSE.read_text())
    published = [(name, str(port)) for name, service in compose["services"].items() for port in service.get("ports", [])]
    assert published and all(port.startswith("127.0.0.1:") for _name, port in published), published
    assert all(service.get("user") in (None, f"{uid}:{gid}", uid) for service in compose["services"].values() if "build" in service)


@pytest.fixture
def running(games: Games, game_id: str) -> str:
    games.create("holly-oak", 3, seed=11, game_id=game_id)
    play_random(games, game_id, moves=4)
    return game_id


def hands(games: Games, game_id: str) -> list[list[str]]:
    table = games.table(game_id)
    return [table.view(seat)["hand"] for seat in range(3)]


def test_a_running_games_whole_state_needs_referee(pbm, games: Games, running: str, tmp_path: Path) -> None:
    secret = [card for hand in hands(games, running) for card in hand]
    for command in (["show", running], ["step", running, "--script", "q"], ["audit", running, "--seq", "3"]):
        refused = pbm("replay", *command, ok=False)
        assert "add --referee" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
        assert not any(card in refused.output for card in secret)
    state = json.loads(pbm("replay", "show", running, "--referee", "--json").stdout)["state"]
    assert [[str(card) for card in hand] for hand in state["hands"]] == hands(games, running)
    assert pbm("replay", "step", running, "--referee", "--script", "q").exit_code == 0
    assert pbm("replay", "audit", running, "--seq", "3", "--referee", "-o", str(tmp_path / "a.md")).exit_code == 0
    seat_view = json.loads(pbm("replay", "show", running, "--as", "0", "--json").stdout)
    assert seat_view["hand"] == hands(games, running)[0] and "state" not in seat_view
    assert "state" not in json.loads(pbm("replay", "show", running, "--public", "--json").stdout)


def test_a_finished_games_whole_state_is_open(pbm, games: Games, running: str) -> None:
    play_random(games, running)
    assert "state" in json.loads(pbm("replay", "show", running, "--json").stdout)


def test_an_exported_replay_is_its_owners_only(pbm, running: str, tmp_path: Path) -> None:
    path = tmp_path / "running.pbmlog"
    pbm("replay", "export", running, "-o", str(path))
    assert path.stat().st_mode & 0o777 == 0o600
