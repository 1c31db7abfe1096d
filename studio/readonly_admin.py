"""The admin's read-only views: rows that change only through the services (rounds, the ledger, the
change logs) are shown, never added, changed or deleted there."""
from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
