"""Bulkheads: a slow neighbour holds up only the requests that need it.

A web process answers HTTP with a fixed number of request threads (HTTP_THREADS, studio/http.py),
and a seamless bet holds its thread while the operator's wallet answers. Without a bound, one
operator answering slowly would hold every thread of the process and every other request (a read
of another table, an internal player's bet) would queue behind it. So a call to an operator's
wallet from a request takes a place in that operator's share first: at most SEAMLESS_SHARE threads
of the process wait on one operator at once, and at most SEAMLESS_SHARE_ALL on all operators
together. A call beyond either is refused at once with 503 `operator_busy` and Retry-After, before
anything is asked of the operator or written (`OperatorBusy`), and counted in
`studio_operator_busy_total{operator}`; it never waits for a place. The remaining threads are
everyone else's.

A share counts the threads of this process (each web process has its own): a count under a lock,
its limit read from the settings when a place is taken.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from django.conf import settings

from . import metrics
from .errors import OperatorBusy

_lock = threading.Lock()
_in_use: dict[object, int] = {}  # operator id (and ALL) -> places taken in this process
ALL = "all operators"


def in_use(operator_id) -> int:
    """Places taken now in this process by the operator's calls (ALL: by every operator's)."""
    with _lock:
        return _in_use.get(operator_id, 0)


@contextmanager
def operator_share(*, operator_id: int, operator_code: str) -> Iterator[None]:
    """Hold a place in the operator's share (and in all operators' share) while the block calls its
    wallet; refuse at once with OperatorBusy when either is full."""
    with _lock:
        mine, everyone = _in_use.get(operator_id, 0), _in_use.get(ALL, 0)
        full = mine >= settings.SEAMLESS_SHARE or everyone >= settings.SEAMLESS_SHARE_ALL
        if not full:
            _in_use[operator_id], _in_use[ALL] = mine + 1, everyone + 1
    if full:
        metrics.OPERATOR_BUSY.labels(operator=operator_code).inc()
        raise OperatorBusy(f"The operator {operator_code}'s wallet is answering slowly and has as many bets waiting as it may "
                           "have at once. Try again in a moment.")
    try:
        yield
    finally:
        with _lock:
            _in_use[operator_id] -= 1
            _in_use[ALL] -= 1
