"""The incidents API (the supervisor console calls exactly these, with the same checks)."""
import csv
import io
import itertools
import re
from decimal import Decimal

from django.db.models import BooleanField, Count, OuterRef, Q, Subquery, Sum
from django.db.models.expressions import RawSQL
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from bets.models import Bet
from studio.errors import NotFound
from studio.fields import TextField, WholeNumberField
from studio.money import MoneyField, parse_whole
from studio.parsers import query_data
from studio.roles import IsDealer, IsSupervisor
from tables.access import require_round_visible, round_or_404
from tables.models import Incident, Round, Table
from tables.selectors import round_detail
from tables.serializers import RoundSerializer

from . import services as incidents
from .selectors import floor


class IncidentSerializer(serializers.ModelSerializer):
    raised_by = serializers.CharField(source="raised_by.username")
    resolved_by = serializers.CharField(source="resolved_by.username", default=None, allow_null=True)
    table = serializers.IntegerField(source="round.table_id")
    round_status = serializers.CharField(source="round.status")

    class Meta:
        model = Incident
        fields = ["id", "round", "table", "round_status", "kind", "status", "notes", "paused_round", "raised_by",
                  "created_at", "resolved_at", "resolved_by", "resolution"]


class RaiseInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Incident.Kind.choices)
    notes = TextField(required=False, allow_blank=True, default="", max_length=2000)


class NoteInput(serializers.Serializer):
    text = TextField(max_length=2000)


class VoidInput(serializers.Serializer):
    reason = TextField(max_length=500)


class ResumeInput(serializers.Serializer):
    resolution = TextField(required=False, allow_blank=True, default="", max_length=500)


class ReplaceInput(serializers.Serializer):
    position = WholeNumberField(min_value=1, max_value=49)
    card = TextField(max_length=16)


MAX_ID = 2**63 - 1  # BIGINT


class SearchQuery(serializers.Serializer):
    q = serializers.CharField(required=False, max_length=100, help_text="Free text; a number also finds that id.")


class IncidentQuery(SearchQuery):
    status = serializers.ChoiceField(choices=Incident.Status.choices, required=False)


class RoundQuery(SearchQuery):
    table = WholeNumberField(required=False, min_value=1, max_value=MAX_ID, help_text="A table's id.")
    status = serializers.ChoiceField(choices=Round.Status.choices, required=False)


def _query(serializer_class, request) -> dict:
    """The query parameters, validated before any query runs (400 with field errors): an empty one
    (`?status=`) is refused like any other value that is not one; the consoles leave out what is not set."""
    data = serializer_class(data=query_data(request))
    data.is_valid(raise_exception=True)
    return data.validated_data


def _id_search(q: str) -> int | None:
    """The id a search text names, if it is one (by the one whole-number parser: "²" and "١" are not)."""
    try:
        number = parse_whole(q)
    except ValueError:
        return None
    return number if number <= MAX_ID else None


def _incident(incident_id, code=status.HTTP_200_OK):
    obj = Incident.objects.select_related("raised_by", "resolved_by", "round").get(pk=incident_id)
    return Response(IncidentSerializer(obj).data, status=code)


def _input(serializer_class, request):
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return data.validated_data


def _exists(model, pk):
    if not model.objects.filter(pk=pk).exists():
        raise NotFound(f"No such {model._meta.verbose_name}.", code="not_found")


def _amount(help_text: str) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=20, decimal_places=2, help_text=help_text)


class FloorIncidentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField()
    round_status = serializers.CharField()
    kind = serializers.ChoiceField(choices=Incident.Kind.choices)
    created_at = serializers.DateTimeField()
    raised_by = serializers.CharField(help_text="The username of whoever raised it.")
    notes = serializers.IntegerField(help_text="How many notes it has.")


class FloorRoundSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Round.Status.choices)
    joker = serializers.CharField()
    first_side = serializers.CharField()
    winner = serializers.CharField(allow_null=True)
    cards_dealt = serializers.IntegerField()
    opened_at = serializers.DateTimeField()
    closes_at = serializers.DateTimeField()
    betting_left_ms = serializers.IntegerField(help_text="Betting time left (held while paused); 0 once closed.")
    last_card_at = serializers.DateTimeField(allow_null=True, help_text="When the latest card was dealt; null before the first.")
    silent_seconds = serializers.FloatField(
        allow_null=True, help_text="While dealing: seconds since the latest card (or since betting closed); else null.")
    expected_seconds = serializers.FloatField(
        help_text="The longest a dealing round may go without a card: FLOOR_SILENCE_SECONDS at a person's table, "
                  "five deal intervals (at least 3 s) at a virtual or match table.")
    stalled = serializers.BooleanField(help_text="Dealing, and silent for longer than expected_seconds.")
    dealer = serializers.CharField(allow_null=True)
    players = serializers.IntegerField(help_text="Players with a live (not cancelled) bet in the round.")
    bets = serializers.IntegerField(help_text="Live bets in the round.")
    staked = _amount("Every live bet's stake.")
    worst_payout = _amount("The most the bets would be paid back (stakes and winnings) on any outcome still possible.")
    exposure = _amount("What the house would lose on the worst outcome still possible: worst_payout less staked, "
                       "never below 0; 0 for a voided round.")


class FloorShiftSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    dealer = serializers.CharField(help_text="The dealer's username.")
    started_at = serializers.DateTimeField()
    seconds = serializers.IntegerField(help_text="How long the shift has lasted so far.")
    rotation_due = serializers.BooleanField(help_text="On shift for the table's shift_minutes or longer.")
    rounds = serializers.IntegerField(help_text="Rounds of the shift settled so far.")
    turnover = _amount("Their stakes.")
    ggr = _amount("The house's gross gaming revenue from them: stakes less what was paid back.")


class FloorTableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    driver = serializers.CharField(help_text="person, virtual or match (tables.access).")
    currency = serializers.CharField()
    min_bet = _amount("The table's lowest round total per player.")
    max_bet = _amount("The table's highest round total per player.")
    betting_seconds = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Table.State.choices, help_text="open, closed or maintenance.")
    state_reason = serializers.CharField(help_text="Why it is closed or under maintenance; empty when open.")
    shift_minutes = serializers.IntegerField(help_text="The table's shift length: a longer shift is a rotation due.")
    on_shift = FloorShiftSerializer(allow_null=True, help_text="The dealer on shift, or null (no one, or the virtual dealer).")
    round = FloorRoundSerializer(allow_null=True, help_text="The open round, else the latest one; null before any.")
    incidents = FloorIncidentSerializer(many=True, help_text="The table's open incidents (any of its rounds), oldest first.")


class FloorView(APIView):
    """Supervisors: every table at once, each with its current round (status, joker, cards, the latest
    card's time), its players, stakes and exposure, and its open incidents; one request for the floor."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(responses=FloorTableSerializer(many=True))
    def get(self, request):
        return Response(FloorTableSerializer(floor(user=request.user), many=True).data)


class RoundIncidentsView(APIView):
    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(responses=IncidentSerializer(many=True))
    def get(self, request, pk):
        round_or_404(round_id=pk, user=request.user)
        rows = Incident.objects.filter(round_id=pk).select_related("raised_by", "resolved_by", "round")
        return Response(IncidentSerializer(rows, many=True).data)

    @extend_schema(request=RaiseInput, responses={201: IncidentSerializer})
    def post(self, request, pk):
        round_or_404(round_id=pk, user=request.user)
        data = _input(RaiseInput, request)
        incident = incidents.incident_raise(round_id=pk, actor=request.user, kind=data["kind"], notes=data["notes"])
        return _incident(incident.pk, status.HTTP_201_CREATED)


class IncidentListView(APIView):
    """Supervisors: incidents, newest first; ?status=open, ?q= searches notes, kind, table name, round id."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(parameters=[IncidentQuery], responses=IncidentSerializer(many=True))
    def get(self, request):
        params = _query(IncidentQuery, request)
        rows = Incident.objects.select_related("raised_by", "resolved_by", "round", "round__table").order_by("-id")
        if params.get("status"):
            rows = rows.filter(status=params["status"])
        q = params.get("q", "")
        if q:
            cond = Q(kind__icontains=q) | _incident_says(q) | Q(round__table__name__icontains=q)
            if (number := _id_search(q)) is not None:
                cond |= Q(round_id=number) | Q(pk=number)
            rows = rows.filter(cond)
        return Response(IncidentSerializer(rows[:200], many=True).data)


