"""Roles are Django groups: dealer, supervisor, player."""
from rest_framework.permissions import BasePermission

DEALER, SUPERVISOR, PLAYER = "dealer", "supervisor", "player"
ROLES = (DEALER, SUPERVISOR, PLAYER)


def roles_of(user) -> set[str]:
    if not user or not user.is_authenticated:
        return set()
    cached = getattr(user, "_studio_roles", None)
    if cached is None:
        cached = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        user._studio_roles = cached
    return cached


def has_role(user, *roles: str) -> bool:
    return bool(roles_of(user) & set(roles))


class _RolePermission(BasePermission):
    roles: tuple[str, ...] = ()

    def has_permission(self, request, view):
        return has_role(request.user, *self.roles)


class IsDealer(_RolePermission):
    """Dealers run rounds; supervisors may too."""

    message = "Only a dealer or a supervisor may do this."
    roles = (DEALER, SUPERVISOR)


class IsSupervisor(_RolePermission):
    message = "Only a supervisor may do this."
    roles = (SUPERVISOR,)


class IsPlayer(_RolePermission):
    message = "Only a player may bet."
    roles = (PLAYER,)
