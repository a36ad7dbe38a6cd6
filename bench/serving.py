"""A real `pbm serve` process for the tests and the benchmarks: started on a free port, its URL read
from the line it prints first, and stopped. It serves nothing itself; never imported by pbm.

The tests import it from here, as they import bench/chaos.py: tests/ may import bench/, bench/
never imports tests/.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

SERVE = [sys.executable, "-m", "pbm", "serve", "--port", "0"]
START_S = 60  # how long a server writing to a file may take to say where it listens
STOP_S = 30  # how long a stopped process may take to finish before it is killed


def start(env: Mapping[str, str], stdout: int | IO[Any] = subprocess.PIPE, stderr: int | IO[Any] | None = subprocess.PIPE,
          workers: int = 1) -> tuple[subprocess.Popen, str]:
    """`pbm serve --port 0` (with `--workers N`, N replicas on its one address) under `env`, once it has printed where it listens: (the process, its
    URL). Raises AssertionError, the process killed, if it says anything else or nothing.

    Its output goes where `stdout` (a pipe or an open file) and `stderr` say, as for Popen. A pipe
    is read for that first line and then left to the caller, who must read on (the access log
    follows there, and a full pipe stops the server at its next line). A file (the access log kept
    for the end, or read by nobody: a pipe read by a thread would wake it for every line, CPU a
    benchmark would blame on the server) is read from its start until the line is in it."""
    process = subprocess.Popen([*SERVE, *(["--workers", str(workers)] if workers != 1 else [])], env=dict(env), stdout=stdout, stderr=stderr, text=True)
    line = first_line(process, stdout)
    if not line.startswith("pbm serving on http://"):
        process.kill()
        process.wait()
        raise AssertionError(f"pbm serve did not start: {said(process, stdout, line)[-2000:]!r}")
    return process, line.split()[3]


def first_line(process: subprocess.Popen, stdout: int | IO[Any]) -> str:
    """The process's first line of output, or what it wrote before it exited or START_S passed."""
    if stdout == subprocess.PIPE:
        return process.stdout.readline()  # "" if it exits first
    log = Path(stdout.name)
    deadline = time.monotonic() + START_S
    while "\n" not in (text := log.read_text()):
        if process.poll() is not None or time.monotonic() > deadline:
            return text
        time.sleep(0.05)
    return text.split("\n", 1)[0]


def said(process: subprocess.Popen, stdout: int | IO[Any], line: str) -> str:
    """What a server that did not start wrote where it can be read: its file, or its first line
    and, if it is a pipe, its stderr."""
    if stdout != subprocess.PIPE:
        return Path(stdout.name).read_text()
    return line + (process.stderr.read() if process.stderr else "")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL if the process is still there STOP_S later; returns once it is gone."""
    process.terminate()
    try:
        process.wait(timeout=STOP_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
