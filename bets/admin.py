from django.contrib import admin

from .models import Account, Bet, LedgerEntry


class ReadOnly(admin.ModelAdmin):
    """Money changes only through the ledger services."""

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Account)
class AccountAdmin(ReadOnly):
    list_display = ["id", "kind", "user", "currency", "balance"]


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnly):
    list_display = ["id", "created_at", "account", "kind", "amount", "bet", "round", "version"]


@admin.register(Bet)
class BetAdmin(ReadOnly):
    list_display = ["id", "round", "player", "spot", "amount", "status", "payout"]
    list_filter = ["status", "spot"]
