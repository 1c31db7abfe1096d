"""The WebSocket checks Origin when a client sends one (browsers always do) and accepts a client
that sends none (a native app, an operator's server): against the real server, with the
`websockets` library, which sends no Origin unless told to."""
import asyncio
import json

import pytest
import websockets
from accounts.tokens import token_issue

from web.asgi import application
from tests.servers import studio_server

from .conftest import TIMEOUT, WebsocketCommunicator

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("origin, accepted", [(None, True), ("http://testserver", True), ("http://evil.example", False),
                                              ("null", False)])
async def test_the_asgi_app_checks_an_origin_only_when_there_is_one(table, origin, accepted):
    headers = [(b"host", b"testserver")] + ([(b"origin", origin.encode())] if origin else [])
    comm = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    try:
        assert connected is accepted
        if accepted:
            assert json.loads(await comm.receive_from(timeout=TIMEOUT))["type"] == "snapshot"
    finally:
        await comm.disconnect()


def test_no_origin_with_a_token_connects_and_a_foreign_origin_is_refused(table, alice, tmp_path):
    key = token_issue(user=alice).key
    with studio_server(log_dir=tmp_path, name="origin") as url:
        ws_url = url.replace("http://", "ws://") + f"/ws/tables/{table.pk}/?token={key}"

        async def connect(**kwargs):
            async with websockets.connect(ws_url, open_timeout=10, **kwargs) as socket:
                return json.loads(await asyncio.wait_for(socket.recv(), 10))

        assert asyncio.run(connect())["type"] == "snapshot"  # no Origin header at all
        assert asyncio.run(connect(origin=url))["type"] == "snapshot"  # the studio's own pages
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            asyncio.run(connect(origin="http://evil.example"))
        assert refused.value.response.status_code == 403
