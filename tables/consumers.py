"""The live stream of a table: `ws://HOST/ws/tables/{id}/` (protocol in docs/STREAM.md).

A watcher gets a snapshot on connect, then every event of the table in `seq` order and, when it
connected as a player (web/asgi.py authenticates the socket: accounts/asgi_auth.py), its own
personal messages. Consumers do no database work per event.

Each watcher is a Channels consumer with its own channel on the layer, added to the table's group
(`table.7`) and, for a player, to its user's group (`user.3`) and to `revocations`; the layer's
messages (tables/stream.py) reach it through the handlers `stream_event`, `stream_events` and
`stream_revoked`, which touch no database and so skip Channels' per-message database hop
(tables/dispatch.py). An event arrives JSON-encoded once and is sent to the socket as is.

Order: the consumer joins its groups before it reads the snapshot, and Channels hands it no layer
message while `connect` runs, so it drops the events already in the snapshot and sends the rest in
`seq` order; an event that overtook an earlier one (two processes published at once) waits for it
GAP_WAIT at most.

A watcher that does not read: each send to its socket is given STREAM_SEND_TIMEOUT seconds (the server's
send waits while the socket's buffers are full); past that it is closed with 4408 and sends nothing
more. Meanwhile it holds up no other watcher: each consumer has its own task.

A watcher connected as a player lives as long as its credential (accounts/asgi_auth.py): a timer
on the loop closes it with 4401 at its token's expiry (and no personal message is passed on after
that moment), and a close order for its credential (tables.stream.revokes: a revoked token, a
logged-out session, a changed password, role or deactivation) closes it with 4401 as soon as it
arrives: nothing received after it is passed on. One database read per connect, after joining the
groups, checks the credential again (a revocation committed while the socket connected).
"""
from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time

from accounts.asgi_auth import still_valid
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.serializers.json import DjangoJSONEncoder

from studio import access, metrics

from .access import table_visible
from .dispatch import StreamDispatch
from .snapshot import table_snapshot
from .stream import REVOCATIONS, parts, revokes, table_group, user_group

log = logging.getLogger(__name__)

GAP_WAIT = 0.3  # seconds an event may wait for a missing earlier one before it is sent anyway
CLOSE_UNAUTHORIZED = 4401  # the socket's token expired or its credential was revoked
CLOSE_NO_TABLE = 4404
CLOSE_TOO_SLOW = 4408


@database_sync_to_async
def _visible(table_id: int, user) -> bool:
    return table_visible(table_id=table_id, user=user)


@database_sync_to_async
def _snapshot(table_id: int):
    return table_snapshot(table_id=table_id)


_ticks = itertools.count()
_reads: dict[tuple, tuple[int, asyncio.Task]] = {}  # (loop, table) -> (its tick, the snapshot read under way)


def joined() -> int:
    """A tick taken once a watcher has joined its table's group."""
    return next(_ticks)


async def snapshot_since(table_id: int, tick: int) -> dict | None:
    """The table's snapshot, read after `tick`. Watchers joining together (a reconnect storm) share
    a read, but only one that began after they joined: none misses an event published between."""
    loop = asyncio.get_running_loop()
    key = (loop, table_id)
    while True:
        if key not in _reads:
            task = loop.create_task(_snapshot(table_id))
            _reads[key] = (next(_ticks), task)
            task.add_done_callback(lambda done: _reads.pop(key) if _reads.get(key, (0, None))[1] is done else None)
        began, task = _reads[key]
        if began > tick:
            return await asyncio.shield(task)
        await asyncio.wait([task])  # a read that began before this watcher joined: share the next one


