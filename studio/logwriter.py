"""The server's log lines are written by a thread of their own (the standard library's QueueHandler
and QueueListener), not by the request threads.

Every request writes an access line (studio.access). Written in the request's thread, each line
takes the handler's lock and makes a write to stdout while holding it, and with a server's request
threads all logging at once they queue on that lock, each wait a switch of threads and of the GIL:
under the bets benchmark's load that cost about a fifth of a bet's server CPU (docs/PERFORMANCE.md).
Handed over instead, a line costs its thread a put on a lock-free queue; the listener writes the
lines in order with the handlers, filters and formats of settings.LOGGING, and at exit it writes
what is left before the process ends.

Only the server's processes (web/asgi.py) do this: a process that forks after setting it up (a
Celery worker's pool) would lose its lines with the listener's thread, which a fork does not copy.
"""
from __future__ import annotations

import atexit
import logging
import logging.handlers
import queue

from django.conf import settings


def write_on_own_thread() -> logging.handlers.QueueListener | None:
    """Move the root logger's handlers of settings.LOGGING behind a queue and start their writer
    (another's handler, a test runner's, stays where it is); None if already done."""
    root = logging.getLogger()
    if any(isinstance(handler, logging.handlers.QueueHandler) for handler in root.handlers):
        return None
    handlers = [handler for handler in root.handlers if handler.name in settings.LOGGING["handlers"]]
    records: queue.SimpleQueue = queue.SimpleQueue()
    listener = logging.handlers.QueueListener(records, *handlers, respect_handler_level=True)
    for handler in handlers:
        root.removeHandler(handler)
    root.addHandler(logging.handlers.QueueHandler(records))
    listener.start()
    atexit.register(listener.stop)  # the lines still queued are written before the process ends
    return listener
