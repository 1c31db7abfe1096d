"""Races on real parallel connections: the calls released at the same moment by a barrier, each in
its own thread with its own database connection (closed when it is done).

Those connections come from this process's pool (DB_POOL_SIZE at most, each wait for one bounded by
DB_POOL_TIMEOUT), which the racers share with the test's own thread and with the threads of an
in-process server (pytest-django's `live_server`) serving racing HTTP clients. A race that asked
for more connections than the pool lends would test the pool's wait, and fail whenever the wait is
shorter than the race. So before a race the test's thread gives its connection back to the pool,
the race is checked to fit what the pool lends (`pool_room`), and the pool opens the racers'
connections (`make_room`): it opens one at a time, and racers that each waited for it to grow
would wait for all the connections opened before theirs."""
import threading

from django.db import DEFAULT_DB_ALIAS, connections

WARM_TIMEOUT = 30  # seconds for the pool to open a connection before a race (the race's waits are DB_POOL_TIMEOUT)


def pool_room() -> int | None:
    """How many connections this process's pool can lend at once now: its size less those in use,
    once the calling thread has given its own back (unless it is inside a transaction, which keeps
    it). None without a pool (DB_POOL_SIZE=0: every thread opens a connection of its own)."""
    connection = connections[DEFAULT_DB_ALIAS]
    pool = connection.pool
    if pool is None:
        return None
    if not connection.in_atomic_block:
        connection.close()  # back to the pool
    stats = pool.get_stats()
    return pool.max_size - (stats["pool_size"] - stats["pool_available"])


def make_room(racers: int) -> None:
    """Before `racers` connections are taken from the pool at once (by racing threads, or by the
    in-process server's threads serving racing clients): check that the pool lends that many
    (pool_room), and have it open them now, one after the other, idle in the pool for the race."""
    room = pool_room()
    if room is None:
        return
    pool = connections[DEFAULT_DB_ALIAS].pool
    assert racers <= room, f"{racers} racers, but the pool lends {room} connections (DB_POOL_SIZE {pool.max_size})"
    pool.open()
    opened = [pool.getconn(timeout=WARM_TIMEOUT) for _ in range(racers)]
    for conn in opened:
        pool.putconn(conn)


def at_once(*calls, timeout: float = 120) -> list:
    """Run the calls at once; for each, what it returned or the exception it raised, in order. Each
    call takes one connection of the pool: in its own thread, or in the in-process server's thread
    that serves it (make_room)."""
    make_room(len(calls))
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
