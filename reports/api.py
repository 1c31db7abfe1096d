"""GET /api/reports/: supervisors' reports from the rollups, as JSON or CSV (?format=csv)."""
from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.fields import WholeNumberField
from studio.parsers import query_data
from studio.roles import IsSupervisor

from .renderers import CSVRenderer
from .selectors import GROUPS, Filters, report

MAX_ID = 2**63 - 1
MAX_DAYS = 400  # a year's report, whatever the time zone does
MAX_HOURS = 24 * 31 + 1  # group=hour: a month's hours at most


@extend_schema_field(OpenApiTypes.STR)
class WhenField(serializers.Field):
    """A date (midnight in the studio's TIME_ZONE) or an ISO 8601 datetime on the hour (without an
    offset: in TIME_ZONE): the rollups are kept by the hour."""

    default_error_messages = {
        "invalid": "Give a date (2026-12-01) or a datetime on the hour (2026-12-01T06:00:00Z).",
        "hour": "The reports are kept by the hour: give a datetime on the hour (UTC), or a date.",
    }

    def to_internal_value(self, data):
        if not isinstance(data, str) or not data.isascii() or not data.isprintable() or len(data) > 40:
            self.fail("invalid")
        zone = ZoneInfo(settings.TIME_ZONE)
        try:
            when = parse_datetime(data)
            day = None if when is not None else parse_date(data)
        except ValueError:
            self.fail("invalid")
        if when is None and day is None:
            self.fail("invalid")
        if day is not None:
            return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)
        when = when.replace(tzinfo=zone) if when.tzinfo is None else when
        when = when.astimezone(UTC)
        if (when.minute, when.second, when.microsecond) != (0, 0, 0):
            self.fail("hour")
        return when

    def to_representation(self, value):
        return value.isoformat()


class ReportQuery(serializers.Serializer):
    group = serializers.ChoiceField(choices=GROUPS, help_text="One row per table, dealer, shift, day (TIME_ZONE), hour (UTC), operator "
                                    "(each seamless operator's players, and `studio`: the studio's own wallets) or multiplier "
                                    "(the random multiplier bets were paid under; 1: none).")
    start = WhenField(help_text="The period's start, inclusive: a date (midnight in the studio's TIME_ZONE) or a datetime on the hour.")
    end = WhenField(help_text="The period's end, exclusive: a date (midnight in the studio's TIME_ZONE) or a datetime on the hour.")
    table = WholeNumberField(required=False, min_value=1, max_value=MAX_ID, help_text="Only this table (its id).")
    dealer = WholeNumberField(required=False, min_value=1, max_value=MAX_ID, help_text="Only this dealer (their user id).")

    def get_fields(self):
        fields = super().get_fields()  # `from` and `to` on the wire: `from` is a Python keyword
        fields["from"], fields["to"] = fields.pop("start"), fields.pop("end")
        fields["from"].source, fields["to"].source = "start", "end"
        return {name: fields[name] for name in ("group", "from", "to", "table", "dealer")}

    def validate(self, attrs):
        start, end = attrs["start"], attrs["end"]
        if end <= start:
            raise serializers.ValidationError({"to": ["Must be after `from`."]})
        if end - start > timedelta(days=MAX_DAYS):
            raise serializers.ValidationError({"to": [f"A report covers at most {MAX_DAYS} days."]})
        if attrs["group"] == "operator" and attrs.get("dealer") is not None:
            raise serializers.ValidationError({"dealer": ["A report grouped by operator is not filtered by dealer."]})
        if attrs["group"] == "hour" and end - start > timedelta(hours=MAX_HOURS):
            raise serializers.ValidationError({"to": ["Grouped by hour, a report covers at most 31 days."]})
        return attrs


def _amount(help_text: str) -> serializers.CharField:
    return serializers.CharField(help_text=f"{help_text} A decimal string (two decimals).")


def _percent(help_text: str) -> serializers.CharField:
    return serializers.CharField(allow_null=True, help_text=f"{help_text} A percentage, four decimals (\"2.1489\"); null without stakes.")


