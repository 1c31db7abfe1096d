"""The stream's messages to the watchers of this process: one reader per process for every group,
and writes that cost no task switch.

Channels gives each watcher's consumer its own channel, queue and task: an event of a table with
1,000 watchers wakes 1,000 tasks, each taking the message off its queue and through the consumer's
dispatch before it writes to its socket. Here the process's event loop has one `Fanout`: one
channel of its own on the channel layer (`new_channel`, `group_add`, `group_discard`, `receive`:
the layer's public calls), in every group a local watcher needs (its table's, its user's, and
`revocations` for a player's), and one task that receives from it and hands each message to every
local member of its group (`watcher.stream_message(message)`, a plain call; a close order to the
members of its user's group, `watcher.revoke(message)`). A watcher's messages of every kind thus
come off one channel in the order Redis delivered them: a player's `bet.placed` before the
`betting.closed` published after it, a close order before the personal messages published after it.

A watcher's texts go to its socket through its `Writer`, whose write starts as an eager task
(`asyncio.eager_task_factory`, Python 3.12): it runs at once and is done there when the socket takes
the frame (the server's send returns without waiting), with no task scheduled and no turn of the
loop. A write that has to wait (a watcher that does not read, its buffers full) goes on as a task of
its own, the watcher's later texts queue behind it in order, and nobody else waits for it. Nothing
depends on when the server's send yields but the cost: a send that always waited would make a task
per write, as Channels does.

Why (scripts/load_stream.py, two web processes, three rounds, alternated with a consumer per
watcher in one sitting on a 2-core Intel Xeon VM, docs/STREAM.md "Figures"): at 1,000 watchers the
card p99 was 48.7 and 51.2 ms against 103.6 and 97.3 ms (the bare websockets floor's: 32-38 ms),
at 5,000 180.8 and 216.3 ms against 560.3 ms (floor: 144-151 ms); the two web processes spent
2.4 + 1.4 s of CPU against 5.3 + 4.4 s at 1,000, and 7.3-7.4 + 6.3 s against 30.5 + 29.5 s at 5,000.
tests/stream/test_fanout.py tests it directly.

The lobby's stream (tables/lobby_consumer.py) is Channels' consumer as it is.
"""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Protocol

from channels.layers import get_channel_layer

from .stream import REVOKED, user_group

log = logging.getLogger(__name__)

MAX_BACKLOG = 500  # texts queued for a watcher that does not read, before it is given up


class Member(Protocol):
    def stream_message(self, message: dict) -> None: ...

    def revoke(self, message: dict) -> None: ...


class Fanout:
    """The stream groups of one event loop's watchers (the module's docstring)."""

    _by_loop: dict[asyncio.AbstractEventLoop, Fanout] = {}

    @classmethod
    def current(cls) -> Fanout:
        loop = asyncio.get_running_loop()
        if loop not in cls._by_loop:
            cls._by_loop[loop] = cls(loop)
        return cls._by_loop[loop]

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop, self.layer = loop, get_channel_layer()
        self.members: dict[str, set[Member]] = {}
        self.adding: dict[str, asyncio.Task] = {}  # group -> its group_add, done once subscribed
        self.channel: asyncio.Task | None = None  # the process's channel's name, once made
        self.reader: asyncio.Task | None = None

    async def join(self, group: str, member: Member) -> None:
        """Returns once this process receives the group's messages; `member` is handed each of them."""
        self.members.setdefault(group, set()).add(member)
        if group not in self.adding:
            self.adding[group] = self.loop.create_task(self._add(group))
        await asyncio.shield(self.adding[group])

    async def _add(self, group: str) -> None:
        try:
            if self.channel is None:
                self.channel = self.loop.create_task(self.layer.new_channel("stream-fanout."))
            channel = await self.channel
            if self.reader is None:
                self.reader = self.loop.create_task(self._read(channel))
            await self.layer.group_add(group, channel)
        except (Exception, asyncio.CancelledError):  # the next joiner tries again
            self.adding.pop(group, None)
            if self.channel is not None and self.channel.done() and self.channel.exception():
                self.channel = None
            raise

    async def leave(self, group: str, member: Member) -> None:
        members = self.members.get(group)
        if members is None or member not in members:
            return
        members.discard(member)
        task = self.adding.get(group)
        if members or task is None:
            return
        await asyncio.wait([task])
        if self.members.get(group) or self.adding.get(group) is not task:
            return  # someone joined meanwhile
        del self.members[group], self.adding[group]
        if not task.exception():
            await self.layer.group_discard(group, self.channel.result())
        if not self.members and self._by_loop.get(self.loop) is self:  # nobody left: free the channel
            del self._by_loop[self.loop]
            if self.reader is not None:
                self.reader.cancel()

    async def _read(self, channel: str) -> None:
        while True:
            try:
                message = await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer lost its server: watchers see the gap in `seq` and recover
                log.exception("stream fan-out: receive failed")
                await asyncio.sleep(1)
                continue
            revoked = message.get("type") == REVOKED  # to the sockets of the user it names
            group = user_group(message["user"]) if revoked else message.get("group")
            for member in list(self.members.get(group, ())):
                try:
                    if revoked:
                        member.revoke(message)
                    else:
                        member.stream_message(message)
                except Exception:
                    log.exception("stream fan-out: delivery failed")


class Writer:
    """One socket's texts, written in order (the module's docstring). `send(text)` is the socket's
    send; `too_slow()` is called, once, for a watcher given up: MAX_BACKLOG texts waiting, or one
    send waiting `timeout` seconds (a timer armed only while a send waits)."""

    def __init__(self, send: Callable[[str], Awaitable[None]], too_slow: Callable[[], None], timeout: float):
        self.send, self.too_slow, self.timeout = send, too_slow, timeout
        self.backlog: deque[str] = deque()
        self.task: asyncio.Task | None = None  # the write that waits, while one does
        self.sent, self.failed, self.timer = 0, False, None

    def write(self, text: str) -> None:
        if self.failed:
            return
        if len(self.backlog) >= MAX_BACKLOG:
            self._give_up()
            return
        self.backlog.append(text)
        if self.task is None:
            loop = asyncio.get_running_loop()
            task = asyncio.eager_task_factory(loop, self._drain())
            if not task.done():  # the socket's buffers are full: the task waits, and is watched
                self.task = task
                self.timer = loop.call_later(self.timeout, self._check, self.sent)

    async def _drain(self) -> None:
        try:
            while self.backlog and not self.failed:
                await self.send(self.backlog[0])
                self.backlog.popleft()
                self.sent += 1
        except Exception:  # the client is gone; its disconnect is on the way
            self.failed = True
        finally:
            self.task = None
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

    def _check(self, sent: int) -> None:
        """The timer of a waiting write: given up if no text went out since it was armed."""
        self.timer = None
        if self.task is None:
            return
        if self.sent == sent:
            self._give_up()
        else:
            self.timer = asyncio.get_running_loop().call_later(self.timeout, self._check, self.sent)

    def _give_up(self) -> None:
        self.close()
        self.too_slow()

    def close(self) -> None:
        """Write nothing more."""
        self.failed = True
        self.backlog.clear()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.task is not None:
            self.task.cancel()
