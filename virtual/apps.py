from django.apps import AppConfig


class VirtualConfig(AppConfig):
    name = "virtual"
