from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from .consumers import TableStreamConsumer
from .lobby_consumer import LobbyConsumer

websocket_urlpatterns = [
    path("ws/tables/<id:table_id>/", TableStreamConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
