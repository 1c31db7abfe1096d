"""A watcher that stops reading never holds up the others. Its socket is simulated as a real server's
is when the peer does not read: the ASGI send waits (uvicorn waits for the transport to drain)."""
import asyncio
import contextvars
import logging

import pytest

from tables import consumers

from .conftest import Watcher, WebsocketCommunicator, in_thread, play_round

pytestmark = pytest.mark.django_db(transaction=True)

ROUND = ["round.opened", "betting.closed", "card.dealt", "card.dealt", "card.dealt", "round.finished", "round.settled"]


class BlockableCommunicator(WebsocketCommunicator):
    """A communicator whose ASGI `send` waits while `readable` is clear (a full socket)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.readable = asyncio.Event()
        self.readable.set()

    async def _send(self, message):
        await self.readable.wait()
        await self.output_queue.put(message)

    @property
    def future(self):
        if self._future is None:
            app = self.application(self.scope, self.input_queue.get, self._send)
            self._future = contextvars.Context().run(asyncio.create_task, app)
        return self._future


class SlowWatcher(Watcher):
    def __init__(self, table_id):
        super().__init__(table_id)
        self.comm = BlockableCommunicator(self.comm.application, self.comm.scope["path"], headers=self.comm.scope["headers"])


async def _watchers(table_id, n):
    slow, others = SlowWatcher(table_id), [Watcher(table_id) for _ in range(n)]
    for w in [slow, *others]:
        await w.connect()
    slow.comm.readable.clear()  # it stops reading
    return slow, others


async def test_a_watcher_that_stops_reading_does_not_hold_up_the_others_and_catches_up_later(dealer_api, table):
    slow, others = await _watchers(table.pk, 2)
    try:
        await in_thread(play_round)(dealer_api, table.pk)
        for w in others:
            assert [m["type"] for m in await w.until("round.settled", timeout=3)] == ROUND
        assert await slow.nothing(0.2)
        slow.comm.readable.set()  # it reads again: everything, in order
        caught_up = await slow.until("round.settled", timeout=3)
    finally:
        for w in [slow, *others]:
            await w.close()
    assert [m["type"] for m in caught_up] == ROUND
    assert [m["seq"] for m in caught_up] == list(range(1, 8))


async def test_a_watcher_whose_socket_takes_nothing_for_too_long_is_closed_and_costs_nothing_more(dealer_api, table, settings,
                                                                                                caplog):
    settings.STREAM_SEND_TIMEOUT = 0.2
    slow, others = await _watchers(table.pk, 1)
    try:
        with caplog.at_level(logging.WARNING, logger="tables.consumers"):
            await in_thread(play_round)(dealer_api, table.pk)
            assert [m["type"] for m in await others[0].until("round.settled", timeout=3)] == ROUND
            async with asyncio.timeout(10):  # its send gives up, SEND_TIMEOUT after it began
                while "closing a watcher" not in caplog.text:
                    await asyncio.sleep(0.01)
        slow.comm.readable.set()
        closing = await slow.comm.receive_output(3)
        assert await slow.nothing(0.2)
    finally:
        for w in [slow, *others]:
            await w.close()
    assert closing == {"type": "websocket.close", "code": consumers.CLOSE_TOO_SLOW}
