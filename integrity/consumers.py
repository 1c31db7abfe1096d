"""The supervisors' stream: `ws://HOST/ws/supervisors/` (authenticated as the table stream is, by
web/asgi.py's middleware: accounts/asgi_auth.py). Only a supervisor joins the `supervisors` group;
anyone else is closed with 4403 before joining. On connect: a snapshot of the open alerts; then
every event of integrity/events.py as sent (integrity/stream.py), no database work per event."""
from __future__ import annotations

import json
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.serializers.json import DjangoJSONEncoder

from studio import access
from studio.roles import SUPERVISOR, has_role

from .selectors import alerts
from .stream import SUPERVISORS

CLOSE_FORBIDDEN = 4403


@database_sync_to_async
def _is_supervisor(user) -> bool:
    return bool(user) and has_role(user, SUPERVISOR)


@database_sync_to_async
def _open_alerts() -> list[dict]:
    return alerts(status="open")


class SupervisorStreamConsumer(AsyncWebsocketConsumer):
    joined = False

    async def connect(self):
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        self.started = time.monotonic()
        await self.accept()
        access.ws_connected(self.scope, self.user_id)
        if not await _is_supervisor(user):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.channel_layer.group_add(SUPERVISORS, self.channel_name)  # join first: no alert falls between
        self.joined = True
        snapshot = {"type": "snapshot", "alerts": await _open_alerts()}
        await self.send(text_data=json.dumps(snapshot, cls=DjangoJSONEncoder, separators=(",", ":")))

    async def disconnect(self, code):
        if self.joined:
            self.joined = False
            await self.channel_layer.group_discard(SUPERVISORS, self.channel_name)
        access.ws_closed(self.scope, self.user_id, code, self.started)

    async def receive(self, text_data=None, bytes_data=None):
        try:
            content = json.loads(text_data or "{}")
        except (ValueError, RecursionError):
            return
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send(text_data='{"type":"pong"}')

    async def stream_event(self, message):
        """A supervisors' event from integrity/stream.py, already encoded: sent as is."""
        await self.send(text_data=message["text"])
