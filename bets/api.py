"""The bets and wallets API: one view per operation, each calling one service."""
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from django.urls import reverse
from rest_framework.permissions import SAFE_METHODS, AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.errors import InvalidInput, NotAllowed, NotFound
from studio.fields import IdentifierField, WholeNumberField
from studio.pagination import Pages
from studio.parsers import CommonCaseNegotiation, JSONParser, query_data, require_json
from studio.roles import SUPERVISOR, IsPlayer, IsSupervisor, has_role, roles_of
from studio.validators import has_control_characters
from tables.access import round_or_404

from . import seamless, services
from .history import my_rounds, my_rounds_detail
from .ledger import DEFAULT_CURRENCY
from .models import Bet, LedgerEntry, WalletTransaction
from .selectors import my_wallets, operators_overview, round_bets, wallet_transactions
from .serializers import (
    BetInputSerializer, BetSerializer, CancelledSerializer, LedgerEntrySerializer, MeSerializer, MyRoundSerializer, OperatorLaunchedSerializer,
    OperatorLaunchSerializer, OperatorSerializer, PlacedBetSerializer, RoundBetsSerializer, WalletTransactionSerializer,
)

IDEMPOTENCY = OpenApiParameter("Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
                               description="The same key again returns the same bet, never a second debit.")


class MeView(APIView):
    """Who you are, your roles, and the balance of each of your wallets by currency (`balances`);
    `balance` and `currency` are the CHIPS wallet's. An operator's seamless player: their balance at
    the operator, in its currency. A read: it makes no wallet."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MeSerializer)
    def get(self, request):
        balances, seamless_player = my_wallets(user=request.user)
        currency = DEFAULT_CURRENCY
        if seamless_player:  # the operator's balance, asked of its wallet
            at_operator = seamless.operator_balance(player=request.user)
            if at_operator is not None:
                balance, currency = at_operator
                balances = {currency: balance}
        balance = balances.get(currency, Decimal("0.00"))
        return Response(MeSerializer({"username": request.user.username, "roles": sorted(roles_of(request.user)),
                                      "balance": balance, "currency": currency,
                                      "balances": [{"currency": c, "balance": b} for c, b in balances.items()]}).data)


class LedgerQuery(serializers.Serializer):
    player = IdentifierField(required=False, max_length=150, help_text="Supervisors: another player's ledger (a username).")


class MyRoundsPages(Pages):
    """50 rounds a page; ?page_size=N (1 to 100) for fewer or more: the player page's catch-up
    after a reconnect reads only the newest few."""

    page_size_query_param = "page_size"
    max_page_size = 100


class MyRoundsQuery(serializers.Serializer):
    table = WholeNumberField(required=False, min_value=1, help_text="Only your rounds at this table (the player page's catch-up).")


class MyRoundsView(generics.ListAPIView):
    """Your rounds, newest first: the joker, the cards in order, your bets, what came back, the net
    (bets/history.py). Paginated (`?page=`, `?page_size=` up to 100); `?table=` for one table's."""

    serializer_class = MyRoundSerializer
    pagination_class = MyRoundsPages
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[MyRoundsQuery])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        query = MyRoundsQuery(data=query_data(self.request))
        query.is_valid(raise_exception=True)  # a bad table is a 400 before any query
        rounds = my_rounds(self.request.user)
        table = query.validated_data.get("table")
        return rounds if table is None else rounds.filter(table_id=table)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(MyRoundSerializer(my_rounds_detail(request.user, page), many=True).data)


class LedgerView(generics.ListAPIView):
    """Your ledger entries, newest first. Supervisors may pass ?player=USERNAME."""

    serializer_class = LedgerEntrySerializer
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[LedgerQuery])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        user = self.request.user
        query = LedgerQuery(data=query_data(self.request))
        query.is_valid(raise_exception=True)  # before any query: a NUL byte is a 400, not a database error
        name = query.validated_data.get("player")
        if name and name != user.username:
            if not has_role(user, SUPERVISOR):
                raise NotAllowed("Only a supervisor may see another player's ledger.", code="permission_denied")
            user = get_object_or_404(get_user_model(), username=name)
        return LedgerEntry.objects.filter(account__user=user, account__kind="player").order_by("-id")


