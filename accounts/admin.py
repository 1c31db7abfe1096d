"""The admin's users and groups: who may change what.

Supervisors are staff but not user administrators: for anyone but a superuser, a user's roles and
flags (is_superuser, is_staff, is_active, groups, user_permissions) are read-only, the password view
is refused, no user can be added, and a superuser's account cannot be edited at all. A superuser's
changes to those fields, and to a group's permissions, go through accounts.services (recorded);
the record itself (AccessChange) is read-only to everyone."""
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_user_model, update_session_auth_hash
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.urls import reverse

from studio.readonly_admin import ReadOnlyAdmin

from . import services
from .models import AccessChange

User = get_user_model()
ROLE_FIELDS = ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")


class StudioUserAdmin(UserAdmin):
    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        if request.user.is_superuser:
            return fields
        return (*fields, "username", *ROLE_FIELDS, "last_login", "date_joined")

    def has_add_permission(self, request):
        return request.user.is_superuser and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.is_superuser and not request.user.is_superuser:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)

    def save_model(self, request, obj, form, change):
        """Everything but the role fields saved as the admin does; those through the service."""
        if not change:
            super().save_model(request, obj, form, change)  # the add form: username and password
            services.user_created(actor=request.user, source=services.ADMIN, user=obj)
            services.change_record(actor=request.user, source=services.ADMIN, user=obj, field="password", old="",
                                   new="set" if obj.has_usable_password() else "disabled")
            return
        wanted = {name: getattr(obj, name) for name in services.FLAGS}
        stored = User.objects.get(pk=obj.pk)
        for name in services.FLAGS:
            setattr(obj, name, getattr(stored, name))
        super().save_model(request, obj, form, change)
        if request.user.is_superuser:
            services.user_update(actor=request.user, source=services.ADMIN, user=obj, **wanted)

    def save_related(self, request, form, formsets, change):
        data = form.cleaned_data
        groups, permissions = data.pop("groups", None), data.pop("user_permissions", None)
        super().save_related(request, form, formsets, change)
        if request.user.is_superuser and (groups is not None or permissions is not None):
            services.user_update(actor=request.user, source=services.ADMIN, user=form.instance, groups=groups, permissions=permissions)

    def user_change_password(self, request, id, form_url=""):
        """Superusers only; a valid new password is set through the service (recorded, tokens revoked)."""
        if not request.user.is_superuser:
            raise PermissionDenied
        user = self.get_object(request, unquote(id))
        if request.method == "POST" and user is not None:
            form = self.change_password_form(user, request.POST)
            if form.is_valid() and (form.cleaned_data["set_usable_password"] or "unset-password" in request.POST):
                password = form.cleaned_data["password1"] if form.cleaned_data["set_usable_password"] else None
                services.user_password_set(actor=request.user, source=services.ADMIN, user=user, password=password)
                update_session_auth_hash(request, user)
                messages.success(request, "Password changed." if password is not None else "Password-based authentication was disabled.")
                return HttpResponseRedirect(reverse(f"{self.admin_site.name}:{user._meta.app_label}_{user._meta.model_name}_change",
                                                    args=(user.pk,)))
        return super().user_change_password(request, id, form_url)


class StudioGroupAdmin(GroupAdmin):
    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        return fields if request.user.is_superuser else (*fields, "permissions")

    def save_related(self, request, form, formsets, change):
        permissions = form.cleaned_data.pop("permissions", None)
        super().save_related(request, form, formsets, change)
        if request.user.is_superuser and permissions is not None:
            services.group_permissions_set(actor=request.user, source=services.ADMIN, group=form.instance, permissions=permissions)


@admin.register(AccessChange)
class AccessChangeAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor_name", "source", "username", "field", "old", "new"]
    list_filter = ["field", "source"]
    search_fields = ["username", "actor_name"]


admin.site.unregister(User)
admin.site.register(User, StudioUserAdmin)
admin.site.unregister(Group)
admin.site.register(Group, StudioGroupAdmin)
