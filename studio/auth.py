"""API token authentication in one statement: the token, its user and the user's studio roles.

DRF's TokenAuthentication reads the token with its user, and the permission check then reads the
user's groups: two ORM queries on every API call, a bet's included. This reads all three at once
in plain SQL (studio.sql); what it accepts and refuses is DRF's, message for message.
"""
from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS, connection
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from studio import sql
from studio.roles import ROLES


@functools.cache
def user_columns() -> tuple[str, list[str]]:
    """The columns of a token's user (alias u) that API views read, then an array of the user's studio
    roles; and the user fields they hold. Any other field loads on first use (a deferred field).
    Also read by the bet's fast path (bets.placing), in the same statement as the bet's context."""
    User = get_user_model()
    fields = ["id", User.USERNAME_FIELD, "is_active", "is_staff", "is_superuser"]
    link = User.groups.through._meta
    roles = ", ".join(f"'{role}'" for role in ROLES)  # constants
    joined = "string_agg(g.name, ',')" if connection.vendor == "postgresql" else "group_concat(g.name, ',')"
    return (f"{sql.columns(User, fields, alias='u')}, (SELECT {joined} FROM {link.db_table} ug JOIN {Group._meta.db_table} g "
            f"ON g.id = ug.group_id WHERE ug.user_id = u.id AND g.name IN ({roles}))", fields)


def user_from_row(row):
    """The user of a row that starts with `user_columns()`, with its roles (as studio.roles reads them)."""
    _, fields = user_columns()
    user = sql.instance(get_user_model(), fields, row[:len(fields)])
    user._studio_roles = set((row[len(fields)] or "").split(",")) - {""}
    return user


@functools.cache
def _statement() -> str:
    columns, _ = user_columns()
    User = get_user_model()
    return f"SELECT {columns} FROM {Token._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id WHERE t.key = %s"


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's, with the user's roles read in the same statement."""

    def authenticate_credentials(self, key):
        row = sql.fetch_one(_statement(), [key])
        if row is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user = user_from_row(row)
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        token = Token.from_db(DEFAULT_DB_ALIAS, ["key", "user_id"], [key, user.pk])
        token.user = user
        return user, token
