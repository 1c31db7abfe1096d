"""Input and output serializers of the tables API. They validate shapes; the rules live in services."""
import re
from decimal import Decimal

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from rest_framework import serializers

from studio.fields import AmountDecimalField, StrictBooleanField, StrictDecimalField, TextField, WholeNumberField
from studio.validators import refuse_control_characters

from engine import SIDE_BETS, EngineError, Side, TableConfig

from .access import DRIVERS, table_driver
from .models import Table


MATCH_CURRENCY = re.compile(r"M[0-9]+")  # Match.currency: the chips of one match, issued to its players only


def money_field(**kwargs):
    return serializers.DecimalField(max_digits=14, decimal_places=2, **kwargs)


class ShiftSerializer(serializers.Serializer):
    """A dealer's shift at a table (tables.shifts.shift_info)."""

    id = serializers.IntegerField()
    dealer = serializers.CharField(help_text="The dealer's username.")
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    end_reason = serializers.CharField(allow_null=True, help_text="signed_out, next_dealer, moved or supervisor; null while on shift.")
    seconds = serializers.IntegerField(help_text="How long the shift has lasted (so far).")
    rotation_due = serializers.BooleanField(help_text="On shift for the table's shift length or longer.")


class ShoeSerializer(serializers.Serializer):
    """A shoe change at a table (tables.shoes): a row of its change log, field `shoe`."""

    number = serializers.IntegerField(help_text="The shoe's number at this table (1: the first recorded).")
    at = serializers.DateTimeField(help_text="When the new shoe was recorded.")
    by = serializers.CharField(help_text="Who recorded it (a username).")


class TableShiftsSerializer(serializers.Serializer):
    current = ShiftSerializer(allow_null=True, help_text="The dealer on shift now, or null.")
    shoe = ShoeSerializer(allow_null=True, help_text="The table's latest shoe change, or null when none is recorded.")
    shift_minutes = serializers.IntegerField()
    recent = ShiftSerializer(many=True, help_text="The table's latest shifts, newest first (20).")


class StateSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=Table.State.values)
    reason = TextField(max_length=200, required=False, allow_blank=True, default="",
                       help_text="Why (players read it): required for maintenance, cleared when open.")

    def validate_reason(self, value):
        try:
            refuse_control_characters(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None
        return value.strip()


class ChangeSerializer(serializers.Serializer):
    """A row of the change log: a table's (kind `table`) or the access record's (kind `access`: a
    user's roles, permissions or password; a password is never shown, only that one was set)."""

    kind = serializers.CharField(help_text="table (a table's change log) or access (roles, permissions, passwords).")
    id = serializers.IntegerField(help_text="The row's id within its kind.")
    at = serializers.DateTimeField()
    actor = serializers.CharField(help_text="Who made the change (a username, or the command that did).")
    source = serializers.CharField(help_text="api, admin, command, or match (a friends' match setting up and driving its table).")
    table = serializers.IntegerField(allow_null=True, help_text="The table (kind table), else null.")
    subject = serializers.CharField(help_text="The table's name, or the user (or group) whose access changed.")
    field = serializers.CharField(help_text="What changed: a table's field (state, min_bet...), dealer, created; or a user's.")
    old = serializers.CharField(allow_blank=True)
    new = serializers.CharField(allow_blank=True)


class TableSerializer(serializers.ModelSerializer):
    # The model's text and booleans read strictly (a JSON string; true or false), as every input field.
    serializer_field_mapping = {**serializers.ModelSerializer.serializer_field_mapping,
                                models.CharField: TextField, models.TextField: TextField, models.BooleanField: StrictBooleanField}
    commission = StrictDecimalField(max_digits=4, decimal_places=3, min_value=Decimal("0.001"), max_value=Decimal("1"), required=False)
    side_bets = serializers.ListField(child=serializers.ChoiceField(choices=sorted(SIDE_BETS)), required=False, allow_empty=True)
    chip_unit = AmountDecimalField(min_value=Decimal("0.01"), required=False)
    min_bet = AmountDecimalField(min_value=Decimal("0.01"), required=False)
    max_bet = AmountDecimalField(min_value=Decimal("0.01"), required=False)
    betting_seconds = WholeNumberField(min_value=1, max_value=600, required=False)
    multipliers = serializers.JSONField(required=False, allow_null=True, help_text=(
        'Random multipliers (docs/RULES.md): null (none), or {"spots": [spots offered here], "draws": how many are '
        'drawn each round, "values": [[multiplier 2-1000, weight], ...]}.'))
    shift_minutes = WholeNumberField(min_value=1, max_value=720, required=False,
                                     help_text="Dealer shift length: a shift this long is flagged as a rotation due.")
    driver = serializers.SerializerMethodField(help_text=f"Who runs the table's rounds: {', '.join(DRIVERS)} (tables.access).")
    state = serializers.CharField(read_only=True, help_text="open, closed or maintenance: changed with POST /api/tables/{id}/state/.")
    state_reason = serializers.CharField(read_only=True, help_text="Why it is closed or under maintenance (empty when open).")

    class Meta:
        model = Table
        fields = ["id", "name", "currency", "first_card", "mode", "commission", "side_bets", "card_count_paytable",
                  "chip_unit", "min_bet", "max_bet", "allow_both_sides", "betting_seconds", "multipliers", "shift_minutes", "driver",
                  "state", "state_reason"]
        read_only_fields = ["id", "driver", "state", "state_reason"]

    def get_driver(self, table: Table) -> str:
        return table_driver(table)

    def validate_name(self, value):
        try:
            refuse_control_characters(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None
        return value

    def validate_currency(self, value):
        try:
            refuse_control_characters(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None
        if MATCH_CURRENCY.fullmatch(value) and (self.instance is None or self.instance.currency != value):
            raise serializers.ValidationError("M followed by digits is a match's own currency.")
        return value

    def validate(self, attrs):
        merged = {f: getattr(self.instance, f) for f in self.Meta.fields if self.instance is not None and f not in self.Meta.read_only_fields}
        merged.update(attrs)
        defaults = {f.name: f.get_default() for f in Table._meta.concrete_fields}
        get = lambda key: merged.get(key, defaults.get(key))  # noqa: E731
        errors = {}
        if get("min_bet") > get("max_bet"):
            errors["min_bet"] = ["min_bet must not be above max_bet."]
        unit = get("chip_unit")
        for key in ("min_bet", "max_bet"):
            if get(key) % unit != 0:
                errors.setdefault(key, []).append(f"{key} must be a multiple of chip_unit ({unit}).")
        if "side_bets" in attrs:
            attrs["side_bets"] = sorted(set(attrs["side_bets"]))
        try:
            config = TableConfig.from_dict({
                "first_card": get("first_card"), "mode": get("mode"), "commission": str(get("commission")),
                "side_bets": list(get("side_bets")), "card_count_paytable": get("card_count_paytable"), "chip_unit": str(unit),
                "multipliers": get("multipliers"),
            })
            if "multipliers" in attrs:  # stored as the engine reads it back
                attrs["multipliers"] = None if config.multipliers is None else config.multipliers.to_dict()
        except EngineError as exc:
            errors.setdefault(getattr(exc, "field", None) or "non_field_errors", []).append(str(exc))
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class SpotOddsSerializer(serializers.Serializer):
    spot = serializers.CharField()
    probability = serializers.CharField(help_text="Exact fraction, e.g. 429/833.")
    payout = serializers.CharField(help_text="Odds X of X:1 for the most likely winning case, as a decimal string.")
    rtp = serializers.CharField(help_text="Return to player, percent with 4 decimals, the table's multipliers included.")
    rtp_without_multipliers = serializers.CharField(allow_null=True, help_text="The same without the multipliers; null for a spot that cannot be multiplied.")
    rtp_at_least_100 = serializers.BooleanField(help_text="The spot returns 100% or more (allowed, e.g. at a play-chips table; flagged).")
    outcomes = serializers.ListField(child=serializers.DictField(), help_text="Every winning case: probability and odds.")


class JokerSerializer(serializers.Serializer):
    joker = TextField(max_length=16, help_text="The joker as scanned: KS, 10H, TH, Q♥ ...")


class CardSerializer(serializers.Serializer):
    card = TextField(max_length=16, help_text="The card as scanned: 7H, 10D, TD, Q♥ ...")


class DealtCardSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    side = serializers.ChoiceField(choices=[side.value for side in Side])
    card = serializers.CharField()
    match = serializers.BooleanField()
    dealt_at = serializers.CharField(help_text="UTC, ISO 8601 to the millisecond.")


class RoundCardSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    side = serializers.ChoiceField(choices=[side.value for side in Side])
    card = serializers.CharField()
    dealt_at = serializers.CharField(help_text="When it was recorded: UTC, ISO 8601 to the millisecond (2026-12-01T18:43:44.123Z).")


class RoundSerializer(serializers.Serializer):
    """The public state of a round (tables.selectors.round_detail)."""

    id = serializers.IntegerField()
    table = serializers.IntegerField()
    status = serializers.CharField()
    joker = serializers.CharField()
    first_side = serializers.CharField()
    opened_at = serializers.DateTimeField()
    closes_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    betting_left_ms = serializers.IntegerField(allow_null=True, help_text="While betting: the time left; null otherwise.")
    winner = serializers.CharField(allow_null=True)
    winning_spots = serializers.ListField(child=serializers.CharField(), help_text="Once the deal is over: every spot it pays.")
    cards_dealt = serializers.IntegerField()
    cards = RoundCardSerializer(many=True)
    next_side = serializers.CharField(allow_null=True)
    spots = serializers.ListField(child=serializers.DictField())
    settings = serializers.DictField()
    dealer = serializers.CharField(allow_null=True)
    shift = serializers.IntegerField(allow_null=True, help_text="The dealer's shift the round was opened in (null: the virtual dealer, or a supervisor not on shift).")
    void_reason = serializers.CharField(allow_null=True, help_text="A voided round: why the supervisor voided it; null otherwise.")
    totals = serializers.DictField(required=False)
    fairness = serializers.DictField(required=False, help_text="Virtual dealer: commitment; salt and pack once the round is over.")
    multipliers_commit = serializers.CharField(required=False, help_text="A table with random multipliers: the hex SHA-256 of the round's seed, from its opening.")
    multipliers = serializers.ListField(child=serializers.DictField(), required=False, allow_null=True,
                                        help_text='The drawn multipliers, [{"spot", "multiplier"}], once betting has closed; null before.')
    multipliers_seed = serializers.CharField(required=False, allow_null=True,
                                             help_text="The seed they were drawn from (hex), once betting has closed; null before.")


class RoundEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True, source="actor.username", default=None)
    action = serializers.CharField()
    from_status = serializers.CharField()
    to_status = serializers.CharField()
    data = serializers.DictField()


class StatsQuerySerializer(serializers.Serializer):
    last = WholeNumberField(min_value=10, max_value=500, default=100, help_text="How many of the latest rounds (10 to 500).")


class _SidesCountSerializer(serializers.Serializer):
    andar = serializers.IntegerField()
    bahar = serializers.IntegerField()


class _SidesExpectedSerializer(serializers.Serializer):
    andar = serializers.CharField(help_text="Expected count, two decimals.")
    bahar = serializers.CharField(help_text="Expected count, two decimals.")


class _BoxSerializer(serializers.Serializer):
    box = serializers.CharField(help_text="Card-count box of the table's paytable, e.g. 1-5.")
    observed = serializers.IntegerField()
    expected = serializers.CharField(help_text="Expected count, two decimals.")


class _RankSerializer(serializers.Serializer):
    rank = serializers.CharField()
    count = serializers.IntegerField()
    expected = serializers.CharField()


class _ColoursSerializer(serializers.Serializer):
    red = serializers.IntegerField()
    black = serializers.IntegerField()


class _ResultSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    winner = serializers.CharField()
    cards_dealt = serializers.IntegerField()


class TableStatsSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    rounds = serializers.IntegerField(help_text="Rounds counted: the latest finished or settled ones, voided rounds left out.")
    wins = _SidesCountSerializer()
    expected_wins = _SidesExpectedSerializer(help_text="What the exact odds expect, given each round's first side.")
    first_side_wins = serializers.IntegerField(help_text="Rounds won by the side that got the first card.")
    expected_first_side_wins = serializers.CharField()
    card_count = _BoxSerializer(many=True)
    joker_ranks = _RankSerializer(many=True)
    joker_colours = _ColoursSerializer()
    longest_streaks = _SidesCountSerializer(help_text="The longest run of wins of each side.")
    results = _ResultSerializer(many=True, help_text="The rounds counted, oldest first (for a bead plate).")


class _RuleSpotSerializer(serializers.Serializer):
    spot = serializers.CharField()
    pays = serializers.CharField(help_text="What the spot pays, as the felt says it (0.9:1, 1:1, 3:1 ...).")
    probability = serializers.CharField(help_text="Exact probability that the bet wins, a fraction.")
    rtp = serializers.CharField(help_text="Return to player, percent with 4 decimals, from the engine's exact odds, the table's multipliers included.")
    rtp_without_multipliers = serializers.CharField(allow_null=True, help_text="The same without the multipliers; null for a spot that cannot be multiplied.")
    rtp_at_least_100 = serializers.BooleanField(help_text="The spot returns 100% or more (allowed, e.g. at a play-chips table; flagged).")


class TableRulesSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    name = serializers.CharField()
    first_card = serializers.CharField(help_text="Where the first card goes: andar, bahar or joker_colour.")
    mode = serializers.CharField(help_text="classic or no_commission.")
    commission = serializers.CharField(help_text="What a winning first-side main bet pays per unit (0.9 pays 0.9:1).")
    side_bets = serializers.ListField(child=serializers.CharField())
    card_count_paytable = serializers.CharField()
    chip_unit = serializers.CharField()
    currency = serializers.CharField()
    min_bet = serializers.CharField()
    max_bet = serializers.CharField()
    allow_both_sides = serializers.BooleanField()
    betting_seconds = serializers.IntegerField()
    spots = _RuleSpotSerializer(many=True, help_text="Every bet offered, in the felt's order.")
    multipliers = serializers.DictField(allow_null=True, help_text=(
        "Random multipliers: the spots that can be drawn, how many a round, each value's weight and chance, E[multiplier]; null: none."))
