from rest_framework import serializers

from studio.fields import AmountField, TextField
from tables.serializers import money_field


class BetInputSerializer(serializers.Serializer):
    spot = TextField(max_length=16, help_text="andar, bahar, first_andar, first_bahar, first_three or count_LO_HI.")
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


class _PlayerSerializer(serializers.Serializer):
    username = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    balance = money_field()
    currency = serializers.CharField()


class WalletBalanceSerializer(serializers.Serializer):
    currency = serializers.CharField()
    balance = money_field()


class MeSerializer(_PlayerSerializer):
    """Who is asking and what they hold. Reading it makes no wallet."""
    balance = money_field(help_text="The balance in `currency`: the CHIPS wallet's (0.00 without one); for an operator's "
                                    "seamless player, their balance at the operator.")
    currency = serializers.CharField(help_text="CHIPS; for an operator's seamless player, the operator's currency.")
    balances = WalletBalanceSerializer(many=True, help_text="Every wallet the player has, one per currency, sorted by currency "
                                                            "(a table plays one currency: a player's balance there is the wallet "
                                                            "in it, 0.00 when absent); for an operator's seamless player, their "
                                                            "balance at the operator. Empty for one who never held any.")


class CancelledSerializer(_PlayerSerializer):
    """The answer to taking a bet back: the player and their wallet after it."""
    balance = money_field(allow_null=True, help_text="The wallet's balance after the stake came back; null for an operator's "
                                                     "seamless player, whose stake goes back to the operator (their balance: GET /api/me/).")


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
    multiplier = serializers.IntegerField(required=False, help_text="A won bet on a spot the round's multipliers drew: what its winnings were multiplied by.")


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
    multipliers = serializers.ListField(child=serializers.DictField(), allow_null=True,
                                        help_text='A table with random multipliers: the round\'s drawn [{"spot", "multiplier"}] once betting closed; else null.')
    bets = _MyBetSerializer(many=True, help_text="Your bets in the round, cancelled ones included.")
    staked = money_field(help_text="Your stakes, cancelled bets left out.")
    returned = money_field(allow_null=True, help_text="Everything that came back, once the round is settled or voided.")
    net = money_field(allow_null=True, help_text="returned - staked, once the round is settled or voided.")
    void_reason = serializers.CharField(allow_null=True, help_text="Why a supervisor voided the round (your stakes were refunded).")


class OperatorLaunchSerializer(serializers.Serializer):
    """The launch's body, as documented (docs/OPERATORS.md); the service reads the raw body it was signed over."""
    player_id = serializers.CharField(max_length=64)
    display_name = serializers.CharField(max_length=150, required=False)
    currency = serializers.CharField(max_length=8)
    table = serializers.IntegerField()
    language = serializers.ChoiceField(choices=["en", "hi", "ne", "vi", "ja"], required=False)
    timestamp = serializers.IntegerField(help_text="Unix seconds; refused more than 5 minutes away from the studio's clock.")

    class Meta:
        ref_name = "OperatorLaunch"


class OperatorLaunchedSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The player's API and stream token.")
    url = serializers.CharField(help_text="The player page, opened once by its one-time code, in the launch's language.")


class OperatorSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    wallet = serializers.CharField()
    wallet_url = serializers.CharField()
    currency = serializers.CharField()
    active = serializers.BooleanField()
    pending = serializers.IntegerField(help_text="Transactions not acknowledged yet.")
    stuck = serializers.IntegerField(help_text="Of those, unacknowledged for longer than SEAMLESS_ALERT_AFTER seconds (alerted).")


class WalletTransactionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    transaction_id = serializers.CharField()
    operator = serializers.CharField(source="operator.code")
    player = serializers.CharField(source="player.username")
    player_id = serializers.CharField(source="body.player_id")
    kind = serializers.CharField()
    status = serializers.CharField()
    stuck = serializers.BooleanField(help_text="Unacknowledged for longer than SEAMLESS_ALERT_AFTER seconds.")
    amount = money_field()
    currency = serializers.CharField()
    round = serializers.IntegerField(source="round_id")
    bet = serializers.IntegerField(source="bet_id", allow_null=True)
    reference = serializers.CharField(source="reference.transaction_id", allow_null=True, default=None)
    attempts = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField()
    last_error = serializers.CharField()
    operator_balance = money_field(allow_null=True)
    created_at = serializers.DateTimeField()
    acknowledged_at = serializers.DateTimeField(allow_null=True)
