"""What a watcher sends is never a server error: a message nested too deeply for the JSON decoder
is ignored like any malformed one, and the watcher's stream goes on."""
import pytest

from .conftest import Watcher

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_message_nested_too_deeply_is_ignored_and_the_stream_goes_on(table):
    watcher = Watcher(table.pk)
    await watcher.connect()
    await watcher.comm.send_to(text_data="[" * 100_000 + "]" * 100_000)
    await watcher.comm.send_to(text_data="not json")
    await watcher.comm.send_to(text_data='{"type": "ping"}')
    assert await watcher.next() == {"type": "pong"}
    await watcher.close()
