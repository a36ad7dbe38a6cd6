"""The pbm worker: rq's SimpleWorker plus pbm's recovery at start and with rq's maintenance. It
runs jobs; it writes nothing itself except rq's own bookkeeping and the recovery lock.

SimpleWorker runs each job inside the worker process, with no fork per job: a bot turn is a few
milliseconds of work, a fork per job (rq's default Worker) costs more than that (rq's own
benchmark notes put SimpleWorker about 6x faster on short jobs), and it would throw away the
tables the worker keeps folded between turns. The price: a job that crashes the interpreter takes
the worker down with it; recovery then queues that job again.
"""

from __future__ import annotations

from rq import Queue, SimpleWorker

from events import keys
from workers.dispatch import QUEUES
from workers.recovery import recover

RECOVERY_INTERVAL_S = 120  # how often one of the running workers looks for lost work


class PbmWorker(SimpleWorker):
    recovering = True

    def recover_now(self) -> list[str]:
        """At start: always (a worker that replaces a killed one must find its orphan at once)."""
        self.connection.set(keys.RECOVERY_LOCK, self.name, ex=RECOVERY_INTERVAL_S - 1)
        return recover(self.connection)

    def run_maintenance_tasks(self) -> None:
        super().run_maintenance_tasks()
        # Periodically: one worker per interval, whoever takes the lock.
        if self.recovering and self.connection.set(keys.RECOVERY_LOCK, self.name, nx=True, ex=RECOVERY_INTERVAL_S - 1):
            recover(self.connection)


def make_worker(connection, queues: tuple[str, ...] = QUEUES, recovering: bool = True) -> PbmWorker:
    worker = PbmWorker(
        [Queue(name, connection=connection) for name in queues],
        connection=connection,
        maintenance_interval=RECOVERY_INTERVAL_S,
    )
    worker.recovering = recovering
    return worker