class ReportSpotSerializer(serializers.Serializer):
    spot = serializers.CharField(help_text="The bet type.")
    bets = serializers.IntegerField()
    stakes = _amount("Stakes of the settled bets.")
    payouts = _amount("Everything that came back (stakes and winnings).")
    ggr = _amount("Stakes less payouts.")
    hold = _percent("Observed: GGR / stakes.")
    theoretical_hold = _percent("1 - the exact return to player under each table's settings, weighted by its stakes.")


class ReportRowSerializer(serializers.Serializer):
    key = serializers.CharField(allow_null=True, help_text="The table's or dealer's id, the shift's, the day (YYYY-MM-DD), the hour "
                                "(UTC, ISO 8601) or the operator's code (`studio`: its own wallets); null for rounds without a dealer "
                                "or shift, and on the total.")
    label = serializers.CharField(help_text="The table's name, the dealer's username, or the key.")
    rounds = serializers.IntegerField(help_text="Settled rounds (voided ones are in `voids`).")
    rounds_per_hour = serializers.CharField(allow_null=True, help_text="Rounds per hour of play (opening to the match), two decimals.")
    seconds_per_card = serializers.CharField(allow_null=True, help_text="Average seconds per card (betting's close to the last card), two decimals.")
    cards = serializers.IntegerField()
    incidents = serializers.IntegerField()
    voids = serializers.IntegerField()
    player_rounds = serializers.IntegerField(help_text="Players with a settled bet, counted once per round.")
    bets = serializers.IntegerField()
    stakes = _amount("Stakes of the settled bets.")
    payouts = _amount("Everything that came back.")
    ggr = _amount("Gross gaming revenue: stakes less payouts.")
    hold = _percent("GGR / stakes.")
    spots = ReportSpotSerializer(many=True, help_text="Per bet type, the hold observed beside the theoretical.")


class ReportSerializer(serializers.Serializer):
    group = serializers.ChoiceField(choices=GROUPS)
    start = serializers.CharField(help_text="The period's start (UTC, inclusive).")
    end = serializers.CharField(help_text="The period's end (UTC, exclusive).")
    time_zone = serializers.CharField(help_text="The studio's TIME_ZONE, whose days group=day uses.")
    table = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField(allow_null=True)
    rows = ReportRowSerializer(many=True)
    total = ReportRowSerializer()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"], fields["to"] = fields.pop("start"), fields.pop("end")
        return {name: fields[name] for name in ("group", "from", "to", "time_zone", "table", "dealer", "rows", "total")}


class ReportView(APIView):
    """Supervisors: rounds, pace, incidents, voids, players, bets, stakes, payouts, GGR and hold per
    table, dealer, shift, day or hour of a period, from the rollups (never the bets). ?format=csv: the same as CSV."""

    permission_classes = [IsAuthenticated, IsSupervisor]
    renderer_classes = [JSONRenderer, CSVRenderer]

    def finalize_response(self, request, response, *args, **kwargs):
        """Only a report is CSV: a refusal ({"code", "message", "fields"}) and the answer to OPTIONS (the
        view's description) are JSON as everywhere, ?format=csv or not."""
        if request.method == "OPTIONS" or response.status_code >= 400:
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        parameters=[ReportQuery, OpenApiParameter("format", str, enum=["json", "csv"], description="csv: the report as CSV.")],
        responses={(200, "application/json"): ReportSerializer, (200, "text/csv"): OpenApiTypes.STR},
    )
    def get(self, request):
        query = ReportQuery(data=query_data(request))  # an empty parameter is refused, as any value that is not one
        query.is_valid(raise_exception=True)
        params = query.validated_data
        data = report(group=params["group"], filters=Filters(start=params["start"], end=params["end"],
                                                             table=params.get("table"), dealer=params.get("dealer")))
        # The selector's answer is already JSON's types (decimal strings, integers, null), as
        # ReportSerializer documents it; a year by day is some 5,000 spot objects, which DRF's
        # field-by-field serialization would take longer to copy than the database to sum.
        return Response(data)
