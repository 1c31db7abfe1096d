"""Layer messages to a stream consumer without Channels' per-message database hop.

Channels' `AsyncConsumer.dispatch` awaits `aclose_old_connections()` before every handler: a hop
to its one database thread and back, for every message of every watcher. The stream's handlers
touch no database, so `StreamDispatch` calls them straight away and leaves every other message
(connect, receive, disconnect) to Channels' own `dispatch`. The messages that take this path go
to every watcher's consumer: the lobby's changes to each lobby page, and at a settlement a
personal message to each player watching (a table's events reach its watchers through
tables/fanout.py instead).

Why (scripts/load_stream.py, a table's events sent to 1,000 watchers' consumers over two web
processes, three rounds, a 2-core AMD EPYC VM shared with other work, load average 3-10): with
Channels' dispatch for every message the two web processes spent 11.7 + 10.4 s of CPU and the card
p99 was 442 ms (the bare websockets floor's: 171 ms); without the hop, 6.3 + 5.1 s and 206 ms
(floor: 49 ms).
tests/stream/test_dispatch.py checks both halves: a personal message reaches the socket while
Channels' database thread is busy, and a ping waits for it.
"""
from __future__ import annotations


class StreamDispatch:
    """A mixin before `AsyncWebsocketConsumer`: the message types in `without_database` go straight
    to their handler (the name Channels gives it: the type with `.` as `_`)."""

    without_database: frozenset[str] = frozenset()

    async def dispatch(self, message):
        kind = message.get("type")
        if kind in self.without_database:
            await getattr(self, kind.replace(".", "_"))(message)
        else:
            await super().dispatch(message)
