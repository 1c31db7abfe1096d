"""Issuing, finding and revoking tokens. A token lives TOKEN_TTL seconds from its issue; each login
(POST /api/auth/token/) gets its own, and each browser session one page token, revoked at logout."""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from .auth import token_read
from .models import Token

PAGE_TOKEN_SESSION_KEY = "accounts.page_token"
KEEP_EXPIRED = timedelta(days=7)  # an expired token answers `token_expired` this long, then it is deleted


def ttl() -> timedelta:
    return timedelta(seconds=settings.TOKEN_TTL)


def token_issue(*, user, kind: str = Token.Kind.API) -> Token:
    """A new token for `user`; the user's tokens expired for long are deleted on the way."""
    now = timezone.now()
    Token.objects.filter(user=user, expires_at__lt=now - KEEP_EXPIRED).delete()
    return Token.objects.create(user=user, kind=kind, created=now, expires_at=now + ttl())


def token_revoke(*, key: str) -> bool:
    return Token.objects.filter(key=key).delete()[0] > 0


def tokens_revoke_all(*, user) -> int:
    """Every token of `user` (after a password change: a stolen token dies with the old password)."""
    return Token.objects.filter(user=user).delete()[0]


def token_user(key: str):
    """The active user of a valid (known, unexpired) token, with its roles, else None: the same read as
    the API's authentication (accounts.auth)."""
    found = token_read(key) if key and "\x00" not in key else None  # PostgreSQL text holds no NUL
    if found is None:
        return None
    user, token = found
    return user if token.expires_at > timezone.now() and user.is_active else None


def page_token(request) -> str:
    """The token the pages of this browser session use: its own, kept in the session, renewed once
    half its life is gone (an open page keeps the one it has until it expires)."""
    key = request.session.get(PAGE_TOKEN_SESSION_KEY)
    now = timezone.now()
    if key:
        token = Token.objects.filter(key=key, user=request.user, kind=Token.Kind.PAGE).first()
        if token is not None and token.expires_at - now > ttl() / 2:
            return token.key
    token = token_issue(user=request.user, kind=Token.Kind.PAGE)
    request.session[PAGE_TOKEN_SESSION_KEY] = token.key
    return token.key


def page_token_revoke(request) -> None:
    """At logout: the session's page token stops working with the session."""
    key = request.session.get(PAGE_TOKEN_SESSION_KEY) if hasattr(request, "session") else None
    if key:
        token_revoke(key=key)
