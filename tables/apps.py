import os

from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Embedded mode (`make run` without REDIS_URL): the virtual dealer must run inside the server
        # process, where the in-memory stream lives. scripts/serve.py sets this for that process only.
        if os.environ.get("VIRTUAL_DEALER_THREAD") == "1":
            from . import virtual

            virtual.start_thread()
