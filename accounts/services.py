"""The one way roles, permissions and passwords change, each change recorded (accounts.models.AccessChange).

Used by the studio_user command and by the admin for superusers; the admin gives no one else a way
to these fields. A password is never recorded, only that it was set or disabled; setting one
revokes the user's tokens (a token taken with the old password dies with it), and so does any change
of the user's roles, permissions or flags (deactivation included): the user's open WebSockets, which
learnt who the user is when they connected, are closed with the tokens (accounts.tokens).
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.utils import timezone

from audit import chain
from studio.roles import ROLES, SUPERVISOR

from .models import AccessChange
from .tokens import tokens_revoke_all

COMMAND = "command"
ADMIN = "admin"
API = "api"
FLAGS = ("is_superuser", "is_staff", "is_active")
# What the supervisor role may do in the admin: read and edit tables, read users, rounds and money.
SUPERVISOR_PERMISSIONS = r"^(view|change|add)_table$|^view_(user|round|roundevent|bet|account|ledgerentry)$|^change_user$"


def _actor_name(actor) -> str:
    return actor.get_username() if actor is not None else "studio_user command"


def change_record(*, actor, source: str, user, field: str, old, new, username: str | None = None) -> AccessChange:
    """Append one row to the access record, a record of the studio-wide audit chain (audit.chain:
    numbered and hashed before its INSERT, in the caller's transaction). The head is locked last:
    callers record a change after writing the user's row it records."""
    with transaction.atomic():
        record = AccessChange(at=timezone.now(), actor=actor, actor_name=_actor_name(actor), source=source, user=user,
                              username=username or (user.get_username() if user is not None else ""),
                              field=field, old=str(old), new=str(new))
        chain.seal(record, key=chain.STUDIO)
        record.save(force_insert=True)
    return record


def _names(items) -> str:
    return ",".join(sorted(str(item) for item in items))


@transaction.atomic
def user_update(*, actor, source: str, user, groups=None, permissions=None, **flags) -> list[AccessChange]:
    """Set any of is_superuser, is_staff, is_active, the user's groups and direct permissions; record
    each value that changes (old and new). Any change revokes the user's tokens (and so closes their
    sockets, which hold the roles they connected with); reactivating the account later does not
    revive them."""
    unknown = set(flags) - set(FLAGS)
    if unknown:
        raise TypeError(f"user_update does not change {sorted(unknown)}")
    changed = [name for name, value in flags.items() if value is not None and getattr(user, name) != value]
    old = {name: getattr(user, name) for name in changed}
    for name in changed:
        setattr(user, name, flags[name])
    related_changes = []
    for field, new in (("groups", groups), ("user_permissions", permissions)):
        if new is None:
            continue
        related = getattr(user, field)
        before, new = list(related.all()), list(new)
        if _names(before) != _names(new):
            related_changes.append((field, related, _names(before), new))
    if not changed and not related_changes:
        return []
    # The user's rows first, then the records (the chain's head is locked last).
    if changed:
        user.save(update_fields=changed)
    for _, related, _, new in related_changes:
        related.set(new)
    tokens_revoke_all(user=user)
    user._studio_roles = None  # studio.roles reads them again
    records = [change_record(actor=actor, source=source, user=user, field=name, old=old[name], new=flags[name]) for name in changed]
    for field, _, before, new in related_changes:
        records.append(change_record(actor=actor, source=source, user=user, field=field, old=before, new=_names(new)))
    return records


@transaction.atomic
def user_password_set(*, actor, source: str, user, password: str | None) -> AccessChange:
    """Set the user's password (None: disable password login) and revoke the user's tokens."""
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    user.save(update_fields=["password"])
    tokens_revoke_all(user=user)
    return change_record(actor=actor, source=source, user=user, field="password", old="", new="set" if password is not None else "disabled")


@transaction.atomic
def user_created(*, actor, source: str, user) -> AccessChange:
    """Record an account made elsewhere (the admin's add form, by a superuser)."""
    return change_record(actor=actor, source=source, user=user, field="created", old="", new=user.get_username())


@transaction.atomic
def group_permissions_set(*, actor, source: str, group, permissions) -> AccessChange | None:
    """Set a group's permissions (every member's), recorded if they change."""
    old, new = list(group.permissions.all()), list(permissions)
    if _names(old) == _names(new):
        return None
    group.permissions.set(new)
    return change_record(actor=actor, source=source, user=None, username=f"group {group.name}", field="group_permissions",
                         old=_names(old), new=_names(new))


def role_group(role: str, *, actor=None, source: str = COMMAND) -> Group:
    """The role's group; the supervisor group with the supervisor's admin permissions (recorded if they change)."""
    group = Group.objects.get_or_create(name=role)[0]
    if role == SUPERVISOR:
        wanted = list(Permission.objects.filter(content_type__app_label__in=["tables", "bets", "auth"],
                                                codename__regex=SUPERVISOR_PERMISSIONS))
        group_permissions_set(actor=actor, source=source, group=group, permissions=wanted)
    return group


@transaction.atomic
def account_set(*, actor, source: str, name: str, role: str, password: str):
    """Create or update an account with one studio role and a password: (user, created)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    User = get_user_model()
    # The rules of Django's user forms (the username validator, the field's length): ValidationError.
    User._meta.get_field(User.USERNAME_FIELD).clean(name, None)
    user, created = User.objects.get_or_create(username=name)
    if created:
        user_created(actor=actor, source=source, user=user)
    user_password_set(actor=actor, source=source, user=user, password=password)
    others = [g for g in user.groups.all() if g.name not in ROLES]
    user_update(actor=actor, source=source, user=user, is_staff=role == SUPERVISOR, groups=[*others, role_group(role, actor=actor, source=source)])
    return user, created
