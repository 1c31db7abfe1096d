"""The live stream of a table. Consumers do no database work per event: they join the table's
group (and the watcher's own), send a snapshot on connect, then forward what `tables.stream` sends."""
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.contrib.auth.models import AnonymousUser

from .stream import table_group, user_group


@database_sync_to_async
def _user_from_token(key: str):
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    return token.user if token and token.user.is_active else AnonymousUser()


@database_sync_to_async
def _snapshot(table_id: int):
    from .snapshot import table_snapshot

    return table_snapshot(table_id=table_id)


class TableStreamConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.groups_joined = []
        token = parse_qs(self.scope.get("query_string", b"").decode()).get("token", [""])[0]
        user = await _user_from_token(token) if token else self.scope.get("user") or AnonymousUser()
        self.user_id = user.pk if user.is_authenticated else None
        snapshot = None
        await self.accept()
        await self._join(table_group(self.table_id))
        if self.user_id:
            await self._join(user_group(self.user_id))
        snapshot = await _snapshot(self.table_id)
        if snapshot is None:
            await self.close(code=4404)
            return
        self.seq_floor = snapshot["seq"]
        await self.send_json(snapshot)

    async def _join(self, group: str):
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        if content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def stream_event(self, message):
        event = message["event"]
        seq = event.get("seq")
        if seq is not None:
            if seq <= getattr(self, "seq_floor", 0):
                return  # already in the snapshot
        await self.send_json(event)
