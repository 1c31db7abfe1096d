"""The ASGI application: HTTP through Django's WSGI handler on a fixed pool of threads (studio/http.py),
WebSockets (the live stream) through Channels."""
import gc
import os
from importlib import import_module

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
django_wsgi_app = get_wsgi_application()  # sets Django up before the imports below

from studio.http import WsgiHttp  # noqa: E402
from studio.origin import allowed_hosts_origin_validator  # noqa: E402

from channels.auth import get_user  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import CookieMiddleware  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth.models import AnonymousUser  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from tables.routing import websocket_urlpatterns  # noqa: E402


class SessionUserMiddleware:
    """scope["session"] and scope["user"] from the session cookie, resolved once at connect: what
    Channels' AuthMiddlewareStack does, except that `send` is passed on untouched. Its session
    wrapper inspects every message sent (to save a modified session on an HTTP response), which
    doubled the cost of delivering a stream event to a watcher; a watcher never changes its session."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        key = scope["cookies"].get(settings.SESSION_COOKIE_NAME)
        scope = dict(scope, session=import_module(settings.SESSION_ENGINE).SessionStore(key))
        scope["user"] = await get_user(scope) if key else AnonymousUser()
        return await self.inner(scope, receive, send)


application = ProtocolTypeRouter({
    "http": WsgiHttp(django_wsgi_app),
    "websocket": allowed_hosts_origin_validator(CookieMiddleware(SessionUserMiddleware(URLRouter(websocket_urlpatterns)))),
})


def _freeze_startup_objects() -> None:
    """Import every view now (the URLconf loads lazily, on the first request), then move every
    object alive into the garbage collector's permanent generation. Each full collection used to
    walk all of Django, DRF and the studio's modules: 56-117 ms during which the worker answered
    nothing, 3-5 times in a 30-second benchmark, and that was the p99 of bets at 500/s. Frozen,
    they are never walked again; what requests create is collected as before."""
    get_resolver().url_patterns
    gc.collect()
    gc.freeze()


_freeze_startup_objects()
