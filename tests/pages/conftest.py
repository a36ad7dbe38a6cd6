"""What the browser tests share: where they leave their screenshots (PBM_ARTIFACTS, or a fresh
temporary directory; the run's summary names it), Debian's Chromium driven by Playwright (skipped,
with one line saying why, when either is missing; PBM_REQUIRE_BROWSER=1, set by .ci/run, turns
that skip into a failure), and the one way they start a real `pbm serve` (serve_site, and served:
one with loose limits for a module)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

from bench import serving

CHROMIUM = "/usr/bin/chromium"
ADMIN = "browser-test-admin-token-32-characters"

ARTIFACTS = Path(os.environ.get("PBM_ARTIFACTS") or tempfile.mkdtemp(prefix="pbm-page-shots-"))
ARTIFACTS.mkdir(parents=True, exist_ok=True)


def pytest_terminal_summary(terminalreporter) -> None:
    shots = sorted(ARTIFACTS.glob("*.png"))
    if shots:
        terminalreporter.write_line(f"browser screenshots ({len(shots)}): {ARTIFACTS}")


@attrs.define
class Served:
    """A real `pbm serve` a test started: its URL, its environment and its log (the access log too)."""

    url: str
    env: dict[str, str]
    log: Path
    process: subprocess.Popen

    def stop(self) -> str:
        """Stops it (again, nothing) and answers its whole log."""
        serving.stop(self.process)
        return self.log.read_text()


@pytest.fixture(scope="module")
def serve_site(redis_client, redis_home) -> Iterator[Callable[..., Served]]:
    """Starts a real `pbm serve` on a free port on the test Redis: serve_site(log, admin, **env),
    the server's output to `log`. Each is stopped at the module's end, and its log must hold no
    traceback."""
    sites: list[Served] = []

    def start(log: Path, admin: str, **extra_env: str) -> Served:
        env = {**os.environ, "PBM_HOME": str(redis_home), "PBM_ADMIN_TOKEN": admin, "PYTHONUNBUFFERED": "1", **extra_env}
        with log.open("w") as out:  # a file, not a pipe: nobody reads a pipe while the games run
            process, url = serving.start(env, stdout=out, stderr=subprocess.STDOUT)
        sites.append(Served(url, env, log, process))
        return sites[-1]

    yield start
    for site in sites:
        logged = site.stop()
        assert "Traceback" not in logged, logged[-3000:]


def need_browser():
    missing = None if Path(CHROMIUM).exists() else f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = missing or "playwright is missing (pip install -e '.[test]')"
    if missing and os.environ.get("PBM_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (PBM_REQUIRE_BROWSER=1) but {missing}")
    if missing:
        pytest.skip(missing)


@pytest.fixture(scope="module")
def browser():
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def served(serve_site, tmp_path_factory) -> tuple[str, dict[str, str]]:
    """A real `pbm serve` (no worker), its limits loose enough for a test that plays whole games by
    the API: its URL and environment."""
    need_browser()
    server = serve_site(tmp_path_factory.mktemp("served") / "serve.log", ADMIN, PBM_MOVES_PER_10S="100000", PBM_READS_PER_10S="100000")
    return server.url, server.env
