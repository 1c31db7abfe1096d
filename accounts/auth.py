"""API token authentication in one statement: the token, its expiry, its user and the user's roles.

DRF's TokenAuthentication reads the token with its user, and the permission check then reads the
user's groups: two ORM queries on every API call, a bet's included. This reads all of it at once in
plain SQL (studio.sql, studio.auth's user columns); what it accepts and refuses is DRF's, message for
message, plus an expired token: 401 with code `token_expired`. Every API view authenticates with it
(settings.REST_FRAMEWORK), bets included, and accounts.tokens.token_user (the WebSocket's) reads
the token through the same statement.
"""
from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework import authentication, exceptions

from studio import auth, sql

from .models import Token

_TOKEN_FIELDS = ["key", "user_id", "expires_at"]


class TokenExpired(exceptions.AuthenticationFailed):
    default_detail = "Token has expired."
    default_code = "token_expired"


@functools.cache
def _statement() -> str:
    columns, _ = auth.user_columns()
    User = get_user_model()
    return (f"SELECT {columns}, {sql.columns(Token, ['expires_at'], alias='t')} FROM {Token._meta.db_table} t "
            f"JOIN {User._meta.db_table} u ON u.id = t.user_id WHERE t.key = %s")


def token_read(key: str) -> tuple | None:
    """(the token's user with its roles, the token) in one statement, expired or not; None if unknown."""
    row = sql.fetch_one(_statement(), [key])
    if row is None:
        return None
    user = auth.user_from_row(row)
    token = sql.instance(Token, _TOKEN_FIELDS, [key, user.pk, row[-1]])
    token.user = user
    return user, token


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's, with the expiry and the user's roles in the same statement."""

    def authenticate_credentials(self, key):
        found = token_read(key)
        if found is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user, token = found
        refuse_unless_valid(user=user, expires_at=token.expires_at)
        return user, token


def refuse_unless_valid(*, user, expires_at) -> None:
    """A known token is refused when it has expired or its user is inactive (DRF's words for the latter)."""
    if expires_at <= timezone.now():
        raise TokenExpired()
    if not user.is_active:
        raise exceptions.AuthenticationFailed("User inactive or deleted.")
