"""API token authentication in one statement: the token, its user and the user's studio roles.

DRF's TokenAuthentication reads the token with its user, and the permission check then reads the
user's groups: two ORM queries on every API call, a bet's included. This reads all three at once
in plain SQL (studio.sql); what it accepts and refuses is DRF's, message for message.
"""
from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from studio import sql
from studio.roles import ROLES


@functools.cache
def _statement() -> tuple[str, list[str]]:
    User = get_user_model()
    # What API views read of a user; any other field loads on first use (a deferred field).
    fields = ["id", User.USERNAME_FIELD, "is_active", "is_staff", "is_superuser"]
    link = User.groups.through._meta
    return (f"SELECT {sql.columns(User, fields, alias='u')}, g.name FROM {Token._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id "
            f"LEFT JOIN {link.db_table} ug ON ug.user_id = u.id "
            f"LEFT JOIN {Group._meta.db_table} g ON g.id = ug.group_id AND g.name IN ({', '.join(['%s'] * len(ROLES))}) "
            f"WHERE t.key = %s", fields)


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's, with the user's roles read in the same statement."""

    def authenticate_credentials(self, key):
        statement, fields = _statement()
        rows = sql.fetch_all(statement, [*ROLES, key])
        if not rows:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user = sql.instance(get_user_model(), fields, rows[0][:-1])
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        user._studio_roles = {row[-1] for row in rows if row[-1]}  # what studio.roles.roles_of would read
        token = Token.from_db(DEFAULT_DB_ALIAS, ["key", "user_id"], [key, user.pk])
        token.user = user
        return user, token
