import os

from django.apps import AppConfig


class VirtualConfig(AppConfig):
    name = "virtual"

    def ready(self):
        # Embedded mode (`make run` without REDIS_URL): the virtual dealer must run inside the server
        # process, where the in-memory stream lives. scripts/serve.py sets this for that process only.
        if os.environ.get("VIRTUAL_DEALER_THREAD") == "1":
            from . import dealer  # models are importable only once the apps are ready (Django's documented place)

            dealer.start_thread()
