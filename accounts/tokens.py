"""Issuing, finding and revoking tokens. A token lives TOKEN_TTL seconds from its issue; each login
(POST /api/auth/token/) gets its own, and each browser session one page token, revoked at logout.

Every revocation (of a token, of a browser session at logout, of all a user's tokens) is announced
through accounts.hooks.credentials_revoked, naming the credentials by their digest
(`credential_digest`): the WebSockets opened with them are closed (tables.stream)."""
from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from studio import sql

from . import hooks
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


def credential_digest(key: str) -> str:
    """How a revocation names a token or a session: a digest of its key, never the key itself."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _revoked(*, user_id: int, keys: list[str], sessions: bool) -> None:
    hooks.credentials_revoked.send(sender=Token, user_id=user_id, digests=[credential_digest(k) for k in keys], sessions=sessions)


def _delete(where: str, params: list) -> list[tuple]:
    """Delete tokens, returning each one's key and user id (one statement)."""
    key_user = sql.columns(Token, ["key", "user_id"])
    return sql.fetch_all(f"DELETE FROM {Token._meta.db_table} WHERE {where} RETURNING {key_user}", params)


def token_revoke(*, key: str) -> bool:
    """Delete the token; its sockets close."""
    deleted = _delete(f"{sql.columns(Token, ['key'])} = %s", [key])
    for _, user_id in deleted:
        _revoked(user_id=user_id, keys=[key], sessions=False)
    return bool(deleted)


def tokens_revoke_all(*, user) -> int:
    """Every token of `user` (after a password change: a stolen token dies with the old password);
    every socket of the user closes, those opened with a session cookie too."""
    deleted = _delete(f"{sql.columns(Token, ['user_id'])} = %s", [user.pk])
    _revoked(user_id=user.pk, keys=[key for key, _ in deleted], sessions=True)
    return len(deleted)


def token_valid(key: str) -> tuple | None:
    """(the active user, with its roles, the token) of a valid (known, unexpired) token, else None: the
    same read as the API's authentication (accounts.auth)."""
    found = token_read(key) if key and "\x00" not in key else None  # PostgreSQL text holds no NUL
    if found is None:
        return None
    user, token = found
    return found if token.expires_at > timezone.now() and user.is_active else None


def token_user(key: str):
    """The active user of a valid token (`token_valid`), else None."""
    found = token_valid(key)
    return found[0] if found is not None else None


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


def session_revoke(*, request, user) -> None:
    """At logout (before the session is flushed): the session's page token stops working with the
    session, and the sockets opened with either close."""
    session = getattr(request, "session", None)
    if session is None:
        return
    page_key = session.get(PAGE_TOKEN_SESSION_KEY)
    deleted = _delete(f"{sql.columns(Token, ['key'])} = %s", [page_key]) if page_key else []
    user_id = user.pk if user is not None else next((user_id for _, user_id in deleted), None)
    keys = [key for key in (page_key, session.session_key) if key]
    if user_id is not None and keys:
        _revoked(user_id=user_id, keys=keys, sessions=False)