class TableStreamConsumer(StreamDispatch, AsyncWebsocketConsumer):
    """One watcher (the module's docstring)."""

    without_database = frozenset({"stream.event", "stream.events", "stream.revoked"})

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.groups_joined: list[str] = []
        self.closed, self.counted = False, False
        self.next_seq = None  # the snapshot's seq + 1, once the snapshot is sent
        self.held: dict[int, str] = {}  # events waiting for a missing earlier one
        self.gap_timer = None
        self.writing = asyncio.Lock()  # the gap timer's sends and the handlers', one at a time, in order
        self.user_id, self.close_code, self.started = None, None, time.monotonic()
        self.credential = None  # what the player signed in with (accounts.asgi_auth.Credential)
        self.expires: float | None = None  # the loop's time at which its token expires
        self.expiry = None  # the timer that closes the socket then

    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        user = self.scope.get("user") or AnonymousUser()
        self.user_id = user.pk if user.is_authenticated else None
        self.credential = self.scope.get("credential") if self.user_id else None
        await self.accept()
        access.ws_connected(self.scope, self.user_id)
        left = self.credential.seconds_left() if self.credential is not None else None
        if left is not None:
            loop = asyncio.get_running_loop()
            self.expires = loop.time() + left
            self.expiry = loop.call_later(left, self._end, CLOSE_UNAUTHORIZED)
        if not await _visible(self.table_id, user):  # a private table of others: as if there were none
            await self.close(code=CLOSE_NO_TABLE)
            return
        self.counted = True
        metrics.STREAM_CONNECTIONS.inc()
        await self._join(table_group(self.table_id))  # join first, then read the snapshot: no event falls between
        tick = joined()
        if self.user_id:
            await self._join(user_group(self.user_id))
            if self.credential is not None:
                await self._join(REVOCATIONS)
                if not await still_valid(self.scope):  # revoked before joining
                    self._end(CLOSE_UNAUTHORIZED)
                    return
        snapshot = await snapshot_since(self.table_id, tick)
        if self.closed:
            return
        if snapshot is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        await self._send(json.dumps(snapshot, cls=DjangoJSONEncoder, separators=(",", ":")))
        self.next_seq = snapshot["seq"] + 1

    async def _join(self, group: str):
        self.groups_joined.append(group)
        await self.channel_layer.group_add(group, self.channel_name)

    async def disconnect(self, code):
        self.close_code, self.closed = code, True
        if self.counted:
            self.counted = False
            metrics.STREAM_CONNECTIONS.dec()
        for timer in (self.gap_timer, self.expiry):
            if timer is not None:
                timer.cancel()
        groups, self.groups_joined = self.groups_joined, []
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        access.ws_closed(self.scope, self.user_id, code, self.started)

    async def receive(self, text_data=None, bytes_data=None):
        try:
            content = json.loads(text_data or "{}")
        except (ValueError, RecursionError):  # malformed or nested too deeply: ignored
            return
        if isinstance(content, dict) and content.get("type") == "ping":
            # `seq`: the last table event sent to this watcher (null before the snapshot), so a
            # client can tell it missed one without a database read
            seq = "null" if self.next_seq is None else str(self.next_seq - 1)
            async with self.writing:
                await self._send('{"type":"pong","seq":' + seq + "}")

    # --- the layer's messages (tables/stream.py) ---

    async def stream_event(self, message):
        async with self.writing:
            await self._pass_on(message)

    async def stream_events(self, message):
        """A transaction's events of one group, in order."""
        async with self.writing:
            for part in parts(message):
                await self._pass_on(part)

    async def stream_revoked(self, message):
        """A close order (tables.stream.revokes): closed at once if it names this socket."""
        if revokes(message, user_id=self.user_id, credential=self.credential):
            self._end(CLOSE_UNAUTHORIZED)

    async def _pass_on(self, message: dict) -> None:
        if self.closed or self.next_seq is None:  # closed, or still connecting (no handler runs then)
            return
        seq = message.get("seq")
        if seq is None:  # a personal message: never after the token's expiry
            if self.expires is not None and asyncio.get_running_loop().time() >= self.expires:
                self._end(CLOSE_UNAUTHORIZED)
                return
            await self._send(message["text"])
        elif seq == self.next_seq:
            self.next_seq += 1
            await self._send(message["text"])
            while self.next_seq in self.held:
                text = self.held.pop(self.next_seq)
                self.next_seq += 1
                await self._send(text)
            if not self.held and self.gap_timer is not None:
                self.gap_timer.cancel()
                self.gap_timer = None
        elif seq > self.next_seq:  # an earlier event is late (two processes published at once): wait
            self.held[seq] = message["text"]
            if self.gap_timer is None:
                self.gap_timer = asyncio.get_running_loop().call_later(GAP_WAIT, self._gap_timeout)
        # seq < next_seq: in the snapshot already, or a duplicate

    def _gap_timeout(self) -> None:
        self.gap_timer = None
        self.gap_task = asyncio.get_running_loop().create_task(self._send_held())

    async def _send_held(self) -> None:
        """The missing event did not come: send what is held, in order (the client sees the gap)."""
        async with self.writing:
            for seq in sorted(self.held):
                text = self.held.pop(seq)
                self.next_seq = seq + 1
                await self._send(text)

    async def _send(self, text: str) -> None:
        """A text to the socket, given STREAM_SEND_TIMEOUT; a watcher that takes longer is closed as too slow."""
        if self.closed:
            return
        try:
            async with asyncio.timeout(settings.STREAM_SEND_TIMEOUT):
                await self.send(text_data=text)
        except TimeoutError:
            log.warning("closing a watcher of table %s: a send waited %s s", self.table_id, settings.STREAM_SEND_TIMEOUT)
            self._end(CLOSE_TOO_SLOW)
        except Exception:  # the client is gone; its disconnect is on the way
            self.closed = True

    def _end(self, code: int) -> None:
        """Pass nothing more on from now, and close the socket with `code`."""
        if self.closed:
            return
        self.closed = True
        self.held.clear()
        self.closing = asyncio.get_running_loop().create_task(self._close_quietly(code))

    async def _close_quietly(self, code: int) -> None:
        try:
            await self.close(code=code)
        except Exception:
            pass
