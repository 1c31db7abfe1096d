"""The live stream of a table: `ws://HOST/ws/tables/{id}/` (protocol in docs/STREAM.md).

A watcher gets a snapshot on connect, then every event of the table in `seq` order and, when it
connected as a player (web/asgi.py authenticates the socket: accounts/asgi_auth.py), its own
personal messages. Consumers do no database work per event.

Fan-out: a server process has one `StreamHub` (per event loop). The hub holds the process's one
channel on the channel layer and subscribes it to each group a local watcher needs (`table.7`,
`user.3`): one Redis subscription per group and process, not one per watcher. For each message it
calls `deliver()` on every local member, which queues the texts due (in `seq` order), then writes
every member's queue from its own task (`write_queued`). The event arrives JSON-encoded once
(tables/stream.py) and is written to each socket as is. A socket that takes the text at once (the
usual case) costs no task switch; a send that would wait (a slow or dead watcher whose buffers are
full) is handed to that watcher's own task, its later texts queued behind it, so it never holds up
the others; a watcher too far behind is closed (it reconnects to a fresh snapshot).

A watcher connected as a player lives as long as its credential (accounts/asgi_auth.py): a timer
on the loop closes it with 4401 at its token's expiry (and no personal message is passed on after
that moment), and a close order for its credential (tables.stream.revokes: a revoked token, a
logged-out session, a changed password, role or deactivation), which the hub receives through the
`revocations` group, closes it with 4401 as soon as it arrives: nothing received after it is passed
on. No database read per event; one per connect, after the subscriptions, checks the credential
again (a revocation committed while the socket connected).
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque

from accounts.asgi_auth import still_valid
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.contrib.auth.models import AnonymousUser
from django.core.serializers.json import DjangoJSONEncoder

from studio import access, metrics

from .access import table_visible
from .snapshot import table_snapshot
from .stream import REVOCATIONS, REVOKED, parts, revokes, table_group, user_group

log = logging.getLogger(__name__)

GAP_WAIT = 0.3  # seconds an event may wait for a missing earlier one before it is sent anyway
SNAPSHOT_REUSE = 1.0  # seconds a process may hand the same snapshot to watchers joining (until an event)
MAX_BACKLOG = 500  # messages queued for a watcher that does not read, before it is closed
CLOSE_UNAUTHORIZED = 4401  # the socket's token expired or its credential was revoked
CLOSE_NO_TABLE = 4404
CLOSE_TOO_SLOW = 4408


class StreamHub:
    """The event loop's subscriptions to stream groups, fanned out to the loop's watchers."""

    _hubs: dict[asyncio.AbstractEventLoop, StreamHub] = {}

    @classmethod
    def current(cls) -> StreamHub:
        loop = asyncio.get_running_loop()
        if loop not in cls._hubs:
            cls._hubs[loop] = cls(loop)
        return cls._hubs[loop]

    def __init__(self, loop):
        self.loop, self.layer = loop, get_channel_layer()
        self.members: dict[str, set] = {}
        self.subscribing: dict[str, asyncio.Task] = {}
        self.channel: asyncio.Task | None = None
        self.reader: asyncio.Task | None = None
        self.last_seq: dict[str, int] = {}  # the newest table event this hub has passed on, by group
        self.snapshots: dict[str, tuple[float, dict]] = {}  # table group -> (read at, snapshot)
        self.reading: dict[str, asyncio.Task] = {}  # table group -> the snapshot read in flight

    async def snapshot(self, table_id: int) -> dict | None:
        """The snapshot for a watcher that has joined the table's group. Watchers joining together
        (a reconnect storm) share one database read, reused for a second at most and only while
        no later event has come: a watcher gets every event after it, having joined first."""
        group = table_group(table_id)
        read_at, snapshot = self.snapshots.get(group, (0.0, None))
        if snapshot is None or self.loop.time() - read_at > SNAPSHOT_REUSE or self.last_seq.get(group, 0) > snapshot["seq"]:
            if group not in self.reading:
                self.reading[group] = self.loop.create_task(self._read_snapshot(table_id, group))
            read_at, snapshot = await asyncio.shield(self.reading[group])
            if snapshot is not None and self.last_seq.get(group, 0) > snapshot["seq"]:
                return await _snapshot(table_id)  # an event came during the read: read again, alone
        rnd = snapshot and snapshot["round"]
        if rnd and rnd["status"] == "betting":  # the countdown went on since the read
            left = max(0, rnd["betting_left_ms"] - int((self.loop.time() - read_at) * 1000))
            snapshot = {**snapshot, "round": {**rnd, "betting_left_ms": left}}
        return snapshot

    async def _read_snapshot(self, table_id: int, group: str) -> tuple[float, dict | None]:
        read_at = self.loop.time()
        try:
            snapshot = await _snapshot(table_id)
        finally:
            del self.reading[group]
        if snapshot is not None and group in self.subscribing and self.last_seq.get(group, 0) <= snapshot["seq"]:
            self.snapshots[group] = (read_at, snapshot)
        return read_at, snapshot

    async def join(self, group: str, watcher) -> None:
        """Returns once this process receives the group's messages."""
        self.members.setdefault(group, set()).add(watcher)
        if group not in self.subscribing:
            self.subscribing[group] = self.loop.create_task(self._subscribe(group))
        await asyncio.shield(self.subscribing[group])

    async def _subscribe(self, group: str) -> None:
        try:
            if self.channel is None:
                self.channel = self.loop.create_task(self.layer.new_channel("stream-hub."))
            channel = await self.channel
            if self.reader is None:
                self.reader = self.loop.create_task(self._read(channel))
            await self.layer.group_add(group, channel)
        except (Exception, asyncio.CancelledError):  # failed or cancelled: the next joiner tries again
            self.subscribing.pop(group, None)
            if self.channel is not None and self.channel.done() and self.channel.exception():
                self.channel = None
            raise

    async def leave(self, group: str, watcher) -> None:
        members = self.members.get(group)
        if members is None or watcher not in members:
            return
        members.discard(watcher)
        task = self.subscribing.get(group)
        if members or task is None:
            return
        await asyncio.wait([task])
        if self.members.get(group) or self.subscribing.get(group) is not task:
            return  # someone joined meanwhile
        del self.members[group], self.subscribing[group]
        self.last_seq.pop(group, None)
        self.snapshots.pop(group, None)
        if not task.exception():
            await self.layer.group_discard(group, self.channel.result())
        if not self.members and self._hubs.get(self.loop) is self:  # nobody left: free the channel
            del self._hubs[self.loop]
            if self.reader is not None:
                self.reader.cancel()

    async def _read(self, channel: str) -> None:
        while True:
            try:
                message = await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer lost its server: watchers will see a gap and recover
                log.exception("stream hub: receive failed")
                await asyncio.sleep(1)
                continue
            if message.get("type") == REVOKED:  # a close order: to the user's local sockets
                for watcher in list(self.members.get(user_group(message["user"]), ())):
                    watcher.revoke(message)
                continue
            group, seq = message.get("group"), message.get("seq")
            if seq is not None and seq > self.last_seq.get(group, 0):
                self.last_seq[group] = seq
            members, events = list(self.members.get(group, ())), parts(message)
            for watcher in members:  # each watcher gets all the message's events before the next one
                try:
                    for event in events:
                        watcher.deliver(event)
                except Exception:
                    log.exception("stream delivery failed")
            await write_queued(members)


