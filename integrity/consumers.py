"""The supervisors' stream: `ws://HOST/ws/supervisors/` (authenticated as the table stream is, by
web/asgi.py's middleware: accounts/asgi_auth.py). Only a supervisor joins the `supervisors` group;
anyone else is closed with 4403 before joining. On connect: a snapshot of the open alerts; then
every event of integrity/events.py as sent (integrity/stream.py), no database work per event.

As the table stream's (tables/consumers.py), the socket lives as long as its credential: closed with
4401 at its token's expiry and when a close order names it (tables.stream.revokes, received through
the `revocations` group): a supervisor logged out, or whose password or role changed, hears nothing
more."""
from __future__ import annotations

import asyncio
import json
import time

from accounts.asgi_auth import still_valid
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.serializers.json import DjangoJSONEncoder

from studio import access
from studio.roles import SUPERVISOR, has_role
from tables.stream import REVOCATIONS, revokes

from .selectors import alerts
from .stream import SUPERVISORS

CLOSE_UNAUTHORIZED = 4401
CLOSE_FORBIDDEN = 4403


@database_sync_to_async
def _is_supervisor(user) -> bool:
    return bool(user) and has_role(user, SUPERVISOR)


@database_sync_to_async
def _open_alerts() -> list[dict]:
    return alerts(status="open")


class SupervisorStreamConsumer(AsyncWebsocketConsumer):
    joined = False
    closed = False  # closed by its credential's end: nothing more is sent
    credential = None  # accounts.asgi_auth.Credential
    expires = expiry = None  # the loop's time of the token's expiry, and the timer that closes the socket then

    async def connect(self):
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        self.started = time.monotonic()
        await self.accept()
        access.ws_connected(self.scope, self.user_id)
        if not await _is_supervisor(user):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.credential = self.scope.get("credential")
        left = self.credential.seconds_left() if self.credential is not None else None
        if left is not None:
            loop = asyncio.get_running_loop()
            self.expires = loop.time() + left
            self.expiry = loop.call_later(left, self._end)
        # join first: no alert falls between; then check the credential once more (a revocation
        # committed while the socket connected)
        await self.channel_layer.group_add(SUPERVISORS, self.channel_name)
        await self.channel_layer.group_add(REVOCATIONS, self.channel_name)
        self.joined = True
        if not await still_valid(self.scope):
            self._end()
            return
        snapshot = {"type": "snapshot", "alerts": await _open_alerts()}
        if not self.closed:
            await self.send(text_data=json.dumps(snapshot, cls=DjangoJSONEncoder, separators=(",", ":")))

    def _end(self) -> None:
        """Send nothing more, and close the socket with 4401."""
        if not self.closed:
            self.closed = True
            self.closing = asyncio.get_running_loop().create_task(self.close(code=CLOSE_UNAUTHORIZED))

    async def disconnect(self, code):
        if self.expiry is not None:
            self.expiry.cancel()
        if self.joined:
            self.joined = False
            await self.channel_layer.group_discard(SUPERVISORS, self.channel_name)
            await self.channel_layer.group_discard(REVOCATIONS, self.channel_name)
        access.ws_closed(self.scope, self.user_id, code, self.started)

    async def receive(self, text_data=None, bytes_data=None):
        try:
            content = json.loads(text_data or "{}")
        except (ValueError, RecursionError):
            return
        if isinstance(content, dict) and content.get("type") == "ping" and not self.closed:
            await self.send(text_data='{"type":"pong"}')

    async def stream_event(self, message):
        """A supervisors' event from integrity/stream.py, already encoded: sent as is, until the
        socket's token expires."""
        if self.expires is not None and asyncio.get_running_loop().time() >= self.expires:
            self._end()
        if not self.closed:
            await self.send(text_data=message["text"])

    async def stream_revoked(self, message):
        """A close order (tables.stream.revokes): the socket closes if it names its credential."""
        if revokes(message, user_id=self.user_id, credential=self.credential):
            self._end()
