"""Bulkheads: a slow neighbour holds up only the requests that need it.

A web process answers HTTP with a fixed number of request threads (HTTP_THREADS, studio/http.py).
A request that waits (on an operator's wallet, on a row lock) holds its thread meanwhile, and
without a bound the requests waiting on one slow thing would hold every thread of the process:
every other request (a read of another table, a bet at another table) would queue behind them. So
a request that may wait on one thing takes a place in that thing's `Share` first: at most `each`
threads of the process hold places of one key at once, and at most `every` hold places of all its
keys together. The remaining threads are everyone else's. A share counts the threads of this
process (each web process has its own): a count under a lock, its limits read from the settings
when a place is taken.

Two shares:

- **An operator's wallet** (`operator_share`): a seamless bet's call to its operator's wallet, at
  most SEAMLESS_SHARE threads per operator and SEAMLESS_SHARE_ALL for all operators. A call beyond
  either is refused at once with 503 `operator_busy` and Retry-After, before anything is asked of
  the operator or written (`OperatorBusy`), counted in `studio_operator_busy_total{operator}`.
- **A round's locks** (`round_share`, around every request that writes to a round or a table: a
  bet, a card, a transition; declared on its route, studio.routes.api_route): at most ROUND_SHARE
  threads per round (or table) may wait for its row locks, ROUND_SHARE_ALL for all rounds. A
  request with a place waits for a lock as long as the connection's lock_timeout
  (DB_LOCK_TIMEOUT_MS); one beyond the share still runs, for a writer that finds its rows free has
  no wait to bound (fifty clients betting at one round keep every thread busy and wait on nothing),
  but with a lock_timeout of ROUND_SHARE_OVER_WAIT_MS: the moment it would wait for a lock that
  others already wait for, it is refused with 503 `busy` and Retry-After, its transaction rolled
  back whole (studio.errors), counted in `studio_round_busy_total{kind}`. So a row held for long
  (a stuck transaction, a psql session) holds at most a round's share of the threads, for at most
  the lock's timeout, and the other requests of the process keep the rest.
"""
from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Iterator

from django.conf import settings
from django.db import connection, transaction

from . import metrics
from .errors import OperatorBusy

ALL = "all"  # the key of a share's places of every key together
SAFE = ("GET", "HEAD", "OPTIONS")


class Share:
    """Places in the process's request threads, per key and for all keys together: at most the
    setting `each` of one key at once, at most the setting `every` of all keys."""

    def __init__(self, each: str, every: str):
        self.each, self.every = each, every
        self._lock = threading.Lock()
        self._in_use: dict[object, int] = {}

    def in_use(self, key) -> int:
        """Places of `key` taken now in this process (ALL: of every key)."""
        with self._lock:
            return self._in_use.get(key, 0)

    @contextmanager
    def place(self, key) -> Iterator[bool]:
        """A place of `key` for the block if one is free: True, and it is given back however the
        block ends; else False, at once, and no place is taken."""
        with self._lock:
            mine, everyone = self._in_use.get(key, 0), self._in_use.get(ALL, 0)
            got = mine < getattr(settings, self.each) and everyone < getattr(settings, self.every)
            if got:
                self._in_use[key], self._in_use[ALL] = mine + 1, everyone + 1
        try:
            yield got
        finally:
            if got:
                with self._lock:
                    self._in_use[key] -= 1
                    self._in_use[ALL] -= 1


OPERATORS = Share("SEAMLESS_SHARE", "SEAMLESS_SHARE_ALL")
ROUNDS = Share("ROUND_SHARE", "ROUND_SHARE_ALL")


def in_use(operator_id) -> int:
    """Places taken now in this process by the operator's calls (ALL: by every operator's)."""
    return OPERATORS.in_use(operator_id)


@contextmanager
def operator_share(*, operator_id: int, operator_code: str) -> Iterator[None]:
    """Hold a place in the operator's share (and in all operators' share) while the block calls its
    wallet; refuse at once with OperatorBusy when either is full."""
    with OPERATORS.place(operator_id) as got:
        if not got:
            metrics.OPERATOR_BUSY.labels(operator=operator_code).inc()
            raise OperatorBusy(f"The operator {operator_code}'s wallet is answering slowly and has as many bets waiting as it may "
                               "have at once. Try again in a moment.")
        yield


def _lock_timeout(ms: int | None) -> None:
    """This session's lock_timeout: `ms`, or (None) the connection's own (DB_LOCK_TIMEOUT_MS)."""
    with connection.cursor() as cur:
        if ms is None:
            cur.execute("RESET lock_timeout")
        else:
            cur.execute("SELECT set_config('lock_timeout', %s, false)", [f"{int(ms)}ms"])


def _busy(response) -> bool:
    return response.status_code == 503 and (getattr(response, "data", None) or {}).get("code") == "busy"


def round_share(view, key):
    """`view` (a view function) in a round's share: `key(request, **kwargs)` names the round or
    table it writes to, e.g. ("round", 7), or None (a write to nothing shared). Safe methods (GET,
    HEAD, OPTIONS) read without row locks and take no place."""

    @functools.wraps(view)
    def shared(request, *args, **kwargs):
        name = None if request.method in SAFE else key(request, **kwargs)
        if name is None:
            return view(request, *args, **kwargs)
        with ROUNDS.place(name) as got:
            if got:
                return view(request, *args, **kwargs)
            _lock_timeout(settings.ROUND_SHARE_OVER_WAIT_MS)
            try:
                response = view(request, *args, **kwargs)
            finally:
                if not (connection.in_atomic_block and transaction.get_rollback()):  # else the rollback undoes it
                    _lock_timeout(None)
            if _busy(response):
                metrics.ROUND_BUSY.labels(kind=str(name[0])).inc()
            return response

    return shared
