import logging
import os
from typing import Any

from celery import Celery, bootsteps
from celery.signals import worker_process_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

logger = logging.getLogger(__name__)

app = Celery("redline")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# How long the mark of one broker run is kept (a Redis that stays up longer is marked again
# by the next worker that connects: one more harmless re-send).
_BROKER_RUN_MARK_SECONDS = 7 * 24 * 3600


class SweepOnConnect(bootsteps.StartStopStep):
    """Started with the worker's consumer, and again each time it reconnects to the broker."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, parent: Any) -> None:
        from validation.tasks import resend_queued_attempts, sweep_when_a_worker_connects

        sweep_when_a_worker_connects()
        if first_worker_of_this_broker_run():
            # A Redis that restarted without persistence lost every wake-up it held.
            resend_queued_attempts.delay()


def first_worker_of_this_broker_run() -> bool:
    """Whether this is the first worker to connect to the broker since the broker started.

    Redis gives each start of its server a new ``run_id``; the first worker to see one marks
    it in Redis (SET NX), so one re-send follows each broker start, however many workers
    reconnect. Always False for other brokers (the filesystem broker keeps its messages)."""
    try:
        with app.connection_for_write() as connection:
            if connection.transport.driver_type != "redis":
                return False
            client: Any = connection.default_channel.client  # type: ignore[attr-defined]
            run_id = str(client.info("server")["run_id"])
            marked = client.set(
                f"redline:broker-run:{run_id}", "1", nx=True, ex=_BROKER_RUN_MARK_SECONDS
            )
    except Exception:  # the broker went away again: the next connect asks again
        logger.warning("Could not read the broker's run id.", exc_info=True)
        return False
    return bool(marked)


app.steps["consumer"].add(SweepOnConnect)


@worker_process_shutdown.connect
def _drop_metrics_of_exited_process(pid: int | None = None, **kwargs: Any) -> None:
    # Multiprocess Prometheus metrics: a pool child that exits leaves its files behind.
    from validation.metrics import mark_process_dead

    mark_process_dead(pid or os.getpid())
