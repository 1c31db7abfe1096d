"""The columns of a user and their studio roles, for statements that read a user in one go.

API token authentication (accounts.auth) reads a token's user, the user's roles and the token's
expiry in a single statement built on these.
"""
from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from studio import sql
from studio.roles import ROLES


@functools.cache
def user_columns() -> tuple[str, list[str]]:
    """The columns of a token's user (alias u) that API views read, then an array of the user's studio
    roles; and the user fields they hold. Any other field loads on first use (a deferred field).
    Read by token authentication (accounts.auth)."""
    User = get_user_model()
    fields = ["id", User.USERNAME_FIELD, "is_active", "is_staff", "is_superuser"]
    link = User.groups.through._meta
    roles = ", ".join(f"'{role}'" for role in ROLES)  # constants
    return (f"{sql.columns(User, fields, alias='u')}, (SELECT string_agg(g.name, ',') FROM {link.db_table} ug JOIN {Group._meta.db_table} g "
            f"ON g.id = ug.group_id WHERE ug.user_id = u.id AND g.name IN ({roles}))", fields)


def user_from_row(row):
    """The user of a row that starts with `user_columns()`, with its roles (as studio.roles reads them)."""
    _, fields = user_columns()
    user = sql.instance(get_user_model(), fields, row[:len(fields)])
    user._studio_roles = set((row[len(fields)] or "").split(",")) - {""}
    return user
