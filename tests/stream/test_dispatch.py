"""tables.dispatch: the stream's layer messages reach their handler without Channels' database hop
(`aclose_old_connections`, which waits for Channels' one database thread); every other message
still goes through Channels' own dispatch."""
import asyncio
import json
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from tables.stream import encode, table_group

from .conftest import Watcher

pytestmark = pytest.mark.django_db(transaction=True)


async def test_an_event_reaches_the_socket_while_the_database_thread_is_busy_and_a_ping_waits_for_it(table):
    watcher = Watcher(table.pk)
    snapshot = await watcher.connect()
    started, release = threading.Event(), threading.Event()

    def hold():
        started.set()
        release.wait(30)

    busy = asyncio.ensure_future(sync_to_async(hold, thread_sensitive=True)())  # Channels' database thread
    try:
        assert await asyncio.to_thread(started.wait, 10)
        seq = snapshot["seq"] + 1
        text = encode({"type": "card.dealt", "seq": seq, "table": table.pk, "round": 1, "at": "", "position": 1})
        group = table_group(table.pk)
        await get_channel_layer().group_send(group, {"type": "stream.event", "group": group, "seq": seq, "text": text})
        event = await watcher.next(5)  # no hop to the busy thread
        await watcher.comm.send_to(text_data=json.dumps({"type": "ping"}))  # Channels' dispatch: it waits for the thread
        assert await watcher.nothing(0.3), "the ping was answered while the database thread was busy"
    finally:
        release.set()
        await busy
    try:
        pong = await watcher.next(5)
    finally:
        await watcher.close()
    assert (event["type"], event["seq"], pong) == ("card.dealt", seq, {"type": "pong", "seq": seq})
