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


class _MyBetSerializer(serializers.Serializer):
    bet = serializers.IntegerField()
    spot = serializers.CharField()
    amount = money_field()
    status = serializers.CharField()
    payout = money_field(help_text="What came back: stake and winnings, the stake refunded, or 0.")


class _MyCardSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    side = serializers.CharField()
    card = serializers.CharField()


class MyRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    status = serializers.CharField()
    opened_at = serializers.DateTimeField()
    joker = serializers.CharField()
    first_side = serializers.CharField()
    winner = serializers.CharField(allow_null=True)
    cards = _MyCardSerializer(many=True, help_text="In the order dealt.")
    bets = _MyBetSerializer(many=True, help_text="Your bets in the round, cancelled ones included.")
    staked = money_field(help_text="Your stakes, cancelled bets left out.")
    returned = money_field(allow_null=True, help_text="Everything that came back, once the round is settled or voided.")
    net = money_field(allow_null=True, help_text="returned - staked, once the round is settled or voided.")
    void_reason = serializers.CharField(allow_null=True, help_text="Why a supervisor voided the round (your stakes were refunded).")
