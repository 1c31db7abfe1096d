from rest_framework import serializers

from studio.fields import AmountField
from tables.serializers import money_field


class BetInputSerializer(serializers.Serializer):
    spot = serializers.CharField(max_length=16, help_text="andar, bahar, first_andar, first_bahar, first_three or count_LO_HI.")
    amount = AmountField(help_text="Exact amount: a string of ASCII digits with at most two decimals (\"50\", \"2.50\") or a JSON integer.")


class BetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round_id")
    player = serializers.CharField(source="player.username")
    spot = serializers.CharField()
    amount = money_field()
    status = serializers.CharField()
    payout = money_field()
    created_at = serializers.DateTimeField()


class PlacedBetSerializer(BetSerializer):
    balance = money_field()


class LedgerEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    kind = serializers.CharField()
    amount = money_field()
    bet = serializers.IntegerField(source="bet_id", allow_null=True)
    round = serializers.IntegerField(source="round_id", allow_null=True)
    memo = serializers.CharField()


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    balance = money_field()
    currency = serializers.CharField()


class RoundBetsSerializer(serializers.Serializer):
    bets = BetSerializer(many=True)
    totals = serializers.DictField(help_text="Per spot: {count, staked, paid}.")
    staked = money_field()
    paid = money_field()
