"""The tables and rounds API: one view per operation, each calling one service."""
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.permissions import SAFE_METHODS, AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.errors import NotFound
from studio.fields import WholeNumberField
from studio.pagination import Pages
from studio.parsers import query_data
from studio.roles import IsDealer, IsSupervisor
from studio.times import utc_ms

from . import services, shifts, shoes
from .access import round_or_404, table_or_404, visible_tables, with_driver
from engine import odds, payout_table, percent4
from .changes import API
from .lobby import lobby
from .models import Round, RoundEvent, Shift, Table, TableChange
from .selectors import change_row, round_current, round_detail, studio_changes, table_changes
from .snapshot import table_snapshot
from .stats import table_stats
from .serializers import (
    CardSerializer, ChangeSerializer, DealtCardSerializer, JokerSerializer, RoundEventSerializer, RoundSerializer,
    ShiftSerializer, ShoeSerializer, SpotOddsSerializer, StateSerializer, StatsQuerySerializer, TableRulesSerializer, TableSerializer,
    TableShiftsSerializer, TableStatsSerializer,
)


class ReadAnyoneWriteSupervisor(IsSupervisor):
    def has_permission(self, request, view):
        return request.method in SAFE_METHODS or super().has_permission(request, view)


class TableListView(generics.ListCreateAPIView):
    """The studio's tables; private match tables are listed to supervisors only."""

    serializer_class = TableSerializer
    permission_classes = [ReadAnyoneWriteSupervisor]
    pagination_class = None

    def get_queryset(self):
        return with_driver(visible_tables(self.request.user))

    def perform_create(self, serializer):
        """Through the service: the new table is a row of the change log."""
        serializer.instance = services.table_create(table=Table(**serializer.validated_data), actor=self.request.user, source=API)


class TableDetailView(generics.RetrieveUpdateAPIView):
    """A table; a private match table only to its players and supervisors (404 for anyone else).
    PATCH (supervisors): its settings and limits, each change a row of the change log."""

    serializer_class = TableSerializer
    permission_classes = [ReadAnyoneWriteSupervisor]
    http_method_names = ["get", "patch", "head", "options"]

    def get_queryset(self):
        return visible_tables(self.request.user)

    def perform_update(self, serializer):
        serializer.instance, _ = services.table_update(table_id=serializer.instance.pk, changes=serializer.validated_data,
                                                       actor=self.request.user, source=API)


class TableStateView(APIView):
    """Supervisors: open, close or put the table under maintenance (with a reason, which players
    read). A closed or maintenance table opens no new round (409 `table_closed`); a running round finishes."""

    permission_classes = [IsAuthenticated, IsSupervisor]

    @extend_schema(request=StateSerializer, responses=TableSerializer)
    def post(self, request, pk):
        table_or_404(table_id=pk, user=request.user)
        data = StateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = services.table_state_set(table_id=pk, state=data.validated_data["state"], reason=data.validated_data["reason"],
                                         actor=request.user)
        return Response(TableSerializer(with_driver(Table.objects.filter(pk=table.pk)).get()).data)


class TableShiftsView(APIView):
    """GET (dealers, supervisors): who is on shift at the table, for how long, and its latest
    shifts. POST: sign in to the table (201 a new shift; 200 when already on shift there), which
    ends the previous dealer's shift there and the caller's own shift at another table."""

    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(responses=TableShiftsSerializer)
    def get(self, request, pk):
        table = table_or_404(table_id=pk, user=request.user)
        recent = list(Shift.objects.filter(table=table).select_related("dealer").order_by("-id")[:20])
        current = next((s for s in recent if s.ended_at is None), None)
        info = lambda s: shifts.shift_info(s, minutes=table.shift_minutes)  # noqa: E731
        return Response(TableShiftsSerializer({"current": info(current), "shoe": shoes.shoe_latest(table_id=table.pk),
                                               "shift_minutes": table.shift_minutes,
                                               "recent": [info(s) for s in recent]}).data)

    @extend_schema(request=None, responses={201: ShiftSerializer, 200: ShiftSerializer})
    def post(self, request, pk):
        table = table_or_404(table_id=pk, user=request.user)
        shift, new = shifts.shift_start(table_id=pk, dealer=request.user)
        return Response(ShiftSerializer(shifts.shift_info(shift, minutes=table.shift_minutes)).data,
                        status=status.HTTP_201_CREATED if new else status.HTTP_200_OK)


class TableShoesView(APIView):
    """POST (the dealer on shift at the table, or a supervisor): a new shoe is in play. Recorded in
    the table's change log (field `shoe`); 201 with its number, who and when. 409 `dealer_on_shift`
    for a dealer not on shift there, 409 `virtual_table` at a virtual or match table."""

    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(request=None, responses={201: ShoeSerializer})
    def post(self, request, pk):
        table_or_404(table_id=pk, user=request.user)
        change = shoes.shoe_change(table_id=pk, actor=request.user)
        return Response(ShoeSerializer(shoes.shoe_info(change)).data, status=status.HTTP_201_CREATED)


