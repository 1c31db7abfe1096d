"""The live stream of a table: `ws://HOST/ws/tables/{id}/` (protocol in docs/STREAM.md).

A watcher gets a snapshot on connect, then every event of the table in `seq` order and, when it
connected as a player (web/asgi.py authenticates the socket: accounts/asgi_auth.py), its own
personal messages. Consumers do no database work per event.

Every message of the stream reaches a watcher through the process's one reader
(tables/fanout.py, with the figure that justifies it): the process's channel joins the table's
group (`table.7`) and, for a player, the user's group (`user.3`) and `revocations`, and hands each
message to every local member (`stream_message`, or `revoke` for a close order), in the order Redis
delivered them. An event arrives JSON-encoded once and is sent to the socket as is. The consumer is
Channels' own for its socket (`connect`, `receive`, `disconnect`).

Order: the watcher joins its groups before it reads the snapshot and keeps what arrives meanwhile,
so it drops the events already in the snapshot and sends the rest in `seq` order; an event that
overtook an earlier one (two processes published at once) waits for it GAP_WAIT at most. Every
text goes to the socket through the watcher's `Writer` (tables/fanout.py), in the order written.

A watcher that does not read: its writes wait on their own (the server's send waits while the
socket's buffers are full) and hold up no other watcher; past STREAM_SEND_TIMEOUT without a text
taken, or MAX_BACKLOG texts waiting, it is closed with 4408 and sends nothing more.

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
from .fanout import MAX_BACKLOG, Fanout, Writer
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


class TableStreamConsumer(AsyncWebsocketConsumer):
    """One watcher (the module's docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fanout, self.groups_joined = None, []  # the process's reader (tables/fanout.py), and the groups joined there
        self.closed, self.counted = False, False
        self.next_seq = None  # the snapshot's seq + 1, once the snapshot is sent
        self.early: list[dict] = []  # the messages that came before the snapshot was sent
        self.held: dict[int, str] = {}  # events waiting for a missing earlier one
        self.gap_timer = None
        self.writer = Writer(self.send, self._too_slow, settings.STREAM_SEND_TIMEOUT)  # send(text): Channels' send(text_data)
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
        self.fanout = Fanout.current()
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
        self.writer.write(json.dumps(snapshot, cls=DjangoJSONEncoder, separators=(",", ":")))
        self.next_seq = snapshot["seq"] + 1
        early, self.early = self.early, []
        for message in early:
            self.stream_message(message)

    async def _join(self, group: str):
        self.groups_joined.append(group)
        await self.fanout.join(group, self)

    async def disconnect(self, code):
        self.close_code, self.closed = code, True
        self.writer.close()
        if self.counted:
            self.counted = False
            metrics.STREAM_CONNECTIONS.dec()
        for timer in (self.gap_timer, self.expiry):
            if timer is not None:
                timer.cancel()
        groups, self.groups_joined = self.groups_joined, []
        for group in groups:
            await self.fanout.leave(group, self)
        access.ws_closed(self.scope, self.user_id, code, self.started)

    async def receive(self, text_data=None, bytes_data=None):
        try:
            content = json.loads(text_data or "{}")
        except (ValueError, RecursionError):  # malformed or nested too deeply: ignored
            return
        if isinstance(content, dict) and content.get("type") == "ping":
            # behind whatever is queued for this watcher; `seq`: the last table event it was sent
            # (null before the snapshot), so a client can tell it missed one without a database read
            seq = "null" if self.next_seq is None else str(self.next_seq - 1)
            self.writer.write('{"type":"pong","seq":' + seq + "}")

    # --- from the process's reader (tables/fanout.py) ---

    def stream_message(self, message: dict) -> None:
        """A message of one of the watcher's groups (tables/stream.py): its events, in order."""
        if self.closed:
            return
        if self.next_seq is None:  # the snapshot is on its way: kept until it is sent
            self.early.append(message)
            return
        for part in parts(message):
            self._pass_on(part)

    def revoke(self, message: dict) -> None:
        """A close order (tables.stream.revokes): closed at once if it names this socket."""
        if revokes(message, user_id=self.user_id, credential=self.credential):
            self._end(CLOSE_UNAUTHORIZED)

    def _pass_on(self, message: dict) -> None:
        if self.closed:
            return
        seq = message.get("seq")
        if seq is None:  # a personal message, or a table's live figures: never after the token's expiry
            if self.expires is not None and asyncio.get_running_loop().time() >= self.expires:
                self._end(CLOSE_UNAUTHORIZED)
                return
            self.writer.write(message["text"])
        elif seq == self.next_seq:
            self.next_seq += 1
            self.writer.write(message["text"])
            while self.next_seq in self.held:
                self.writer.write(self.held.pop(self.next_seq))
                self.next_seq += 1
            if not self.held and self.gap_timer is not None:
                self.gap_timer.cancel()
                self.gap_timer = None
        elif seq > self.next_seq:  # an earlier event is late (two processes published at once): wait
            self.held[seq] = message["text"]
            if self.gap_timer is None:
                self.gap_timer = asyncio.get_running_loop().call_later(GAP_WAIT, self._gap_timeout)
        # seq < next_seq: in the snapshot already, or a duplicate

    def _gap_timeout(self) -> None:
        """The missing event did not come: send what is held, in order (the client sees the gap)."""
        self.gap_timer = None
        for seq in sorted(self.held):
            self.writer.write(self.held.pop(seq))
            self.next_seq = seq + 1

    def _too_slow(self) -> None:
        log.warning("closing a watcher of table %s: its socket took nothing for %s s, or %s texts wait",
                    self.table_id, settings.STREAM_SEND_TIMEOUT, MAX_BACKLOG)
        self._end(CLOSE_TOO_SLOW)

    def _end(self, code: int) -> None:
        """Pass nothing more on from now, and close the socket with `code`."""
        if self.closed:
            return
        self.closed = True
        self.held.clear()
        self.writer.close()
        self.closing = asyncio.get_running_loop().create_task(self._close_quietly(code))

    async def _close_quietly(self, code: int) -> None:
        try:
            await self.close(code=code)
        except Exception:
            pass