class IncidentDetailView(APIView):
    """An incident with its round: cards, bet totals per spot, players."""

    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(responses=IncidentSerializer)
    def get(self, request, pk):
        _exists(Incident, pk)
        body = _incident(pk).data
        rnd = Round.objects.select_related("dealer").get(pk=body["round"])
        require_round_visible(rnd=rnd, user=request.user)
        bets = Bet.objects.filter(round=rnd).exclude(status=Bet.Status.CANCELLED)
        body["round_detail"] = RoundSerializer(round_detail(rnd)).data
        body["bets_per_spot"] = [
            {"spot": r["spot"], "count": r["n"], "staked": str(r["staked"]), "paid": str(r["paid"])}
            for r in bets.order_by().values("spot").annotate(n=Count("id"), staked=Sum("amount"), paid=Sum("payout")).order_by("spot")
        ]
        body["players"] = [
            {"player": r["player__username"], "bets": r["n"], "staked": str(r["staked"])}
            for r in bets.order_by().values("player__username").annotate(n=Count("id"), staked=Sum("amount")).order_by("player__username")[:500]
        ]
        return Response(body)


def incident_round(request, pk, **kwargs):
    """The round's share a change of incident `pk` takes (studio.routes): its round's; none for no such incident."""
    round_id = Incident.objects.filter(pk=pk).values_list("round_id", flat=True).first()
    return None if round_id is None else ("round", round_id)


class IncidentNoteView(APIView):
    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(request=NoteInput, responses=IncidentSerializer)
    def post(self, request, pk):
        _exists(Incident, pk)
        incidents.incident_add_note(incident_id=pk, actor=request.user, text=_input(NoteInput, request)["text"])
        return _incident(pk)


class IncidentResumeView(APIView):
    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(request=ResumeInput, responses=IncidentSerializer)
    def post(self, request, pk):
        _exists(Incident, pk)
        incidents.incident_resume(incident_id=pk, actor=request.user, resolution=_input(ResumeInput, request)["resolution"])
        return _incident(pk)


class IncidentVoidView(APIView):
    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(request=VoidInput, responses=IncidentSerializer)
    def post(self, request, pk):
        _exists(Incident, pk)
        incidents.incident_void(incident_id=pk, actor=request.user, reason=_input(VoidInput, request)["reason"])
        return _incident(pk)


class CardReplaceView(APIView):
    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(request=ReplaceInput, responses=RoundSerializer)
    def post(self, request, pk):
        _exists(Round, pk)
        data = _input(ReplaceInput, request)
        rnd = incidents.card_replace(round_id=pk, position=data["position"], card=data["card"], actor=request.user)
        return Response(RoundSerializer(round_detail(rnd)).data)


class CardRemoveLastView(APIView):
    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(request=None, responses=RoundSerializer)
    def post(self, request, pk):
        _exists(Round, pk)
        rnd = incidents.card_remove_last(round_id=pk, actor=request.user)
        return Response(RoundSerializer(round_detail(rnd)).data)


def _incident_says(q: str) -> Q:
    """An incident whose notes (their texts, not their times or authors) or resolution (a void's
    reason) contain `q`, any case."""
    like = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    in_notes = RawSQL("EXISTS (SELECT 1 FROM jsonb_array_elements(notes) AS n WHERE n->>'text' ILIKE %s)", [like],
                      output_field=BooleanField())
    return Q(in_notes) | Q(resolution__icontains=q)


def _rounds_noted(q: str):
    """The rounds one of whose incidents says `q` (_incident_says)."""
    return Incident.objects.filter(_incident_says(q)).values("round_id")


def _round_rows(params: dict):
    """The rounds matching RoundQuery's validated parameters, newest first, with their totals."""
    live = Bet.objects.filter(round=OuterRef("pk")).exclude(status=Bet.Status.CANCELLED).order_by().values("round")
    rows = Round.objects.annotate(
        incident_count=Subquery(Incident.objects.filter(round=OuterRef("pk")).order_by().values("round")
                                .annotate(n=Count("id")).values("n")[:1]),
        live_bets=Subquery(live.annotate(n=Count("id")).values("n")[:1]),
        live_staked=Subquery(live.annotate(s=Sum("amount")).values("s")[:1], output_field=MoneyField()),
    ).order_by("-id")
    if params.get("table"):
        rows = rows.filter(table_id=params["table"])
    if params.get("status"):
        rows = rows.filter(status=params["status"])
    q = params.get("q", "")
    if q:
        # as the search box promises: a round, its table, joker, winner or dealer, and what its incidents say
        # (their notes, and their resolution: a void's reason)
        cond = (Q(table__name__icontains=q) | Q(joker__iexact=q) | Q(winner__iexact=q) | Q(dealer__username__icontains=q)
                | Q(pk__in=_rounds_noted(q)))
        if (number := _id_search(q)) is not None:
            cond |= Q(pk=number)
        rows = rows.filter(cond)
    # Only the columns' values, not model instances: an export of 60,000 rounds builds in a fifth of the time.
    return rows.values(*ROW_FIELDS)


