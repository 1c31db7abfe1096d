"""Who a WebSocket client is: ASGI middleware that sets scope["user"] by the rules HTTP uses.

- An API token, as `?token=KEY` (browsers cannot set headers on a WebSocket) or as the
  `Authorization: Token KEY` header: the token's user by `accounts.tokens.token_user`, the one
  rule for expiry, revocation and inactive users. A token that is not valid watches anonymously.
- Else the session cookie of a logged-in page: Django's session and auth, through Channels' `get_user`.
- Else, or for a token that is not valid, an anonymous user.

The user is resolved once, at connect. Channels' AuthMiddlewareStack does the cookie part too, but
its session middleware wraps `send` to save a modified session with an HTTP response, and so
inspects every message sent to a watcher; a stream never changes its session, so `send` is
passed on untouched here.
"""
from __future__ import annotations

from importlib import import_module
from urllib.parse import parse_qs

from channels.auth import get_user
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from .tokens import token_user

MAX_TOKEN = 64


def token_from_scope(scope) -> str | None:
    """The token the client presented, or None; "" for something that cannot be a token."""
    key = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
    if key is None:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, rest = value.decode("latin-1").partition(" ")
                if scheme.lower() == "token":
                    key = rest.strip()
                break
    if key is None:
        return None
    return key if key.isascii() and key.isalnum() and len(key) <= MAX_TOKEN else ""


@database_sync_to_async
def _token_user(key: str):
    return token_user(key) or AnonymousUser()


async def scope_user(scope):
    key = token_from_scope(scope)
    if key is not None:
        return await _token_user(key) if key else AnonymousUser()  # not a token: no query for it
    session_key = scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME)
    if not session_key:
        return AnonymousUser()
    scope["session"] = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return await get_user(scope)


class UserMiddleware:
    """scope["user"] by the rules above (needs scope["cookies"]: use `AuthMiddlewareStack`)."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        scope = dict(scope)
        scope["user"] = await scope_user(scope)
        return await self.inner(scope, receive, send)


def AuthMiddlewareStack(inner):
    return CookieMiddleware(UserMiddleware(inner))
