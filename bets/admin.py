"""Money changes only through the ledger services: the admin shows accounts, entries and bets read-only."""
from django.contrib import admin

from studio.readonly_admin import ReadOnlyAdmin

from .models import Account, Bet, LedgerEntry


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "user", "currency", "balance"]


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "account", "kind", "amount", "bet", "round", "version"]


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = ["id", "round", "player", "spot", "amount", "status", "payout"]
    list_filter = ["status", "spot"]
