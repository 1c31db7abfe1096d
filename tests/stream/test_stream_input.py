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
    assert (await watcher.next())["type"] == "pong"
    await watcher.close()


@pytest.mark.parametrize("token", ["%00", "abc%00def", "%C3%A9", "x" * 100])
async def test_a_token_that_cannot_be_one_watches_as_anyone(table, token):
    watcher = Watcher(table.pk, token=token)
    snapshot = await watcher.connect()  # no query for it: an anonymous watcher, as with an unknown token
    assert snapshot["table"]["id"] == table.pk
    await watcher.close()


async def test_a_table_id_longer_than_a_bigint_is_no_route(db):
    watcher = Watcher(10**20)
    with pytest.raises(ValueError, match="No route found"):
        await watcher.comm.connect()
