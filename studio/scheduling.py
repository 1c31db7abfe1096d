"""How timed and heavy work leaves a transaction: a Celery task, sent to the broker once the
transaction commits (never if it rolls back), to run now or at its eta.

A broker that does not answer within REDIS_TIMEOUT is logged and the change stays committed: the
deadline or the pending work is in the database, and beat's sweeps (studio.celery) send what a lost
task missed: expired betting, finished rounds, the seamless wallet's due transactions. Every task
is idempotent, so a task sent twice (by its sender and by a sweep) does its work once.
"""
from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction

log = logging.getLogger(__name__)


def _send(task, args, eta: datetime | None) -> None:
    try:
        task.apply_async(args=args, eta=eta)
    except Exception:  # the broker is away (bounded by REDIS_TIMEOUT): the change is committed, beat's sweeps catch it
        log.exception("could not send task %s%r to the broker", task.name, args)


def enqueue_on_commit(task, *args, eta: datetime | None = None) -> None:
    """Send `task(*args)` once the current transaction commits (never if it rolls back)."""
    transaction.on_commit(lambda: _send(task, args, eta))
