from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from .consumers import TableStreamConsumer

websocket_urlpatterns = [path("ws/tables/<id:table_id>/", TableStreamConsumer.as_asgi())]