class ShiftEndView(APIView):
    """Sign out (the dealer on shift) or end a dealer's shift (a supervisor); 409 `shift_ended` once over."""

    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(request=None, responses=ShiftSerializer)
    def post(self, request, pk):
        shift = shifts.shift_end(shift_id=pk, actor=request.user)
        return Response(ShiftSerializer(shifts.shift_info(shift, minutes=shift.table.shift_minutes)).data)


class ChangePages(Pages):
    page_size_query_param = "page_size"
    max_page_size = 200


class _ChangeListView(generics.ListAPIView):
    permission_classes = [IsAuthenticated, IsSupervisor]
    pagination_class = ChangePages
    serializer_class = ChangeSerializer

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(ChangeSerializer([change_row(r) for r in page], many=True).data)


class TableChangesView(_ChangeListView):
    """Supervisors: the table's change log (settings, limits, state, driver, dealer on shift): who,
    when, what, old and new value; newest first, paginated (`?page=`, `?page_size=` up to 200)."""

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema's generator: no request to read
            return TableChange.objects.none()
        table = table_or_404(table_id=self.kwargs["pk"], user=self.request.user)
        return table_changes(table_id=table.pk)


class ChangesView(_ChangeListView):
    """Supervisors: the studio's change log, every table's and the access record's (roles,
    permissions, passwords), newest first, paginated (`?page=`, `?page_size=` up to 200)."""

    def get_queryset(self):
        return studio_changes()


def _fraction(value) -> str:
    """An exact probability as the API writes it: 429/833."""
    return f"{value.numerator}/{value.denominator}"


class TableOddsView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=SpotOddsSerializer(many=True))
    def get(self, request, pk):
        table = table_or_404(table_id=pk, user=request.user)
        rows = [
            {
                "spot": o.spot,
                "probability": _fraction(o.probability),
                "payout": str(o.payout),
                **_returns(o),
                "outcomes": [{"probability": _fraction(p), "payout": str(x)} for p, x in o.outcomes],
            }
            for o in odds(table.engine_config())
        ]
        return Response(rows)


def _returns(o) -> dict:
    """A spot's exact return with the table's multipliers, without them (null: the spot cannot be
    multiplied), and whether it returns 100% or more (allowed, and flagged)."""
    return {"rtp": percent4(o.rtp),
            "rtp_without_multipliers": None if o.rtp_without_multipliers is None else percent4(o.rtp_without_multipliers),
            "rtp_at_least_100": o.rtp >= 1}


def multipliers_rules(config) -> dict | None:
    """A table's multiplier setting as players read it: the spots, how many are drawn, each value's chance."""
    setting = config.multipliers
    if setting is None:
        return None
    return {"spots": list(setting.spots), "draws": setting.draws, "expected": _fraction(setting.expected),
            "values": [{"multiplier": m, "weight": w, "chance": _fraction(setting.chance(m))} for m, w in setting.values]}


class TableRulesView(APIView):
    """The table's rules as configured now: its settings and limits, and every bet offered with what
    it pays and its exact return to player (the engine's odds). A round keeps the settings it opened with."""

    permission_classes = [AllowAny]

    @extend_schema(responses=TableRulesSerializer)
    def get(self, request, pk):
        table = table_or_404(table_id=pk, user=request.user)
        config = table.engine_config()
        pays = payout_table(config)
        settings = table.snapshot()
        spots = [{"spot": o.spot, "pays": pays[o.spot], "probability": _fraction(o.probability), **_returns(o)}
                 for o in odds(config)]
        return Response(TableRulesSerializer({"table": table.pk, "name": table.name, **settings, "spots": spots,
                                              "multipliers": multipliers_rules(config)}).data)


