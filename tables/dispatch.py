"""Layer messages to a stream consumer without Channels' per-message database hop.

Channels' `AsyncConsumer.dispatch` awaits `aclose_old_connections()` before every handler: a hop
to its one database thread and back, for every message of every watcher. The stream's handlers
touch no database, so `StreamDispatch` calls them straight away and leaves every other message
(connect, receive, disconnect) to Channels' own `dispatch`.

FIGURE
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
