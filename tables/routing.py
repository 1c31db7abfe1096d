from django.urls import path

from .consumers import TableStreamConsumer

websocket_urlpatterns = [path("ws/tables/<int:table_id>/", TableStreamConsumer.as_asgi())]
