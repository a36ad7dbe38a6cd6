"""Redis commands on the hot path (an append, a log read), sent straight on a connection of the
client's own pool. It sends what it is given and returns Redis's raw reply; it decides nothing.

Why: redis-py 8 wraps every command in observability hooks and pool bookkeeping (a poll of the
socket at each checkout, counters at checkout and release) that cost as much as the round trip to
a local Redis (bench/spine.py: EVALSHA of the append script 35 us through `execute_command`,
20 us straight on a connection). What matters of that wrapper is kept: the client's retry policy
on a dropped connection (the append and create scripts recognise a resent command, so a resend is
never applied twice), a connection dropped on any error mid-reply (redis-py's connection does that
itself), NOSCRIPT answered by loading the script, a dropped connection made again through the
pool's connection class (a Sentinel's asks where the master is now), and fork safety (a child
process never uses its parent's sockets).

A Cluster client (RedisCluster routes each command by its key's slot), a single-connection client
and one with client-side caching go through redis-py's own calls instead: `Calls.direct` is False.
On a Cluster, a script with commands after it (WAIT) is sent here too, on a connection of the
primary that holds the script's slot (`_on_shard`): RedisCluster lends no connection, and takes
each command to a connection of its own, so a WAIT sent through it would not wait for the script.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from typing import Any

import hiredis
import redis
from redis.commands.core import Script
from redis.exceptions import MovedError, NoScriptError, ResponseError

_forks = 0  # how many forks this process is from the one that imported this module


def _forked() -> None:
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_forked)


class _Idle:
    """The connections a pool lent to direct calls, free to take; shared by every Calls on the
    pool (a Store is made per request or per recovery pass: connections held per Calls would
    leak until the pool's limit, 100 by default)."""

    __slots__ = ("connections", "forks")

    def __init__(self) -> None:
        self.connections: deque[Any] = deque()
        self.forks = _forks  # a forked child (rq's work horse) never takes its parent's connections


_IDLE: weakref.WeakKeyDictionary[Any, _Idle] = weakref.WeakKeyDictionary()
_IDLE_LOCK = threading.Lock()


def _idle_of(pool: Any) -> _Idle:
    with _IDLE_LOCK:
        idle = _IDLE.get(pool)
        if idle is None or idle.forks != _forks:
            idle = _IDLE[pool] = _Idle()
        return idle


class Calls:
    """Sends commands for one client. Safe to share between threads: each call takes a connection
    of its own (popping and pushing a deque is atomic), so at most as many connections are held as
    calls on the pool ever ran at once; they stay in the pool's in-use set, so closing the client
    closes them (the next call connects again)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        pool = getattr(client, "connection_pool", None)
        self.direct = (
            isinstance(client, redis.Redis)
            and client.connection is None
            and pool is not None
            and getattr(pool, "cache", None) is None
        )
        self.cluster = isinstance(client, redis.RedisCluster)
        self._pool = pool
        self._idle = _idle_of(pool) if self.direct else None

    def script(self, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """EVALSHA of a registered script (loaded first if Redis does not know it)."""
        return self.script_then(script, keys, args)[0]

    def script_then(self, script: Script, keys: Sequence[Any], args: Sequence[Any], *then: Sequence[Any]) -> list[Any]:
        """EVALSHA of a registered script, then the commands `then` on the same connection in the
        same write (WAIT must follow the write it waits for on its connection): their raw replies."""
        if not self.direct and not (then and self.cluster):
            if then:
                raise ValueError("commands after a script need a connection of their own: not on this client")
            return [script(keys=keys, args=args)]
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            return self.sequence([command, *then])
        except NoScriptError:  # a restarted or flushed Redis: load it, as redis-py's Script does
            script.sha = self.client.script_load(script.script)
            return self.sequence([("EVALSHA", script.sha, *command[2:]), *then])

    def command(self, command: Sequence[Any]) -> Any:
        """One command's raw reply (no response callback: XRANGE answers nested lists)."""
        packed = (hiredis.pack_command(tuple(command)),)  # redis-py's packer re-checks every argument first
        return self._exchange(lambda connection: connection.send_packed_command(packed), 1)[0]

    def sequence(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """The raw replies of these commands, sent in one write on one connection and read back
        in order. On a dropped connection all are sent again: only for commands safe to repeat.
        On a Cluster: on the primary that holds the first command's slot."""
        packed = b"".join(hiredis.pack_command(tuple(command)) for command in commands)
        if self.cluster:
            slot = self.client.determine_slot(*commands[0])
            return self.client.retry.call_with_retry(
                lambda: self._on_shard(slot, packed, len(commands)), lambda _error: self.client.nodes_manager.initialize()
            )
        return self._exchange(lambda connection: connection.send_packed_command((packed,)), len(commands))

    def reads(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """The raw replies of many read-only commands, sent in one write and read back in order
        (a pipeline without redis-py's per-command packing and parsing: `pbm list` reads 10,000
        rows so). On a dropped connection the whole batch is sent again, which only reads."""
        return self.sequence(commands) if commands else []

    def _exchange(self, send: Any, replies: int) -> list[Any]:
        """Send on a connection of our own, then read `replies` replies; an error reply is raised
        once every reply is read (the connection is left with nothing unread)."""
        idle = self._idle
        if idle.forks != _forks:
            idle = self._idle = _idle_of(self._pool)
        try:
            connection = idle.connections.pop()
        except IndexError:
            connection = self._pool.get_connection()

        def exchange() -> list[Any]:
            if not connection.is_connected:
                # Through connect(), as the pool's own checkout does: a Sentinel's connection asks
                # the Sentinels where the master is there. A send would connect to the address it
                # had, a master that a failover has since made a replica.
                connection.connect()
            send(connection)
            answers, failed = [], None
            for _ in range(replies):
                try:
                    answers.append(connection.read_response())
                except ResponseError as error:
                    failed = failed or error
                    answers.append(error)
            if failed is not None:
                raise failed
            return answers

        try:
            return connection.retry.call_with_retry(exchange, lambda _error: connection.disconnect())
        finally:
            idle.connections.append(connection)

    def _on_shard(self, slot: int, packed: bytes, replies: int) -> list[Any]:
        """On a Cluster: `packed` sent on a connection of the primary that holds `slot`, then
        `replies` replies read, as `_exchange` does. A MOVED answer to the first command (a
        failover, or the slot moved: it ran nothing) sends them all again where it points, and a
        dropped connection is raised for the caller to refresh the client's map of the slots and
        try again: both as RedisCluster itself does. An ASK (the slot being moved) is raised as it
        comes: pbm's scripts name keys a game may lack (its unverified mark), and the master taking
        the slot refuses such a command (TRYAGAIN) until the slot is all there."""
        client = self.client
        for _redirect in range(client.RedisClusterRequestTTL):
            pool = client.get_redis_connection(client.nodes_manager.get_node_from_slot(slot)).connection_pool
            connection = pool.get_connection()
            try:
                connection.send_packed_command((packed,))
                answers = []
                for _ in range(replies):
                    try:
                        answers.append(connection.read_response())
                    except ResponseError as error:
                        answers.append(error)
            except (redis.ConnectionError, redis.TimeoutError):
                connection.disconnect()
                raise
            finally:
                pool.release(connection)
            if isinstance(answers[0], MovedError):
                client.nodes_manager.move_slot(answers[0])
                continue
            failed = next((answer for answer in answers if isinstance(answer, ResponseError)), None)
            if failed is not None:
                raise failed
            return answers
        raise redis.exceptions.ClusterError(f"slot {slot} was redirected {client.RedisClusterRequestTTL} times: the cluster's slots keep moving")
