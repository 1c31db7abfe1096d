from django.contrib import admin

from .models import DealtCard, Match, Round, RoundEvent, Table


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "mode", "first_card", "commission", "card_count_paytable", "chip_unit", "min_bet", "max_bet", "betting_seconds"]

    def get_readonly_fields(self, request, obj=None):
        """A match's table is private and driven by the match (tables.access): not to be switched here."""
        if obj is not None and Match.objects.filter(table=obj).exists():
            return ["is_private", "virtual_dealer"]
        return []


class DealtCardInline(admin.TabularInline):
    model = DealtCard
    extra = 0
    can_delete = False
    readonly_fields = ["position", "side", "card", "dealt_at"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    """Read-only: rounds change only through the services (the audit must see every change)."""

    list_display = ["id", "table", "status", "joker", "winner", "cards_dealt", "opened_at"]
    list_filter = ["status", "table"]
    inlines = [DealtCardInline]

    def get_exclude(self, request, obj=None):
        """A virtual round's pack and salt stay secret until it is over (docs/FAIRNESS.md)."""
        return ["pack", "salt"] if obj is None or obj.status in Round.OPEN_STATUSES else []

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(RoundEvent)
class RoundEventAdmin(admin.ModelAdmin):
    list_display = ["id", "round", "at", "actor", "action", "from_status", "to_status"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
