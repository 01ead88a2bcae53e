"""gunicorn settings: `gunicorn -c python:project.gunicorn_conf project.wsgi`.

With PROMETHEUS_MULTIPROC_DIR set, every worker writes its metrics to files there; the
directory is emptied when gunicorn starts and an exited worker's live gauges are dropped.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

bind = os.environ.get("REDLINE_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("REDLINE_WEB_WORKERS", "2"))
threads = int(os.environ.get("REDLINE_WEB_THREADS", "4"))
accesslog = None


def on_starting(server: Any) -> None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
        Path(directory).mkdir(parents=True, exist_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    from validation.metrics import mark_process_dead

    mark_process_dead(worker.pid)
