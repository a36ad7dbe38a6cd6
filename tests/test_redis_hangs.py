"""A Redis that hangs (its process SIGSTOPped): every request, command and job is told so within
seconds, in one line, and goes on once Redis does (SIGCONT). Before, redis-py's defaults (5 s a
try, 4 tries) held each request 20 s, the seats' pages held the server's event loop meanwhile, and
rq raised a worker's timeout to 415 s. Real redis-server processes started here (tests/real_redis.py)
and pbm's embedded one, a real `pbm serve`, `pbm worker` and `pbm list`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
import pytest

from events.server import DEFAULT_TIMEOUT_S, EmbeddedRedis
from pbm.web.errors import UNAVAILABLE
from pbm.web.pages import STATIC_PATH
from tests.real_redis import redis_server

ADMIN = "hang-test-admin-token-of-32-chars-or-more"  # pbm serve refuses a shorter one
# What a hung Redis may add to an answer: pbm's timeout twice (a request not exempt from the
# per-address limits waits out one timeout there, pbm/web/limits.py, and one in its handler). Before:
# 20 s for one request, 21 s for the seventh of seven at once. The rest of the bound is what the same
# requests take with Redis running, measured in the same run (`answer_bound`): on a machine loaded
# to a load of 8-32, that alone was seconds.
HANG_S = 2 * DEFAULT_TIMEOUT_S


def answer_bound(baseline_s: float, hang_s: float = HANG_S) -> float:
    """How long an answer may take while Redis hangs: what the hang adds, and twice what the same
    work took just before with Redis running, and room for the machine's swings."""
    return hang_s + 2 * baseline_s + 4


