"""The integrity API: every table's and dealer's checks, alerts, and acknowledging one (supervisors
only); a round's record (supervisors, and the players who bet in it)."""
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

import engine.integrity as ig
from studio.fields import TextField
from studio.parsers import query_data
from studio.roles import IsSupervisor

from . import record, selectors, services
from .serializers import RoundRecordSerializer

STATUSES = [ig.OK, ig.WATCH, ig.ALERT]


class CheckSerializer(serializers.Serializer):
    check = serializers.CharField(help_text="The check's name (docs/INTEGRITY.md).")
    signal = serializers.CharField(help_text="What it counts each round.")
    statistic = serializers.IntegerField(help_text="CUSUM score (hundredths of a log-likelihood ratio); card_absent: rounds.")
    threshold = serializers.IntegerField(help_text="The statistic that raises an alert.")
    watch = serializers.IntegerField(help_text="The statistic from which the status is `watch`.")
    status = serializers.ChoiceField(choices=STATUSES, help_text="`alert` while an alert of the check is open.")
    alert = serializers.IntegerField(allow_null=True, help_text="The open alert's id, if any.")
    description = serializers.CharField()


class TableChecksSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    name = serializers.CharField()
    rounds = serializers.IntegerField(help_text="Rounds counted.")
    checks = CheckSerializer(many=True)


class DealerChecksSerializer(serializers.Serializer):
    dealer = serializers.IntegerField()
    name = serializers.CharField(help_text="The dealer's username.")
    rounds = serializers.IntegerField(help_text="Rounds counted for the results checks.")
    operational_rounds = serializers.IntegerField(help_text="Rounds counted for the operational checks.")
    checks = CheckSerializer(many=True)


class BaselineSerializer(serializers.Serializer):
    rounds = serializers.IntegerField()
    corrections = serializers.IntegerField()
    voids = serializers.IntegerField()
    timed = serializers.IntegerField()
    refused_scans = serializers.IntegerField(help_text="Unreadable or duplicate cards refused at person-dealt rounds.")
    cards = serializers.IntegerField(help_text="Cards dealt at person-dealt rounds.")
    refused_per_100_cards = serializers.FloatField(allow_null=True, help_text="The studio's refused scans per 100 cards.")
    ready = serializers.BooleanField(help_text="Enough rounds for the operational checks to run.")


class IntegritySerializer(serializers.Serializer):
    tables = TableChecksSerializer(many=True)
    dealers = DealerChecksSerializer(many=True)
    baseline = BaselineSerializer()


class AlertSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    subject = serializers.ChoiceField(choices=["table", "dealer", "operator"])
    table = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField(allow_null=True)
    operator = serializers.IntegerField(allow_null=True, help_text="An operator's wallet transactions unacknowledged too long (docs/OPERATORS.md).")
    name = serializers.CharField(help_text="The table's name, the dealer's username or the operator's code.")
    check = serializers.CharField()
    statistic = serializers.IntegerField(help_text="The statistic when the alert was raised.")
    threshold = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True, help_text="The round after which it was raised.")
    raised_at = serializers.DateTimeField()
    acknowledged_at = serializers.DateTimeField(allow_null=True)
    acknowledged_by = serializers.CharField(allow_null=True)
    note = serializers.CharField(allow_blank=True)


class AlertQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=["open", "acknowledged"], required=False)


class AcknowledgeInput(serializers.Serializer):
    note = TextField(max_length=2000, help_text="What was found or done.")


class IntegrityView(APIView):
    """Every table's and every monitored dealer's checks: statistic, threshold, status."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(responses=IntegritySerializer)
    def get(self, request):
        return Response(selectors.integrity_overview())


class AlertListView(APIView):
    """Alerts, newest first (`?status=open` or `acknowledged`)."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(parameters=[AlertQuery], responses=AlertSerializer(many=True))
    def get(self, request):
        query = AlertQuery(data=query_data(request))  # `?status=` is refused, as any value that is not one
        query.is_valid(raise_exception=True)
        return Response(selectors.alerts(status=query.validated_data.get("status")))


class AlertAcknowledgeView(APIView):
    """Acknowledge an open alert with a note (409 `alert_acknowledged` if it already was)."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(request=AcknowledgeInput, responses=AlertSerializer)
    def post(self, request, pk):
        data = AcknowledgeInput(data=request.data)
        data.is_valid(raise_exception=True)
        alert = services.alert_acknowledge(alert_id=pk, actor=request.user, note=data.validated_data["note"])
        return Response(selectors.alert_info(alert))


class RoundRecordView(APIView):
    """A round's self-contained record: its settings, dealer and shift, cards with their times,
    incidents, corrections, bets per spot, settlement or void, and its chain links, which
    scripts/verify_round_record.py checks offline (docs/AUDIT.md). Supervisors, and the players
    who bet in the round; 404 for anyone else."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=RoundRecordSerializer)
    def get(self, request, pk):
        rnd = record.record_round_or_404(round_id=pk, user=request.user)
        return Response(RoundRecordSerializer(record.round_record(rnd)).data)
