"""How timed and heavy work leaves a transaction.

With REDIS_URL set (TASK_RUNNER="celery") a task goes to the Celery broker after the transaction
commits. Without it (TASK_RUNNER="inprocess", the embedded mode of `make run`) the very same task
function runs in this process after commit: now, or at its eta on a timer thread.
"""
from __future__ import annotations

import logging
import threading
from datetime import datetime

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

from . import metrics

log = logging.getLogger(__name__)


def _run_local(task, args):
    try:
        task(*args)
    except Exception:  # a task failure must not break the request that triggered it
        metrics.TASKS.labels(task=task.name, outcome="failure").inc()
        log.exception("in-process task %s%r failed", task.name, args)
    else:
        metrics.TASKS.labels(task=task.name, outcome="success").inc()
    finally:
        if threading.current_thread() is not threading.main_thread():
            connections.close_all()  # a timer thread's connection must not outlive it


def _dispatch(task, args, eta: datetime | None):
    if settings.TASK_RUNNER == "celery":
        try:
            task.apply_async(args=args, eta=eta)
        except Exception:  # the broker is away (bounded by REDIS_TIMEOUT): the change is committed, beat's sweeps catch it
            log.exception("could not send task %s%r to the broker", task.name, args)
        return
    delay = (eta - timezone.now()).total_seconds() if eta else 0
    if delay <= 0 and not settings.INPROCESS_ASYNC:
        _run_local(task, args)
        return
    if delay > 0 and not settings.INPROCESS_TIMERS:
        return  # the sweep, the first card or the test itself closes betting
    timer = threading.Timer(max(delay, 0), _run_local, args=(task, args))
    timer.daemon = True
    timer.start()


def enqueue_on_commit(task, *args, eta: datetime | None = None) -> None:
    """Send `task(*args)` once the current transaction commits (never if it rolls back)."""
    transaction.on_commit(lambda: _dispatch(task, args, eta))
