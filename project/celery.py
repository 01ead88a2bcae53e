import os
from typing import Any

from celery import Celery, bootsteps
from celery.signals import worker_process_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

app = Celery("redline")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class SweepOnConnect(bootsteps.StartStopStep):
    """Started with the worker's consumer, and again each time it reconnects to the broker."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, parent: Any) -> None:
        from validation.tasks import sweep_when_a_worker_connects

        sweep_when_a_worker_connects()


app.steps["consumer"].add(SweepOnConnect)


@worker_process_shutdown.connect
def _drop_metrics_of_exited_process(pid: int | None = None, **kwargs: Any) -> None:
    # Multiprocess Prometheus metrics: a pool child that exits leaves its files behind.
    from validation.metrics import mark_process_dead

    mark_process_dead(pid or os.getpid())
