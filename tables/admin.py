from django.contrib import admin

from studio.readonly_admin import ReadOnlyAdmin

from . import services
from .changes import ADMIN
from .forms import TableAdminForm
from .models import DealtCard, Match, Round, RoundEvent, Shift, Table, TableChange


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """Saves through tables.services (table_create, table_update), so each change is a row of the
    change log, as through the API."""

    list_display = ["id", "name", "state", "mode", "first_card", "commission", "card_count_paytable", "chip_unit", "min_bet",
                    "max_bet", "betting_seconds", "shift_minutes"]
    form = TableAdminForm  # side bets and multipliers as checkboxes and fields (tables.forms)
    fieldsets = [
        (None, {"fields": ["name", "currency", "state", "state_reason"]}),
        ("Rules", {"fields": ["mode", "first_card", "commission", "side_bets", "card_count_paytable", "chip_unit"]}),
        ("Limits", {"fields": ["min_bet", "max_bet", "allow_both_sides", "betting_seconds"]}),
        ("Random multipliers", {"fields": ["multipliers", "multiplier_spots", "multiplier_draws", "multiplier_values"]}),
        ("Dealing", {"fields": ["shift_minutes", "is_private", "virtual_dealer", "deal_interval_ms", "round_gap_ms"]}),
    ]

    def save_model(self, request, obj, form, change):
        if not change:
            services.table_create(table=obj, actor=request.user, source=ADMIN)
            return
        changes = {f: getattr(obj, f) for f in form.changed_fields()}
        services.table_update(table_id=obj.pk, changes=changes, actor=request.user, source=ADMIN)
        obj.refresh_from_db()

    def has_delete_permission(self, request, obj=None):
        return False  # its rounds and its change log keep it (PROTECT)

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
class RoundAdmin(ReadOnlyAdmin):
    """Read-only: rounds change only through the services (the audit must see every change)."""

    list_display = ["id", "table", "status", "joker", "winner", "cards_dealt", "opened_at"]
    list_filter = ["status", "table"]
    inlines = [DealtCardInline]

    def get_exclude(self, request, obj=None):
        """A virtual round's pack and salt stay secret until it is over, a multiplier round's seed
        until its draw (docs/FAIRNESS.md)."""
        secret = ["pack", "salt"] if obj is None or obj.status in Round.OPEN_STATUSES else []
        if obj is None or (obj.multipliers is None and obj.status in Round.OPEN_STATUSES):
            secret.append("multipliers_seed")
        return secret


@admin.register(RoundEvent)
class RoundEventAdmin(ReadOnlyAdmin):
    list_display = ["id", "round", "at", "actor", "action", "from_status", "to_status"]


@admin.register(TableChange)
class TableChangeAdmin(ReadOnlyAdmin):
    """The change log: read-only to everyone (append-only rows)."""

    list_display = ["at", "table", "actor_name", "source", "field", "old", "new"]
    list_filter = ["field", "source", "table"]


@admin.register(Shift)
class ShiftAdmin(ReadOnlyAdmin):
    """Shifts change at the console and through the API only (tables.shifts)."""

    list_display = ["id", "table", "dealer", "started_at", "ended_at", "end_reason"]
    list_filter = ["table", "end_reason"]