ROUND_COLUMNS = ["id", "table", "status", "joker", "first_side", "winner", "cards_dealt", "opened_at", "finished_at",
                 "settled_at", "bets", "staked", "paid", "house_result", "incidents", "dealer"]
ROW_FIELDS = ("id", "table__name", "status", "joker", "first_side", "winner", "cards_dealt", "opened_at", "finished_at",
              "settled_at", "bet_count", "total_staked", "total_paid", "live_bets", "live_staked", "incident_count",
              "dealer__username")


def _round_row(r: dict) -> list:
    """Totals as settled (or refunded); for a round still open or awaiting settlement, the stakes so far."""
    done = r["status"] in (Round.Status.SETTLED, Round.Status.VOIDED)
    if done:
        bets, staked, paid = r["bet_count"], r["total_staked"], r["total_paid"]
    else:
        bets, staked, paid = r["live_bets"] or 0, r["live_staked"] or Decimal("0.00"), Decimal("0.00")
    return [r["id"], r["table__name"], r["status"], r["joker"], r["first_side"], r["winner"], r["cards_dealt"],
            r["opened_at"].isoformat(), r["finished_at"].isoformat() if r["finished_at"] else "",
            r["settled_at"].isoformat() if r["settled_at"] else "", bets, str(staked), str(paid),
            str(staked - paid) if done else "", r["incident_count"] or 0, r["dealer__username"] or ""]


class RoundRowSerializer(serializers.Serializer):
    """A row of the history: the CSV export's columns, with the same values."""

    id = serializers.IntegerField()
    table = serializers.CharField(help_text="The table's name.")
    status = serializers.CharField()
    joker = serializers.CharField()
    first_side = serializers.CharField()
    winner = serializers.CharField(help_text="andar, bahar, or empty while undecided.")
    cards_dealt = serializers.IntegerField()
    opened_at = serializers.CharField(help_text="ISO 8601.")
    finished_at = serializers.CharField(help_text="ISO 8601, or empty.")
    settled_at = serializers.CharField(help_text="ISO 8601, or empty.")
    bets = serializers.IntegerField()
    staked = serializers.CharField()
    paid = serializers.CharField()
    house_result = serializers.CharField(help_text="Staked less paid once settled or voided, else empty.")
    incidents = serializers.IntegerField()
    dealer = serializers.CharField(help_text="The dealer's username, or empty.")


class RoundHistoryView(APIView):
    """Supervisors: searchable history of rounds (?q=, ?table=, ?status=), newest first, with totals."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(parameters=[RoundQuery], responses=RoundRowSerializer(many=True))
    def get(self, request):
        rows = _round_rows(_query(RoundQuery, request))[:200]
        return Response([dict(zip(ROUND_COLUMNS, _round_row(r), strict=True)) for r in rows])


_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may run as a formula (OWASP, CSV injection)
EXPORT_CHUNK = 64 * 1024  # bytes a piece of the CSV export: a write per row would be 60,000 writes for 60,000 rounds


def csv_cell(value):
    """A cell as a spreadsheet may open it safely: numbers (negative amounts included) stay numbers;
    text that a spreadsheet would run as a formula gets a leading quote, as OWASP recommends."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS) or _NUMBER.fullmatch(value):
        return value
    return "'" + value


class RoundExportView(APIView):
    """Supervisors: every round matching the same filters, as CSV, streamed."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(parameters=[RoundQuery], responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request):
        rows = _round_rows(_query(RoundQuery, request)).iterator(chunk_size=2000)
        first = next(rows, None)  # the query runs before the answer starts: a failure is an error, not a cut file

        def lines():
            """The file in pieces of about EXPORT_CHUNK bytes: each piece is one write to the client."""
            text = io.StringIO()
            writer = csv.writer(text)
            writer.writerow(ROUND_COLUMNS)
            for r in itertools.chain([first], rows) if first is not None else ():
                writer.writerow([csv_cell(cell) for cell in _round_row(r)])
                if text.tell() >= EXPORT_CHUNK:
                    yield text.getvalue()
                    text.seek(0)
                    text.truncate()
            yield text.getvalue()

        response = StreamingHttpResponse(lines(), content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="rounds.csv"'
        return response
