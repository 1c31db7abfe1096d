"""Who a WebSocket client is: ASGI middleware that sets scope["user"] by the rules HTTP uses, and
scope["credential"]: what it signed in with.

- An API token, as `?token=KEY` (browsers cannot set headers on a WebSocket) or as the
  `Authorization: Token KEY` header: the token's user by `accounts.tokens.token_valid`, the one
  rule for expiry, revocation and inactive users. A token that is not valid watches anonymously.
- Else the session cookie of a logged-in page: Django's session and auth, through Channels' `get_user`.
- Else, or for a token that is not valid, an anonymous user (scope["credential"] None).

The user is resolved once, at connect. The socket lives as long as its credential: a consumer
closes it at the token's expiry (`Credential.expires_at`) and when a close order names it
(tables.stream.revokes: the token revoked, the session logged out, or any change to the user's
password, roles, permissions or flags). A revocation that commits between this read and the
consumer's subscription to the close orders is caught by `still_valid`, read once after it.

Channels' AuthMiddlewareStack does the cookie part too, but its session middleware wraps `send`
to save a modified session with an HTTP response, and so inspects every message sent to a watcher;
a stream never changes its session, so `send` is passed on untouched here.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from importlib import import_module
from urllib.parse import parse_qs

from channels.auth import get_user
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from .tokens import credential_digest, token_valid

MAX_TOKEN = 64


@dataclass(frozen=True)
class Credential:
    """What an authenticated socket signed in with: `digest`, its key's (accounts.tokens.credential_digest,
    as close orders name it); `session`: a session cookie, else a token; `expires_at`: the token's expiry."""
    digest: str
    session: bool
    expires_at: datetime | None

    def seconds_left(self) -> float | None:
        """Seconds until the token expires (0 once it has); None for a session."""
        return None if self.expires_at is None else max(0.0, (self.expires_at - timezone.now()).total_seconds())


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


_token_valid = database_sync_to_async(token_valid)


async def authenticate(scope) -> tuple:
    """(the user, their Credential) by the rules above; (AnonymousUser, None) for anyone else."""
    key = token_from_scope(scope)
    if key is not None:
        found = await _token_valid(key) if key else None  # not a token: no query for it
        if found is None:
            return AnonymousUser(), None
        user, token = found
        return user, Credential(digest=credential_digest(key), session=False, expires_at=token.expires_at)
    session_key = scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME)
    if not session_key:
        return AnonymousUser(), None
    scope["session"] = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = await get_user(scope)
    if not user.is_authenticated:
        return user, None
    return user, Credential(digest=credential_digest(session_key), session=True, expires_at=None)


async def still_valid(scope) -> bool:
    """Whether the socket's credential still signs in its user (read again: once per socket)."""
    user = scope.get("user")
    if scope.get("credential") is None or user is None:
        return False
    again, _ = await authenticate(dict(scope))
    return again.is_authenticated and again.pk == user.pk


class UserMiddleware:
    """scope["user"] and scope["credential"] by the rules above (needs scope["cookies"]: use `AuthMiddlewareStack`)."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        scope = dict(scope)
        scope["user"], scope["credential"] = await authenticate(scope)
        return await self.inner(scope, receive, send)


def AuthMiddlewareStack(inner):
    return CookieMiddleware(UserMiddleware(inner))
