"""Shared by the benchmark scripts: a private Redis to measure on, and a timer. Never imported by pbm."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


# A busy loop at the lowest priority (nice 19), which ends by itself if the bench that started it
# dies without stopping it (it is handed to another parent).
_SPINNER = """
import os
parent = os.getppid()
os.nice(19)
while os.getppid() == parent:
    for _ in range(1_000_000):
        pass
"""


@contextmanager
def warm_cores(enabled: bool = True) -> Iterator[str]:
    """While measuring, one busy loop per core at nice 19, so that no core halts.

    Why: on a VM, a core with nothing to run halts, and waking it up again (for Redis to read a
    request, or for the client to read the reply) adds tens of microseconds to a round trip: a
    PING through events.calls took 49-55 us here with the cores left to halt, 14 us with these
    loops (27-30 us with loops at SCHED_IDLE, which let the cores sleep more lightly). How often a
    core gets to halt depends on everything else on the machine, so figures over round trips swing
    with it. A woken process preempts a nice-19 loop at once; the loops take at most about 1.5%
    of a core that something else wants. Yields a line saying which way the figures were taken.
    """
    if not enabled:
        yield "cores left to halt when idle (--warm keeps them awake)"
        return
    spinners = [subprocess.Popen([sys.executable, "-c", _SPINNER]) for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.2)  # each has lowered its priority before the measuring starts
        yield f"cores kept awake (--warm: {len(spinners)} busy loops at nice 19)"
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


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
