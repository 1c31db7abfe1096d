"""Races on real parallel connections: the calls released at the same moment by a barrier, each in
its own thread with its own database connection (closed when it is done)."""
import threading

from django.db import connections


def at_once(*calls, timeout: float = 120) -> list:
    """Run the calls at once; for each, what it returned or the exception it raised, in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    done = [False] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=30)
            results[i] = call()
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            results[i] = exc
        finally:
            done[i] = True
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert all(done), "a racer hung"
    return results