@contextmanager
def stopped(pid: int) -> Iterator[None]:
    """The process `pid` stopped (SIGSTOP) for the block, and running again after it, whatever happens."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def environment(home: Path, url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PBM_REDIS_CLUSTER", "PBM_QUEUE_URL")}
    env |= {"PBM_HOME": str(home), "PBM_ADMIN_TOKEN": ADMIN, "PYTHONUNBUFFERED": "1"}
    return env | ({"REDIS_URL": url} if url else {})


@contextmanager
def serving(env: dict[str, str], log: Path) -> Iterator[tuple[str, list[str]]]:
    """A real `pbm serve` on a free port: its URL, and (once the block ends) its log's lines."""
    lines: list[str] = []
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "pbm", "serve", "--port", "0"], env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while "\n" not in log.read_text():
            assert time.monotonic() < deadline and process.poll() is None, f"pbm serve did not start: {log.read_text()[-2000:]}"
            time.sleep(0.05)
        first = log.read_text().splitlines()[0]
        assert first.startswith("pbm serving on http://"), first
        yield first.split()[3], lines
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        lines.extend(log.read_text().splitlines())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(base: str) -> tuple[str, list[str]]:
    body = {"game": "holly-oak", "players": 3, "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], "seed": 5, "late_salts": False, "forced_moves": "ask"}
    created = httpx.post(f"{base}/api/games", json=body, headers=bearer(ADMIN), timeout=30)
    assert created.status_code == 201, created.text
    return created.json()["game_id"], [seat["token"] for seat in created.json()["seats"]]


def timed(method: str, url: str, **options) -> tuple[int, float, str]:
    started = time.monotonic()
    answer = httpx.request(method, url, timeout=60, **options)
    return answer.status_code, time.monotonic() - started, answer.text


def at_once(requests: dict[str, tuple]) -> dict[str, tuple[int, float, str]]:
    """Each (method, url, options) sent from a thread of its own, all at once: name -> answer."""
    answers: dict[str, tuple[int, float, str]] = {}

    def send(name: str, method: str, url: str, options: dict) -> None:
        try:
            answers[name] = timed(method, url, **options)
        except httpx.HTTPError as error:
            answers[name] = (0, 60.0, f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=send, args=(name, *request)) for name, request in requests.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


def listening_pages(base: str, token: str, count: int) -> None:
    """`count` open seat pages: each holds the server-sent events stream its script listens to."""

    def listen() -> None:
        try:
            with httpx.stream("GET", f"{base}/play/{token}/events", timeout=120) as stream:
                for _line in stream.iter_lines():
                    pass
        except httpx.HTTPError:
            pass

    for _ in range(count):
        threading.Thread(target=listen, daemon=True).start()


def slowest(answers: dict[str, tuple[int, float, str]]) -> float:
    return max(took for _status, took, _text in answers.values())


def back_again(base: str, token: str) -> None:
    """Once Redis runs again, the server answers again (its connections are not left broken)."""
    deadline = time.monotonic() + answer_bound(0) * 6  # "at all": not a measure of speed
    while (status := timed("GET", f"{base}/api/me", headers=bearer(token))[0]) != 200:
        assert time.monotonic() < deadline, f"still {status} after Redis came back"
        time.sleep(0.2)


def test_pbm_serve_answers_every_request_within_seconds_while_redis_hangs(tmp_path: Path) -> None:
    with redis_server(password="hang-pw") as (url, admin):
        port = str(admin.connection_pool.connection_kwargs["port"])
        with serving(environment(tmp_path, url), tmp_path / "serve.log") as (base, log):
            game_id, tokens = new_game(base)
            me = httpx.get(f"{base}/api/me", headers=bearer(tokens[0]), timeout=30).json()
            mover = next(tokens[seat] for seat in me["view"]["to_act"])
            listening_pages(base, tokens[1], 3)
            time.sleep(1.5)  # the streams are open and polling
            requests = {
                "a seat's view": ("GET", f"{base}/api/me", {"headers": bearer(tokens[0])}),
                "a seat's page": ("GET", f"{base}/play/{tokens[1]}", {}),
                "another page": ("GET", f"{base}/play/{tokens[2]}", {}),
                "a move": ("POST", f"{base}/api/me/moves", {"json": {"move": "play 1Sp"}, "headers": bearer(mover)}),
                "the game list": ("GET", f"{base}/api/games", {"headers": bearer(ADMIN)}),
                "a spectator": ("GET", f"{base}/api/games/{game_id}/public", {}),
                "the spec": ("GET", f"{base}/openapi.json", {}),
            }
            # The same at once with Redis running (the move aside: it would be played), in this run.
            running = at_once({name: request for name, request in requests.items() if name != "a move"})
            assert all(status < 500 for status, _took, _text in running.values()), running  # answered, each as it would be
            bound = answer_bound(slowest(running))
            with stopped(int(admin.info("server")["process_id"])):
                answers = at_once(requests)
            back_again(base, tokens[0])
    for name, (status, took, text) in answers.items():
        assert took < bound, f"{name}: answered after {took:.1f} s (bound {bound:.1f} s, {slowest(running):.1f} s with Redis running)"
        if name == "the spec":
            assert status == 200  # nothing of Redis: not held up by the requests that wait on it
            continue
        assert status == 503, f"{name}: {status} {text}"
        # Nothing of where Redis runs, nor how it failed: that is for the server's log.
        assert json.loads(text) == {"error": UNAVAILABLE}, f"{name}: {text}"
    logged = "\n".join(log)
    assert "did not answer in time" in logged and f":***@127.0.0.1:{port}" in logged
    assert "hang-pw" not in logged and "Traceback" not in logged


def test_moves_and_forms_that_wait_on_a_hung_redis_hold_no_other_request(tmp_path: Path) -> None:
    """A move through the API, the seat page's form posts (a move, a vacation) and the console wait
    on a hung Redis in the thread pool: meanwhile the server answers what needs no Redis at once.
    Before, the forms and the console asked Redis on the event loop (the forms once they had read
    their body), and so did a move through the API (while Pace kept moves there): each held every
    request of the server for a timeout.
    Redis' timeout is raised here so that a request held that long cannot pass for a slow one."""
    with redis_server() as (url, admin):
        static_s = static_file_time(tmp_path, url)
        # A request held behind one of them waits most of a timeout: the first sent after the hold
        # begins (one every 0.1 s) waits all of it. Room below that for a loaded machine: the
        # timeout is 6 s, or more where a static file alone takes long here now (measured first).
        hang_s = max(6.0, 8 * static_s)
        prompt_s = 0.75 * hang_s
        env = environment(tmp_path, url) | {"PBM_REDIS_TIMEOUT_S": str(hang_s)}
        with serving(env, tmp_path / "serve.log") as (base, _log):
            game_id, tokens = new_game(base)
            me = httpx.get(f"{base}/api/me", headers=bearer(tokens[0]), timeout=30).json()
            seat = me["view"]["to_act"][0]
            opened = httpx.get(f"{base}/play/{tokens[seat]}", timeout=30)  # the link leaves the seat's cookie
            assert opened.status_code == 303, opened.text
            given = next(iter(opened.cookies.jar))  # the page's (its replay's has the same token)
            cookie = {"Cookie": f"{given.name}={given.value}"}
            page = f"{base}{opened.headers['location']}"
            waiting = {
                "an API move": ("POST", f"{base}/api/me/moves", {"json": {"move": "play 1Sp"}, "headers": bearer(tokens[seat])}),
                "the page's move": ("POST", f"{page}/move", {"data": {"move": "play 1Sp", "csrf": "x"}, "headers": cookie}),
                "the page's vacation": ("POST", f"{page}/vacation", {"data": {"days": "2", "csrf": "x"}, "headers": cookie}),
                "the console": ("GET", f"{base}/admin", {"headers": {"Cookie": "pbm_console=" + "a" * 64}}),  # its session is looked up
            }
            static = f"{base}{STATIC_PATH}/page.css"  # answered without Redis
            assert httpx.get(static, timeout=30).status_code == 200
            quick: list[tuple[float, float]] = []  # (when sent, how long it took) of each static file
            with stopped(int(admin.info("server")["process_id"])):
                sent_at = time.monotonic()
                held: dict[str, tuple[int, float, str]] = {}
                sender = threading.Thread(target=lambda: held.update(at_once(waiting)))
                sender.start()
                while sender.is_alive():
                    asked = time.monotonic()
                    answered = httpx.get(static, timeout=60)
                    assert answered.status_code == 200
                    quick.append((asked - sent_at, time.monotonic() - asked))
                    time.sleep(0.1)
                sender.join()
            back_again(base, tokens[0])
    for name, (status, took, text) in held.items():
        # Each did wait on the hung Redis (so the files below were asked for meanwhile), then a 503.
        assert status == 503 and hang_s <= took < 3 * hang_s + 4, f"{name}: {status} after {took:.1f} s: {text}"
    slow = [(round(when, 1), round(took, 1)) for when, took in quick if took >= prompt_s]
    assert not slow, f"held while the others waited on Redis: (sent at s, took s) {slow}"
    assert max(when for when, _took in quick) >= hang_s  # asked for through the waits, not only before them


def static_file_time(tmp_path: Path, url: str) -> float:
    """The slowest of 20 static files fetched one after another from a `pbm serve` of its own, with
    Redis running: what such a request costs on this machine now."""
    with serving(environment(tmp_path, url), tmp_path / "baseline.log") as (base, _log):
        return max(timed("GET", f"{base}{STATIC_PATH}/page.css")[1] for _ in range(20))


def test_a_hung_or_dead_embedded_redis_is_a_503_naming_nothing_of_its_data_directory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    embedded = EmbeddedRedis(home)
    try:
        with serving(environment(home), tmp_path / "serve.log") as (base, log):
            _game_id, tokens = new_game(base)
            pid = embedded.pid()
            bound = answer_bound(max(timed("GET", f"{base}/api/me", headers=bearer(tokens[0]))[1] for _ in range(3)))
            with stopped(pid):
                hung = timed("GET", f"{base}/api/me", headers=bearer(tokens[0]))
            back_again(base, tokens[0])
            os.kill(pid, signal.SIGKILL)
            dead = timed("GET", f"{base}/play/{tokens[0]}")
    finally:
        embedded.stop()
    for status, took, text in (hung, dead):
        assert status == 503 and took < bound, (status, took, bound, text)
        assert json.loads(text) == {"error": UNAVAILABLE}
        assert str(tmp_path) not in text and "redis" not in text.lower()
    logged = "\n".join(log)
    assert f"embedded Redis in {home} did not answer in time" in logged  # the operator is told where
    assert f"cannot reach embedded Redis in {home}" in logged and "Traceback" not in logged


def test_a_worker_says_a_hung_redis_in_one_line_within_seconds_and_plays_on_after(tmp_path: Path) -> None:
    with redis_server() as (url, admin):
        env = environment(tmp_path, url)
        worker = subprocess.Popen([sys.executable, "-m", "pbm", "worker", "--no-recover"], env=env, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(worker.stderr), daemon=True)
        reader.start()
        try:
            deadline = time.monotonic() + 60
            while not any(admin.hget(name, "state") == b"idle" for name in admin.smembers("rq:workers")):
                assert time.monotonic() < deadline and worker.poll() is None, f"the worker never got going: {lines[-5:]}"
                time.sleep(0.1)
            with stopped(int(admin.info("server")["process_id"])):
                hung_at = time.monotonic()
                while not any("did not answer in time" in line for line in lines):
                    # rq would have waited 415 s: it raises a worker's socket timeout that far. The
                    # worker's dequeue blocks 1 s, then a command waits out pbm's timeout: well
                    # inside the bound even at a load of 32.
                    assert time.monotonic() - hung_at < 60, f"nothing said in 60 s: {lines[-5:]}"
                    time.sleep(0.1)
            bots = [f"--bot={seat}=random" for seat in range(3)]
            made = subprocess.run([sys.executable, "-m", "pbm", "new", "holly-oak", "--players", "3", *bots], env=env, capture_output=True, text=True, timeout=120)
            assert made.returncode == 0, made.stderr
            game_id = made.stdout.strip()
            deadline = time.monotonic() + 120
            while not admin.hget(f"pbm:{{{game_id}}}:meta", "outcome"):
                assert time.monotonic() < deadline and worker.poll() is None, f"the bots did not finish after Redis came back: {lines[-5:]}"
                time.sleep(0.2)
        finally:
            worker.terminate()
            worker.wait(timeout=30)
            reader.join(timeout=10)
    assert worker.returncode == 0 and not any("Traceback" in line for line in lines), lines[-20:]


def test_a_command_against_a_hung_redis_ends_in_one_line_within_seconds(tmp_path: Path) -> None:
    def pbm_list(url: str) -> tuple[subprocess.CompletedProcess, float]:
        started = time.monotonic()
        listed = subprocess.run([sys.executable, "-m", "pbm", "list"], env=environment(tmp_path, url), capture_output=True, text=True, timeout=120)
        return listed, time.monotonic() - started

    with redis_server() as (url, admin):
        running, baseline_s = pbm_list(url)  # the interpreter's start and the imports, here now
        assert running.returncode == 0, running.stderr
        with stopped(int(admin.info("server")["process_id"])):
            listed, took = pbm_list(url)
    assert listed.returncode == 1 and took < answer_bound(baseline_s), (took, baseline_s, listed.stderr)
    [line] = listed.stderr.strip().splitlines()
    assert "did not answer in time" in line, line


@pytest.mark.parametrize("given", ["0.5", "soon", "nan", "1e9"])
def test_a_timeout_setting_out_of_range_is_refused_in_one_line(tmp_path: Path, given: str) -> None:
    env = environment(tmp_path) | {"PBM_REDIS_TIMEOUT_S": given}
    listed = subprocess.run([sys.executable, "-m", "pbm", "list"], env=env, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 1, listed.stdout
    [line] = listed.stderr.strip().splitlines()
    assert "PBM_REDIS_TIMEOUT_S must be a number of seconds from 2 to 600" in line, line
