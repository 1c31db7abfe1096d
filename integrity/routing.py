from django.urls import path

from .consumers import SupervisorStreamConsumer

websocket_urlpatterns = [path("ws/supervisors/", SupervisorStreamConsumer.as_asgi())]
