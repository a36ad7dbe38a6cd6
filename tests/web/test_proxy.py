"""deploy/nginx/pbm.conf in a real nginx, in front of a real `pbm serve`: TLS with a self-signed
certificate (made by the openssl command), plain HTTP sent to https, a seat's link and its Secure
cookie, a move through the API, a seat page's event stream that carries a move at once (no
buffering on the way), the size limits, and the client addresses pbm's limits count: the one
nginx saw, never one the client wrote in X-Forwarded-For.

Skipped, with one line saying why, when nginx or openssl is missing; PBM_REQUIRE_PROXY=1 (set by
.ci/run) turns that skip into a failure.
"""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from bench import serving
from pbm.web.pages import EVENTS_KEEPALIVE_S
from tests.web.conftest import ADMIN, bearer

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "pbm.conf"
START_S = 20
WRONG_TOKENS = 6  # PBM_WRONG_TOKENS_PER_MINUTE for this server: the spoofing check needs a few
# Client addresses of this test (all of 127.0.0.0/8 reaches nginx on Linux): their counters are
# deleted at the end, so no other test's server on the same Redis finds them spent.
ADDRESSES = ("127.0.0.1", "127.0.0.2", "127.0.0.3")


def need(command: str) -> str:
    found = shutil.which(command, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if found is None:
        missing = f"{command} is missing (apt-get install {command})"
        if os.environ.get("PBM_REQUIRE_PROXY") == "1":
            pytest.fail(f"proxy tests required (PBM_REQUIRE_PROXY=1) but {missing}")
        pytest.skip(missing)
    return found


def rendered(values: dict[str, str]) -> str:
    text = TEMPLATE.read_text()
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", value)
    assert "{{" not in text, "a placeholder of deploy/nginx/pbm.conf was left unfilled"
    return text


def certificate(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [need("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


def main_config(directory: Path, site: Path) -> Path:
    """nginx's main file around the site's: everything in `directory`, in the foreground."""
    temp = directory / "temp"
    temp.mkdir()
    config = directory / "nginx.conf"
    config.write_text(
        f"daemon off;\nworker_processes 1;\npid {directory}/nginx.pid;\nerror_log {directory}/error.log info;\n"
        "events { worker_connections 256; }\n"
        "http {\n"
        f"  access_log {directory}/access.log;\n"
        + "".join(f"  {kind}_temp_path {temp}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        + f"  include {site};\n}}\n"
    )
    return config


def wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_S
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"nginx did not start: {log.read_text()[-2000:] if log.exists() else ''}") from None
            time.sleep(0.05)


def proxy_before(replicas: int, cli_env: dict, redis_client, tmp_path: Path, **settings: str) -> Iterator[dict]:
    """`replicas` real `pbm serve` processes on 127.0.0.1 (one Redis) and nginx before them with
    deploy/nginx/pbm.conf; each replica's output in its own file."""
    nginx = need("nginx")
    cert, key = certificate(tmp_path)
    https, plain = serving.free_port(), serving.free_port()
    public = f"https://127.0.0.1:{https}"
    env = {**os.environ, **cli_env, "PBM_ADMIN_TOKEN": ADMIN, "PYTHONUNBUFFERED": "1", "PBM_PUBLIC_URL": public,
           "PBM_WRONG_TOKENS_PER_MINUTE": str(WRONG_TOKENS), **settings}
    env.pop("FORWARDED_ALLOW_IPS", None)  # uvicorn's default: trust the proxy on 127.0.0.1 only
    servers, logs = [], [tmp_path / f"serve-{n}.log" for n in range(replicas)]
    try:
        for log in logs:
            with log.open("w") as out:  # a file: nobody reads a pipe while the test runs
                servers.append(serving.start(env, stdout=out, stderr=subprocess.STDOUT))
        upstreams = [url.removeprefix("http://") for _process, url in servers]
        site = tmp_path / "pbm.conf"
        site.write_text(rendered({
            "SERVER_NAME": "127.0.0.1", "PUBLIC_URL": public, "HTTPS_PORT": str(https), "HTTP_PORT": str(plain),
            "CERTIFICATE": str(cert), "CERTIFICATE_KEY": str(key), "UPSTREAM": upstreams[0], "UPSTREAM_2": upstreams[-1],
        }))
        config = main_config(tmp_path, site)
        proxy = subprocess.Popen([nginx, "-c", str(config), "-p", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            wait_for_port(https, proxy, tmp_path / "error.log")
            yield {"public": public, "plain": f"http://127.0.0.1:{plain}", "cert": cert, "serve_log": logs[0], "serve_logs": logs, "logs": tmp_path}
        finally:
            proxy.terminate()
            proxy.wait(timeout=30)
    finally:
        for server, _url in servers:
            serving.stop(server)
        for address in ADDRESSES:
            for name in redis_client.scan_iter(match=f"*addr:{address}}}:rate:*", count=1000):
                redis_client.delete(name)


@pytest.fixture
def proxied(cli_env, redis_client, tmp_path) -> Iterator[dict]:
    """One `pbm serve` behind nginx (the template's two upstream lines name it twice)."""
    yield from proxy_before(1, cli_env, redis_client, tmp_path)


@pytest.fixture
def proxied_replicas(cli_env, redis_client, tmp_path) -> Iterator[dict]:
    """Two `pbm serve` replicas behind nginx; a whole game's reads and moves from one client within
    every allowance."""
    loose = {name: "100000" for name in ("PBM_MOVES_PER_10S", "PBM_READS_PER_10S", "PBM_REQUESTS_PER_10S")}
    yield from proxy_before(2, cli_env, redis_client, tmp_path, **loose)


def client(proxied: dict, address: str = "127.0.0.1") -> httpx.Client:
    """An https client of the proxy trusting only the test's certificate, from `address`."""
    context = ssl.create_default_context(cafile=str(proxied["cert"]))
    transport = httpx.HTTPTransport(verify=context, local_address=address)
    return httpx.Client(base_url=proxied["public"], transport=transport, timeout=10)


def in_one_window() -> None:
    """Waits out the last seconds of a minute: wrong tokens are counted per clock minute, and a
    count that started again halfway through the test's would let more through."""
    left = 60 - time.time() % 60
    if left < 5:
        time.sleep(left + 0.1)


def seq_events(lines: Iterator[str]) -> Iterator[int]:
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: ") and event == "seq":
            yield int(line.removeprefix("data: "))


def test_pbm_behind_nginx_over_tls_streams_at_once_and_counts_the_real_client_address(proxied):
    public = proxied["public"]
    with httpx.Client(timeout=10) as plain:  # plain HTTP: only a redirect to https
        sent = plain.get(f"{proxied['plain']}/play/some-link?x=1", follow_redirects=False)
        assert sent.status_code == 301 and sent.headers["location"] == f"{public}/play/some-link?x=1"
    with client(proxied) as http:
        body = {"game": "holly-oak", "players": 3, "seats": [{"name": n} for n in ("Ann", "Bob", "Cy")], "late_salts": False}
        created = http.post("/api/games", json=body, headers=bearer(ADMIN))
        assert created.status_code == 201, created.text
        seats = created.json()["seats"]
        assert all(seat["url"] == f"{public}/play/{seat['token']}" for seat in seats)

        def to_act() -> tuple[dict, dict]:
            for seat in seats:
                view = http.get("/api/me", headers=bearer(seat["token"])).json()["view"]
                if view["legal_moves"]:
                    return seat, view
            raise AssertionError("no seat is to act")

        mover, view = to_act()
        moved = http.post("/api/me/moves", json={"move": view["legal_moves"][0], "expected_seq": view["seq"]}, headers=bearer(mover["token"]))
        assert moved.status_code == 200, moved.text
        mover, view = to_act()
        watcher = next(seat for seat in seats if seat is not mover)
        opened = http.get(watcher["url"], follow_redirects=False)  # the link as a mail carries it
        page = opened.headers["location"]
        assert opened.status_code == 303 and page.startswith("/play/g/") and watcher["token"] not in page
        assert "secure" in opened.headers["set-cookie"].lower()
        assert http.get(page).status_code == 200  # by the cookie the link left
        with http.stream("GET", f"{page}/events") as stream:
            assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            seqs = seq_events(stream.iter_lines())
            assert next(seqs) == view["seq"]
            moved_at = time.monotonic()
            moved = http.post("/api/me/moves", json={"move": view["legal_moves"][0], "expected_seq": view["seq"]}, headers=bearer(mover["token"]))
            assert moved.status_code == 200, moved.text
            # pbm looks once a second; a buffering proxy would hold the event until its buffer filled
            # (the next one comes 15 s later and is a few bytes): the client's 10 s timeout would end it.
            assert next(seqs) >= moved.json()["seq"]  # the log's length: the move and what followed it
            # Well before that next one: held by a buffer, the event comes with it or never. (3 s
            # here was a loaded machine's poll, not a buffer.)
            assert time.monotonic() - moved_at < EVENTS_KEEPALIVE_S / 2
        # Size limits: nginx stops what is far past pbm's; pbm answers the rest with its own line.
        assert http.get("/api/me", headers={"X-Padding": "a" * 9000}).status_code == 400
        assert http.post("/api/me/moves", content=b"x" * 100_000, headers=bearer(mover["token"])).status_code == 413
        near = http.post("/api/me/moves", content=b"x" * 20_000, headers=bearer(mover["token"]))
        assert near.status_code == 413 and near.json()["error"] == "request body over 16384 bytes"

        # Wrong tokens from one client that names a new address each time in X-Forwarded-For:
        # nginx puts the address it sees there instead, so pbm counts them all as one address's.
        # (From 127.0.0.1, an address uvicorn trusts: a header nginx only appended to would be
        # read past it, to the address the client made up.)
        # The one past the allowance is still answered 401, and the address refused from then on.
        in_one_window()
        said = [http.get("/api/me", headers={**bearer("w" * 40), "X-Forwarded-For": f"203.0.113.{n}"}).status_code for n in range(WRONG_TOKENS + 3)]
        assert said == [401] * (WRONG_TOKENS + 1) + [429, 429], said
    # Another client, from another address: counted apart, so not refused.
    with client(proxied, "127.0.0.2") as other:
        assert other.get("/api/me", headers=bearer(watcher["token"])).status_code == 200
        in_one_window()
        said = [other.get("/api/me", headers={**bearer("w" * 40), "X-Forwarded-For": "127.0.0.3"}).status_code for _ in range(WRONG_TOKENS + 2)]
        assert said == [401] * (WRONG_TOKENS + 1) + [429], said
    with client(proxied, "127.0.0.3") as third:  # the address the second one named is not spent
        assert third.get("/api/me", headers=bearer(watcher["token"])).status_code == 200
    logged = proxied["serve_log"].read_text()
    assert '127.0.0.2:' in logged and '127.0.0.3:' in logged and "203.0.113." not in logged
    # nginx writes no access log, and no token reaches its error log.
    for name in ("access.log", "error.log"):
        text = (proxied["logs"] / name).read_text() if (proxied["logs"] / name).exists() else ""
        assert not any(seat["token"] in text or seat["token"].rsplit(".", 1)[1] in text for seat in seats), name


# The page's redraw, awaited as a function (the page's CSP forbids an expression: test_browser.py).
REACHED = "seq => Number(document.getElementById('live').dataset.seq) >= seq"


def test_a_whole_game_through_nginx_before_two_replicas_with_a_page_live_on_the_other(proxied_replicas):
    """A whole game of Holly Oak played through nginx before two replicas, with a seat's page open
    in Chromium: its event stream is held by one replica, and nginx (least_conn) sends the moves to
    the other, so every redraw the page makes is of a move it heard of through Redis."""
    from tests.pages.conftest import CHROMIUM, need_browser
    from tests.pages.test_browser import over

    need_browser()
    from playwright.sync_api import sync_playwright

    logs = proxied_replicas["serve_logs"]
    with client(proxied_replicas, "127.0.0.2") as http, sync_playwright() as playwright:
        body = {"game": "holly-oak", "players": 3, "seats": [{"name": n} for n in ("Ann", "Bob", "Cy")], "forced_moves": "ask", "late_salts": False}
        created = http.post("/api/games", json=body, headers=bearer(ADMIN))
        assert created.status_code == 201, created.text
        tokens = [seat["token"] for seat in created.json()["seats"]]
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_context(ignore_https_errors=True).new_page()  # the test's own certificate
            page.goto(created.json()["seats"][0]["url"])
            page.evaluate("window.loadedOnce = true")  # gone if the page is ever reloaded
            deadline = time.monotonic() + serving.START_S  # a browser's page on a loaded machine: it opens one at all
            while not (holding := [log for log in logs if "/events HTTP/1.1" in log.read_text()]):
                assert time.monotonic() < deadline, "the page opened no event stream"
                time.sleep(0.1)
            [streaming] = holding
            other = next(log for log in logs if log != streaming)
            view = http.get("/api/me", headers=bearer(tokens[0])).json()["view"]
            moves = 0
            while view["outcome"] is None:
                mover = tokens[view["to_act"][0]]
                mine = http.get("/api/me", headers=bearer(mover)).json()["view"]
                played = http.post("/api/me/moves", json={"move": mine["legal_moves"][0], "expected_seq": mine["seq"]}, headers=bearer(mover))
                assert played.status_code == 200, played.text
                view, moves = played.json()["view"], moves + 1
                if moves % 25 == 0:  # the page keeps up as the game goes, not only at its end
                    page.wait_for_function(REACHED, arg=view["seq"], timeout=20_000)
            page.wait_for_function(REACHED, arg=view["seq"], timeout=20_000)
            assert over(page) and page.locator("section.outcome").count() == 1
            assert page.evaluate("window.loadedOnce") is True  # redrawn live to the end, never reloaded
        finally:
            browser.close()
    assert moves > 100  # a whole game: 44 cards a round, rounds until the end
    streamed, moved = streaming.read_text(), other.read_text()
    assert moved.count('"POST /api/me/moves HTTP/1.1" 200') > moves // 2, "the replica without the stream played few of the moves"
    # The address nginx saw, not its own (the page's requests come from 127.0.0.1 like nginx's, and
    # whether any request of 127.0.0.2 reached the streaming replica before its stream opened is
    # nginx's choice, so only the replica that played the moves can show it).
    assert "127.0.0.2:" in moved
    for text in (streamed, moved):
        assert not any(token.rsplit(".", 1)[1] in text for token in tokens)
