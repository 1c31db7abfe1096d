"""The matches API: create, join by code, start, bet or sit out, and the state of a match."""
from decimal import Decimal

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from bets.models import Bet
from studio.fields import AmountField, TextField, WholeNumberField
from studio.roles import SUPERVISOR, has_role
from tables.access import match_or_404
from tables.models import Match, MatchPlayer, Round

from . import services as matches


class CreateInput(serializers.Serializer):
    scoring = serializers.ChoiceField(choices=Match.Scoring.choices, default=Match.Scoring.CHIPS)
    rounds = serializers.ChoiceField(choices=[10, 20, 30], default=20)
    betting_seconds = WholeNumberField(required=False, min_value=5, max_value=120)


class JoinInput(serializers.Serializer):
    code = TextField(max_length=12)


class MatchBetItem(serializers.Serializer):
    spot = TextField(max_length=16)
    amount = AmountField()


class MatchBetInput(serializers.Serializer):
    bets = MatchBetItem(many=True, allow_empty=False, max_length=50)


def match_state(match: Match, user) -> dict:
    """Everything a match page needs, from one call."""
    money = matches.balances(match)
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    current = Round.objects.filter(table_id=match.table_id).order_by("-id").first()
    me = next((p for p in players if p.user_id == user.pk), None)
    bettors = set()
    if current is not None:
        bettors = set(Bet.objects.filter(round=current).exclude(status__in=["cancelled", "refunded"])
                      .values_list("player_id", flat=True))
    # A player whose last chips are on the felt this round is still playing, not watching.
    staked = set(Bet.objects.filter(round=current, status=Bet.Status.OPEN).values_list("player_id", flat=True)) if current else set()
    ranks = {row["player"]: row["rank"] for row in matches.match_standings(match)}
    return {
        "id": match.pk, "code": match.code, "table": match.table_id, "scoring": match.scoring,
        "rounds": match.rounds_total, "rounds_played": match.rounds_played, "status": match.status,
        "created_by": match.created_by.username, "started_at": match.started_at, "finished_at": match.finished_at,
        "currency": match.currency, "start_chips": str(matches.START_CHIPS),
        "betting_seconds": match.table.betting_seconds, "result": _result(match),
        "current_round": {"id": current.pk, "status": current.status} if current else None,
        "players": [
            {"player": p.user.username, "chips": str(money.get(p.user_id, Decimal(0))), "points": p.points,
             "rank": ranks.get(p.user.username),
             "watching": match.status == Match.Status.RUNNING and money.get(p.user_id, Decimal(0)) <= 0
                         and p.user_id not in staked,
             "done": bool(current and p.done_round_id == current.pk),
             "action": ("bet" if p.user_id in bettors else "sat_out") if current and p.done_round_id == current.pk else None,
             "history": p.history}
            for p in players
        ],
        "me": None if me is None else {
            "player": user.username, "chips": str(money.get(user.pk, Decimal(0))), "points": me.points,
            "done": bool(current and me.done_round_id == current.pk), "proposal": matches.proposal(match=match, user=user),
        },
    }


def _result(match: Match) -> dict | None:
    """The stored result; in a chips match each ranking row also has `net`: its chips minus the
    chips everyone started with."""
    if not match.result:
        return None
    if match.scoring != Match.Scoring.CHIPS:
        return match.result
    ranking = [{**row, "net": str(Decimal(row["chips"]) - matches.START_CHIPS)} for row in match.result.get("ranking", [])]
    return {**match.result, "ranking": ranking}


class _CurrentRound(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()


class _ProposedBet(serializers.Serializer):
    spot = serializers.CharField()
    amount = serializers.CharField()


class MatchPlayerState(serializers.Serializer):
    player = serializers.CharField()
    chips = serializers.CharField()
    points = serializers.IntegerField()
    rank = serializers.IntegerField(help_text="Place in the standings now: 1 is the best; players level share a rank.")
    watching = serializers.BooleanField(help_text="No chips left (nor any on the felt): watching the rest of the match.")
    done = serializers.BooleanField(help_text="Has bet or sat out in the current round.")
    action = serializers.ChoiceField(choices=["bet", "sat_out"], allow_null=True)
    history = serializers.ListField(child=serializers.DictField(), help_text="After each counted round: {round, n, scored, points, chips}.")


class MatchMeState(serializers.Serializer):
    player = serializers.CharField()
    chips = serializers.CharField()
    points = serializers.IntegerField()
    done = serializers.BooleanField()
    proposal = _ProposedBet(many=True, help_text="Last counted round's bets, set out again when affordable.")


class MatchState(serializers.Serializer):
    """Everything a match page needs (match_state)."""

    id = serializers.IntegerField()
    code = serializers.CharField()
    table = serializers.IntegerField()
    scoring = serializers.ChoiceField(choices=Match.Scoring.choices)
    rounds = serializers.IntegerField()
    rounds_played = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    created_by = serializers.CharField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    currency = serializers.CharField()
    start_chips = serializers.CharField(help_text="The chips each player gets at the start (chips scoring).")
    betting_seconds = serializers.IntegerField(help_text="The time to bet in each round.")
    result = serializers.DictField(allow_null=True, help_text="Once finished: {ranking, winners, shared, draw, early}; "
                                   "each ranking row {player, chips, points, score, rank}, and `net` (chips scoring).")
    current_round = _CurrentRound(allow_null=True)
    players = MatchPlayerState(many=True)
    me = MatchMeState(allow_null=True)


STATE = MatchState


class MatchListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MatchState(many=True))
    def get(self, request):
        rows = Match.objects.select_related("created_by", "table").order_by("-id")
        if not has_role(request.user, SUPERVISOR):
            rows = rows.filter(players__user=request.user)
        return Response([match_state(m, request.user) for m in rows[:50]])

    @extend_schema(request=CreateInput, responses={201: STATE})
    def post(self, request):
        data = CreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        match = matches.match_create(creator=request.user, scoring=v["scoring"], rounds_total=int(v["rounds"]),
                                     betting_seconds=v.get("betting_seconds"))
        return Response(match_state(match, request.user), status=status.HTTP_201_CREATED)


class MatchJoinView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=JoinInput, responses=STATE)
    def post(self, request):
        data = JoinInput(data=request.data)
        data.is_valid(raise_exception=True)
        match = matches.match_join(code=data.validated_data["code"], user=request.user)
        return Response(match_state(match, request.user))


class MatchDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=STATE)
    def get(self, request, pk):
        return Response(match_state(match_or_404(match_id=pk, user=request.user), request.user))


class MatchStartView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=STATE)
    def post(self, request, pk):
        match_or_404(match_id=pk, user=request.user)
        return Response(match_state(matches.match_start(match_id=pk, actor=request.user), request.user))


class MatchBetView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=MatchBetInput, responses={201: STATE})
    def post(self, request, pk):
        data = MatchBetInput(data=request.data)
        data.is_valid(raise_exception=True)
        matches.match_bet(match_id=pk, user=request.user, bets=[dict(b) for b in data.validated_data["bets"]])
        return Response(match_state(match_or_404(match_id=pk, user=request.user), request.user), status=status.HTTP_201_CREATED)


class MatchSitOutView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=STATE)
    def post(self, request, pk):
        matches.match_sit_out(match_id=pk, user=request.user)
        return Response(match_state(match_or_404(match_id=pk, user=request.user), request.user))
