"""The ASGI application: HTTP through Django's WSGI handler (studio/http.py), WebSockets (the live
stream) through Channels, authenticated by accounts/asgi_auth.py (API token or session cookie)."""
import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
django_wsgi_app = get_wsgi_application()  # sets Django up before the imports below

from accounts.asgi_auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from studio.http import WsgiHttp  # noqa: E402
from studio.logwriter import write_on_own_thread  # noqa: E402
from studio.origin import allowed_hosts_origin_validator  # noqa: E402
from integrity.routing import websocket_urlpatterns as supervisor_websockets  # noqa: E402
from tables.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter({
    "http": WsgiHttp(django_wsgi_app),
    "websocket": allowed_hosts_origin_validator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns + supervisor_websockets))),
})


def _freeze_startup_objects() -> None:
    """Import every view now (the URLconf loads lazily, on the first request), then move every
    object alive into the garbage collector's permanent generation: a full collection would
    otherwise walk all of Django, DRF and the studio's modules, tens of milliseconds during which
    the process answers nothing. What requests create is collected as usual."""
    get_resolver().url_patterns
    gc.collect()
    gc.freeze()


write_on_own_thread()  # the log's lines leave from a thread of their own, not from each request's
_freeze_startup_objects()
