"""Shared by the benchmark scripts: a private Redis to measure on, and a timer. Never imported by pbm."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from events.server import EmbeddedRedis


@contextmanager
def bench_redis() -> Iterator[tuple[redis.Redis, str]]:
    """REDIS_URL if set (keys are removed afterwards), else a fresh embedded server."""
    url = os.environ.get("REDIS_URL")
    if url:
        client = redis.Redis.from_url(url)
        yield client, url
        for key in client.scan_iter(match="pbm:*bench*", count=1000):
            client.delete(key)
        return
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="pbm-bench-")))
    try:
        yield server.client(), f"embedded Redis {server.client().info('server')['redis_version']}"
    finally:
        server.stop()
        shutil.rmtree(server.directory, ignore_errors=True)


def rates(count: int, work: dict[str, Callable[[], object]], repeat: int = 5) -> dict[str, float]:
    """Items per second of each piece of work, best of `repeat` rounds. The rounds interleave the
    pieces, so a load that comes and goes on the machine weighs on all of them alike."""
    best = dict.fromkeys(work, float("inf"))
    for _ in range(repeat):
        for name, run in work.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: count / seconds for name, seconds in best.items()}