class RoundBetsView(APIView):
    """POST (player): place a bet. GET: your bets in the round; supervisors see everyone's.

    A bet is the studio's most frequent request: JSON bodies only (the studio's JSON parser), and the
    renderers of the settings (JSON; the browsable API with DEBUG) chosen at once for the common
    Accept headers."""

    parser_classes = [JSONParser]
    content_negotiation_class = CommonCaseNegotiation

    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method in SAFE_METHODS else [IsAuthenticated(), IsPlayer()]  # HEAD as GET

    @extend_schema(responses=RoundBetsSerializer)
    def get(self, request, pk):
        round_or_404(round_id=pk, user=request.user)
        player = None if has_role(request.user, SUPERVISOR) else request.user
        return Response(RoundBetsSerializer(round_bets(round_id=pk, player=player)).data)

    @extend_schema(request=BetInputSerializer, parameters=[IDEMPOTENCY], responses={201: PlacedBetSerializer, 200: PlacedBetSerializer})
    def post(self, request, pk):  # a missing round is the service's 404 (no extra query per bet)
        data = BetInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = request.headers.get("Idempotency-Key") or None
        if key and len(key) > 80:
            raise InvalidInput("The Idempotency-Key is too long (80 characters at most).", code="invalid",
                                   fields={"Idempotency-Key": ["80 characters at most."]})
        if key and has_control_characters(key):
            raise InvalidInput("Control characters are not allowed in the Idempotency-Key.", code="invalid",
                               fields={"Idempotency-Key": ["Control characters (tab, NUL...) are not allowed here."]})
        bet, created = services.bet_place(round_id=pk, player=request.user, spot=data.validated_data["spot"],
                                          amount=data.validated_data["amount"], idempotency_key=key)
        return Response(PlacedBetSerializer(bet).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class RoundBetsRepeatView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(request=None, responses={201: PlacedBetSerializer(many=True)})
    def post(self, request, pk):
        round_or_404(round_id=pk, user=request.user)
        bets = services.bet_repeat(round_id=pk, player=request.user)
        return Response(PlacedBetSerializer(bets, many=True).data, status=status.HTTP_201_CREATED)


def bet_round(request, pk, **kwargs):
    """The round's share a cancel of bet `pk` takes (studio.routes): its round's; none for no such bet."""
    round_id = Bet.objects.filter(pk=pk).values_list("round_id", flat=True).first()
    return None if round_id is None else ("round", round_id)


class BetDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=BetSerializer)
    def get(self, request, pk):
        bet = get_object_or_404(Bet.objects.select_related("player"), pk=pk)
        if bet.player_id != request.user.pk and not has_role(request.user, SUPERVISOR):
            raise NotFound("No such bet of yours.", code="not_found")
        return Response(BetSerializer(bet).data)

    @extend_schema(responses={200: CancelledSerializer})
    def delete(self, request, pk):
        balance, currency = services.bet_cancel(bet_id=pk, player=request.user)
        return Response(CancelledSerializer({"username": request.user.username, "roles": sorted(roles_of(request.user)),
                                             "balance": balance, "currency": currency}).data)


# --- operators (docs/OPERATORS.md) ------------------------------------------------------------------

class OperatorSessionView(APIView):
    """The operator's server launches a player: `X-Operator: CODE` and `X-Signature` (hex HMAC-SHA256 of
    the raw body with the operator's secret). 201 with the player's token and the page's URL (a
    one-time code, never the token). Refused with nothing created: 401 a bad or missing signature, an
    unknown operator, a stale timestamp, a replayed body; 403 an inactive operator; 400 a bad field or
    a currency the table does not play."""

    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(request=OperatorLaunchSerializer, auth=[], responses={201: OperatorLaunchedSerializer},
                   parameters=[OpenApiParameter("X-Operator", OpenApiTypes.STR, OpenApiParameter.HEADER, required=True),
                               OpenApiParameter("X-Signature", OpenApiTypes.STR, OpenApiParameter.HEADER, required=True)])
    def post(self, request):
        require_json(request)  # the service reads the raw body it was signed over; JSON only, as every write
        launched = seamless.operator_launch(operator_code=request.headers.get("X-Operator"), signature=request.headers.get("X-Signature"),
                                            body=request.body)
        url = request.build_absolute_uri(reverse("operator-launch-page", kwargs={"code": launched["code"]}))
        return Response({"token": launched["token"], "url": url}, status=status.HTTP_201_CREATED)


class OperatorListView(APIView):
    """Operators, read-only (supervisors): their wallet, currency, and how many transactions are
    pending and stuck. The secret is never shown."""

    permission_classes = [IsSupervisor]

    @extend_schema(responses={200: OperatorSerializer(many=True)})
    def get(self, request):
        return Response(OperatorSerializer(operators_overview(), many=True).data)


class WalletTransactionQuery(serializers.Serializer):
    operator = IdentifierField(required=False, max_length=32, help_text="An operator's code.")
    status = serializers.ChoiceField(required=False, choices=WalletTransaction.Status.choices)
    round = WholeNumberField(required=False, min_value=1, max_value=2**62)


class WalletTransactionListView(generics.ListAPIView):
    """Operators' wallet transactions (supervisors), the stuck first (unacknowledged past
    SEAMLESS_ALERT_AFTER), then the pending, then the newest: `?status=pending`, `?operator=CODE`, `?round=ID`."""

    serializer_class = WalletTransactionSerializer
    permission_classes = [IsSupervisor]

    @extend_schema(parameters=[WalletTransactionQuery])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        query = WalletTransactionQuery(data=query_data(self.request))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return wallet_transactions(operator_code=data.get("operator"), status=data.get("status"), round_id=data.get("round"))