async def write_queued(watchers) -> None:
    """Write each watcher's queued texts, one watcher after the other, in the calling task. A send
    runs inside `asyncio.timeout(0)`, whose timer can only fire when the task waits: a send the
    socket takes at once completes untouched, and one that has to wait (uvicorn waits for a full
    transport to drain before it writes a frame) is cancelled there, its text still first in the
    watcher's queue, and the watcher's own task takes the queue over. One timer per call, not per
    watcher."""
    pending = iter(watchers)
    current = None
    while True:
        try:
            async with asyncio.timeout(0):
                for current in pending:
                    if current.writer is None:
                        await current.write_backlog()
            return
        except TimeoutError:
            current.hand_over()


@database_sync_to_async
def _visible(table_id: int, user) -> bool:
    return table_visible(table_id=table_id, user=user)


@database_sync_to_async
def _snapshot(table_id: int):
    return table_snapshot(table_id=table_id)


class TableStreamConsumer(AsyncWebsocketConsumer):
    """One watcher. It has no channel of its own on the layer (`channel_layer_alias = None`:
    `get_channel_layer` answers None for an alias that is not configured, and Channels then runs
    the consumer on its socket alone); the process's hub receives for it and calls `deliver`."""

    channel_layer_alias = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.hub, self.joined, self.closed, self.counted = None, [], False, False
        self.next_seq = None  # the snapshot's seq + 1, once the snapshot is sent
        self.early: list[dict] = []  # messages that came before the snapshot was sent
        self.held: dict[int, str] = {}  # events waiting for a missing earlier one
        self.gap_timer = None
        self.backlog: deque[str] = deque()  # texts not yet written to the socket
        self.writer: asyncio.Task | None = None  # the watcher's own task writing the backlog, while its socket is slow
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
        self.hub = StreamHub.current()
        try:
            await self._join(table_group(self.table_id))  # join first, then read the snapshot: no event falls between
            if self.user_id:
                await self._join(user_group(self.user_id))
                if self.credential is not None:
                    await self._join(REVOCATIONS)
                    if not await still_valid(self.scope):  # revoked before the subscription
                        self._end(CLOSE_UNAUTHORIZED)
                        return
            snapshot = await self.hub.snapshot(self.table_id)
        except (Exception, asyncio.CancelledError):  # failed, or the socket closed meanwhile
            await self._leave()
            raise
        if self.closed:
            return
        if snapshot is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        await self.send(text_data=json.dumps(snapshot, cls=DjangoJSONEncoder, separators=(",", ":")))
        self.next_seq = snapshot["seq"] + 1
        early, self.early = self.early, []
        for message in early:
            self.deliver(message)
        await write_queued([self])

    async def _join(self, group: str):
        self.joined.append(group)
        await self.hub.join(group, self)

    async def _leave(self):
        self.closed = True
        if self.counted:
            self.counted = False
            metrics.STREAM_CONNECTIONS.dec()
        if self.gap_timer is not None:
            self.gap_timer.cancel()
        if self.expiry is not None:
            self.expiry.cancel()
        if self.writer is not None:
            self.writer.cancel()
        joined, self.joined = self.joined, []
        for group in joined:
            await self.hub.leave(group, self)

    async def disconnect(self, code):
        self.close_code = code
        await self._leave()
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
            self._write('{"type":"pong","seq":' + seq + "}")
            await write_queued([self])

    # --- delivery: the hub calls deliver() for every message of a joined group ---

    def deliver(self, message: dict) -> None:
        if self.closed:
            return
        if self.next_seq is None:
            self.early.append(message)
            return
        seq = message.get("seq")
        if seq is None:  # a personal message: never after the token's expiry
            if self.expires is not None and self.hub.loop.time() >= self.expires:
                self._end(CLOSE_UNAUTHORIZED)
                return
            self._write(message["text"])
        elif seq == self.next_seq:
            self._write(message["text"])
            self.next_seq += 1
            while self.next_seq in self.held:
                self._write(self.held.pop(self.next_seq))
                self.next_seq += 1
            if not self.held and self.gap_timer is not None:
                self.gap_timer.cancel()
                self.gap_timer = None
        elif seq > self.next_seq:  # an earlier event is late (two processes published at once): wait
            self.held[seq] = message["text"]
            if self.gap_timer is None:
                self.gap_timer = self.hub.loop.call_later(GAP_WAIT, self._gap_timeout)
        # seq < next_seq: in the snapshot already, or a duplicate

    def _gap_timeout(self) -> None:
        """The missing event did not come: send what we have, in order (the client sees the gap)."""
        self.gap_timer = None
        for seq in sorted(self.held):
            self._write(self.held.pop(seq))
            self.next_seq = seq + 1
        self.hand_over()

    def _write(self, text: str) -> None:
        """Queue a text for the socket (written by `write_queued` or the watcher's own task, in
        order); after MAX_BACKLOG texts waiting the watcher is closed."""
        if self.closed:
            return
        if len(self.backlog) >= MAX_BACKLOG:
            self._too_slow()
            return
        self.backlog.append(text)

    async def write_backlog(self) -> None:
        """Write the queued texts in order, each taken off the queue once the socket has it."""
        try:
            while self.backlog and not self.closed:
                await self.send(text_data=self.backlog[0])
                self.backlog.popleft()
        except Exception:  # the client is gone; its disconnect is on the way
            self.closed = True

    def hand_over(self) -> None:
        """The socket does not take data now: the watcher's own task writes its queue, waiting as
        long as the socket needs, and ends when the queue is empty (write_queued skips the
        watcher meanwhile)."""
        if self.writer is None and self.backlog and not self.closed:
            self.writer = asyncio.get_running_loop().create_task(self._write_slowly())

    async def _write_slowly(self) -> None:
        try:
            await self.write_backlog()
        finally:
            self.writer = None

    def revoke(self, message: dict) -> None:
        """A close order (tables.stream.revokes) from the hub: closed at once if it names this socket."""
        if revokes(message, user_id=self.user_id, credential=self.credential):
            self._end(CLOSE_UNAUTHORIZED)

    def _too_slow(self) -> None:
        log.warning("closing a watcher of table %s: more than %s messages behind", self.table_id, MAX_BACKLOG)
        self._end(CLOSE_TOO_SLOW)

    def _end(self, code: int) -> None:
        """Pass nothing more on from now, and close the socket with `code`."""
        if self.closed:
            return
        self.closed = True
        self.backlog.clear()
        if self.writer is not None:
            self.writer.cancel()
        self.closing = asyncio.get_running_loop().create_task(self._close_quietly(code))

    async def _close_quietly(self, code: int) -> None:
        try:
            await self.close(code=code)
        except Exception:
            pass
