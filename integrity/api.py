"""The integrity API: every table's and dealer's checks, alerts, and acknowledging one (supervisors
only); a round's record (supervisors, and the players who bet in it); the public round log
(anyone)."""
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

import engine.integrity as ig
from studio.fields import TextField, WholeNumberField
from studio.parsers import JSONParser, query_data, require_json
from studio.roles import IsSupervisor

from . import publiclog, record, selectors, services
from .serializers import RoundRecordSerializer

STATUSES = [ig.OK, ig.WATCH, ig.ALERT]


class CheckSerializer(serializers.Serializer):
    check = serializers.CharField(help_text="The check's name (docs/INTEGRITY.md).")
    statistic = serializers.IntegerField(help_text="CUSUM score (hundredths of a log-likelihood ratio); card_absent: rounds.")
    threshold = serializers.IntegerField(help_text="The statistic that raises an alert.")
    watch = serializers.IntegerField(help_text="The statistic from which the status is `watch`.")
    progress = serializers.IntegerField(help_text="How far the check is on its way to an alert: the statistic as a whole "
                                        "percentage of the threshold, rounded down (100 and more: reached).")
    status = serializers.ChoiceField(choices=STATUSES, help_text="`alert` while an alert of the check is open.")
    alert = serializers.IntegerField(allow_null=True, help_text="The open alert's id, if any.")


class TableChecksSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    name = serializers.CharField()
    rounds = serializers.IntegerField(help_text="Rounds counted.")
    status = serializers.ChoiceField(choices=STATUSES, help_text="The table's worst check's status.")
    checks = CheckSerializer(many=True)


class DealerChecksSerializer(serializers.Serializer):
    dealer = serializers.IntegerField()
    name = serializers.CharField(help_text="The dealer's username.")
    rounds = serializers.IntegerField(help_text="Rounds counted for the results checks.")
    operational_rounds = serializers.IntegerField(help_text="Rounds counted for the operational checks.")
    status = serializers.ChoiceField(choices=STATUSES, help_text="The dealer's worst check's status.")
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


# --- the public round log (integrity/publiclog.py, docs/PUBLIC_LOG.md): no login --------------------------

PLAIN = "text/plain; charset=utf-8"
MAX_INDEX = 2 ** 62


class LogCheckpointView(APIView):
    """The log's latest checkpoint: a C2SP signed note (origin, tree size, base64 root hash, a blank
    line, the studio's Ed25519 signature and the witnesses' cosignatures), text/plain."""

    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/plain"): str})
    def get(self, request):
        return HttpResponse(publiclog.latest_checkpoint(), content_type=PLAIN)


class LogKeyView(APIView):
    """The key the checkpoints verify with, as a signed-note verifier key: name+key id+base64(0x01 || key)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/plain"): str})
    def get(self, request):
        return HttpResponse(publiclog.signing_key().verifier() + "\n", content_type=PLAIN)


class LogEntrySerializer(serializers.Serializer):
    index = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True, help_text="null for a private table's round you may not see.")
    leaf = serializers.CharField(allow_null=True, help_text="base64 of the leaf's bytes (the outcome's canonical JSON); null as round.")
    leaf_hash = serializers.CharField(help_text="base64 of SHA-256(0x00 || leaf).")


class LogEntryView(APIView):
    """One leaf of the log, by index (within the latest checkpoint)."""

    permission_classes = [AllowAny]

    @extend_schema(responses=LogEntrySerializer)
    def get(self, request, index):
        return Response(LogEntrySerializer(publiclog.log_entry(index=index, user=request.user)).data)


class InclusionQuery(serializers.Serializer):
    index = WholeNumberField(min_value=0, max_value=MAX_INDEX, help_text="The leaf's index.")
    size = WholeNumberField(min_value=1, max_value=MAX_INDEX, help_text="The tree size (a checkpoint's).")


class ConsistencyQuery(serializers.Serializer):
    from_ = WholeNumberField(min_value=1, max_value=MAX_INDEX, help_text="The older tree size.")
    to = WholeNumberField(min_value=1, max_value=MAX_INDEX, help_text="The newer tree size.")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class ProofSerializer(serializers.Serializer):
    hashes = serializers.ListField(child=serializers.CharField(), help_text="base64 hashes, as RFC 9162 defines the proof.")


class InclusionProofView(APIView):
    """RFC 9162 inclusion proof of leaf `index` in the tree of `size` leaves."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=[InclusionQuery], responses=ProofSerializer)
    def get(self, request):
        query = InclusionQuery(data=query_data(request))
        query.is_valid(raise_exception=True)
        return Response({"hashes": publiclog.inclusion_proof(**query.validated_data)})


class ConsistencyProofView(APIView):
    """RFC 9162 consistency proof from the tree of `from` leaves to the tree of `to` leaves."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=[ConsistencyQuery], responses=ProofSerializer)
    def get(self, request):
        query = ConsistencyQuery(data=query_data(request))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return Response({"hashes": publiclog.consistency_proof(old=data["from"], new=data["to"])})


class CosignatureSerializer(serializers.Serializer):
    checkpoint = TextField(max_length=4000, help_text="The checkpoint as the witness fetched it (a signed note).")
    cosignature = TextField(max_length=500, help_text="The witness's cosignature line (C2SP tlog-cosignature).")


class CosignatureView(APIView):
    """A witness (one of LOG_WITNESSES) hands in its cosignature of a checkpoint; the studio checks it
    and serves it with the checkpoint. No login: the cosignature is the credential."""

    permission_classes = [AllowAny]
    authentication_classes = []
    parser_classes = [JSONParser]

    @extend_schema(request=CosignatureSerializer, responses={201: None})
    def post(self, request):
        require_json(request)
        data = CosignatureSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        publiclog.cosignature_add(checkpoint=data.validated_data["checkpoint"], line=data.validated_data["cosignature"])
        return Response(status=201)
