"""The web process's event loop, for sync code in its request threads to run a coroutine on.

asgiref's `async_to_sync`, called in a request thread of a2wsgi's pool (which is no thread of
`sync_to_async`), starts an event loop in a new thread for each call, and the channel layer opens
a Redis connection on it: every broadcast of a request paid for both. `run` hands the coroutine to
the server's own loop instead (`asyncio.run_coroutine_threadsafe`, where the layer keeps its
connection) and waits for its result, a bounded time. The loop is the one `studio.http.WsgiHttp`
runs on, taken there with `asyncio.get_running_loop()`; anywhere else (a Celery task, a command,
a thread of the loop itself) `run` answers None and the caller uses `async_to_sync`.

Why (scripts/bench_bets_http.py --requests 2000 --max-seconds 10 --paced-seconds 5, two web
processes, alternated runs in one sitting on a 2-core AMD EPYC VM shared with other work, load
average 6-15, two runs of each): with `async_to_sync` in the request thread a bet (its
`bet.placed`) cost 7.33 and 7.67 ms of server CPU and the closed loop made 167 and 185 bets/s; on
the server's loop, 3.72 and 3.82 ms, 265 and 279 bets/s.
Card POSTs (scripts/bench_cards.py --cards 300, four alternated runs) answered in 12.1-17.5 ms at
the median with `async_to_sync`, 10.6-14.0 ms on the server's loop.
tests/ops/test_server_loop.py tests it directly.
"""
from __future__ import annotations

import asyncio

_loop: asyncio.AbstractEventLoop | None = None


def capture() -> None:
    """Called on the server's loop (WsgiHttp, for each request): remember it."""
    global _loop
    _loop = asyncio.get_running_loop()


def usable() -> bool:
    """Whether this thread may wait for the server's loop: the loop runs, and this thread runs no
    loop of its own (the loop's thread must never wait for itself)."""
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False


def run(coroutine_function, *args, timeout: float):
    """Run coroutine_function(*args) on the server's loop and return its result (TimeoutError past
    `timeout` seconds). Call it only where `usable()`."""
    return asyncio.run_coroutine_threadsafe(coroutine_function(*args), _loop).result(timeout)