class TableStatsView(APIView):
    """The table's last N rounds beside what the exact odds expect (tables/stats.py)."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=[StatsQuerySerializer], responses=TableStatsSerializer)
    def get(self, request, pk):
        table = table_or_404(table_id=pk, user=request.user)
        query = StatsQuerySerializer(data=query_data(request))
        query.is_valid(raise_exception=True)
        return Response(TableStatsSerializer(table_stats(table=table, last=query.validated_data["last"])).data)


def _round_response(rnd_id: int, code=status.HTTP_200_OK) -> Response:
    rnd = Round.objects.select_related("dealer").get(pk=rnd_id)
    return Response(RoundSerializer(round_detail(rnd)).data, status=code)


class RecentRoundsQuery(serializers.Serializer):
    last = WholeNumberField(min_value=1, max_value=20, default=20, help_text="How many of the newest rounds (1 to 20).")


class LobbyRoundSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    closes_at = serializers.DateTimeField()
    betting_left_ms = serializers.IntegerField(help_text="While betting: the time left; paused: the time it will have; else 0.")
    winner = serializers.CharField(allow_null=True)
    cards_dealt = serializers.IntegerField()


class LobbyTableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    state = serializers.CharField()
    state_reason = serializers.CharField()
    driver = serializers.CharField(help_text="person, virtual or match.")
    currency = serializers.CharField()
    min_bet = serializers.DecimalField(max_digits=20, decimal_places=2)
    max_bet = serializers.DecimalField(max_digits=20, decimal_places=2)
    mode = serializers.CharField()
    side_bets = serializers.ListField(child=serializers.CharField())
    multipliers = serializers.DictField(allow_null=True, help_text="Random multipliers: draws a round, spots, the highest; null: none.")
    private = serializers.BooleanField()
    round = LobbyRoundSerializer(allow_null=True, help_text="The current round, else the latest; null before the first.")
    players = serializers.IntegerField(help_text="Players with a bet standing in that round.")
    road = serializers.ListField(child=serializers.DictField(), help_text="The last 12 results, oldest first: winner and cards dealt.")


class LobbyView(APIView):
    """Every table the caller may see, at a glance (tables/lobby.py); anyone may read it. The lobby's
    stream (ws/lobby/) sends the same on connect, then each change."""

    permission_classes = [AllowAny]

    @extend_schema(responses=LobbyTableSerializer(many=True))
    def get(self, request):
        return Response(LobbyTableSerializer(lobby(user=request.user), many=True).data)


class TableRoundsView(APIView):
    """GET: the table's recent rounds; POST (dealer): open a round with its joker."""

    def get_permissions(self):
        return [AllowAny()] if self.request.method in SAFE_METHODS else [IsAuthenticated(), IsDealer()]  # HEAD as GET

    @extend_schema(parameters=[RecentRoundsQuery], responses=RoundSerializer(many=True))
    def get(self, request, pk):
        table = table_or_404(table_id=pk, user=request.user)
        query = RecentRoundsQuery(data=query_data(request))
        query.is_valid(raise_exception=True)
        rounds = Round.objects.filter(table=table).select_related("dealer").order_by("-id")[:query.validated_data["last"]]
        return Response(RoundSerializer([round_detail(r) for r in rounds], many=True).data)

    @extend_schema(request=JokerSerializer, responses={201: RoundSerializer})
    def post(self, request, pk):
        table_or_404(table_id=pk, user=request.user)
        data = JokerSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rnd = services.round_open(table_id=pk, joker=data.validated_data["joker"], dealer=request.user)
        return _round_response(rnd.pk, status.HTTP_201_CREATED)


class TableCurrentRoundView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=RoundSerializer)
    def get(self, request, pk):
        table = table_or_404(table_id=pk, user=request.user)
        rnd = round_current(table=table) or Round.objects.filter(table=table).order_by("-id").first()
        if rnd is None:
            raise NotFound("No round has been played at this table yet.", code="not_found")
        return _round_response(rnd.pk)


class TableStreamSnapshotView(APIView):
    """The same snapshot a watcher gets on connect: call it after a gap in `seq` and carry on."""

    permission_classes = [AllowAny]

    @extend_schema(responses=inline_serializer("StreamSnapshot", {
        "type": serializers.CharField(), "seq": serializers.IntegerField(), "table": serializers.DictField(),
        "round": serializers.DictField(allow_null=True), "history": serializers.ListField(child=serializers.DictField()),
    }))
    def get(self, request, pk):
        table_or_404(table_id=pk, user=request.user)
        snapshot = table_snapshot(table_id=pk)
        if snapshot is None:
            raise NotFound("No such table.", code="not_found")
        return Response(snapshot)


class RoundDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=RoundSerializer)
    def get(self, request, pk):
        round_or_404(round_id=pk, user=request.user)
        return _round_response(pk)


class RoundCloseBettingView(APIView):
    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(request=None, responses=RoundSerializer)
    def post(self, request, pk):
        round_or_404(round_id=pk, user=request.user)
        services.round_close_betting(round_id=pk, actor=request.user, reason="dealer")
        return _round_response(pk)


class RoundCardsView(APIView):
    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(request=CardSerializer, responses={201: DealtCardSerializer})
    def post(self, request, pk):
        data = CardSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # 404 for a round the dealer may not see: checked by the service on the round it locks
        dealt, match = services.card_deal(round_id=pk, card=data.validated_data["card"], actor=request.user)
        return Response({"position": dealt.position, "side": dealt.side, "card": dealt.card, "match": match,
                         "dealt_at": utc_ms(dealt.dealt_at)},
                        status=status.HTTP_201_CREATED)


class RoundAuditView(APIView):
    permission_classes = [IsAuthenticated, IsDealer]

    @extend_schema(responses=RoundEventSerializer(many=True))
    def get(self, request, pk):
        round_or_404(round_id=pk, user=request.user)
        events = RoundEvent.objects.filter(round_id=pk).select_related("actor").order_by("id")
        return Response(RoundEventSerializer(events, many=True).data)


