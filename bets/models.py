"""Wallets (accounts), the append-only double-entry ledger, and bets.

Every movement of chips is a pair of ledger entries that sum to zero: a player's wallet and the
house, or the mint (which issues chips: its balance is minus all chips ever issued). So the sum of
all balances is always zero, and players + house always equal the chips issued. Entries are never
updated or deleted (LedgerEntry).
"""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from studio.appendonly import AppendOnlyModel
from studio.money import MoneyField


class Account(models.Model):
    class Kind(models.TextChoices):
        PLAYER = "player"
        HOUSE = "house"
        MINT = "mint"
        OPERATOR = "operator"  # an operator's wallet, as the studio saw it move (seamless; one per operator and currency)

    kind = models.CharField(max_length=8, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="accounts")
    currency = models.CharField(max_length=8, default="CHIPS")
    # A seamless operator's: its account (kind operator), or one of its players' wallets, through which
    # that player's money passes while it is in the studio (zero between rounds).
    operator = models.ForeignKey("accounts.Operator", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # Denormalised sum of this account's entries, changed only with them in one transaction; not
    # indexed, and each page keeps room for its rows' new versions (migrations/0006_room_for_settlement.py),
    # so that a settlement's UPDATE of the winners' wallets writes no index.
    balance = MoneyField(default=0)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "currency"], condition=Q(kind="player"), name="account_one_wallet_per_currency"),
            models.UniqueConstraint(fields=["kind", "currency"], condition=Q(user__isnull=True, operator__isnull=True),
                                    name="account_one_house_per_currency"),
            models.UniqueConstraint(fields=["operator", "currency"], condition=Q(kind="operator"), name="account_one_per_operator_currency"),
            models.CheckConstraint(condition=~Q(kind="operator") | Q(operator__isnull=False), name="account_operator_has_operator"),
            models.CheckConstraint(condition=Q(kind="player", user__isnull=False) | Q(~Q(kind="player"), user__isnull=True), name="account_owner_matches_kind"),
        ]

    def __str__(self):
        return f"{self.user or self.kind} {self.currency}"


class LedgerEntry(AppendOnlyModel):
    """A row is written once: the ORM refuses to change or delete it (studio.appendonly), and so does
    the database, whatever the statement (a trigger, migration 0005). A mistake is undone by a
    reversing entry."""

    class Kind(models.TextChoices):
        ISSUE = "issue"          # chips issued by the mint (or taken back): an admin adjustment
        BET = "bet"              # stake debited when a bet is placed
        CANCEL = "cancel"        # stake returned when a bet is taken back
        WIN = "win"              # stake + winnings credited at settlement
        REVERSAL = "reversal"    # a win taken back (void or re-settlement)
        REFUND = "refund"        # stake returned when a round is voided
        # The seamless wallet (bets.seamless): money between an operator's wallet and its player's.
        OP_DEBIT = "op_debit"    # a confirmed debit at the operator: into the player's wallet, for the bet
        OP_CREDIT = "op_credit"  # what a settled round returns to the player, back to the operator
        OP_RB_DEBIT = "op_rb_deb"   # a debit rolled back (a cancel, a void): the stake back to the operator
        OP_RB_CREDIT = "op_rb_cred"  # a credit rolled back (a void or a re-settlement after settlement)

    # No index of their own on the account or the bet: ledger_account_recent_idx leads with the account
    # and ledger_once_per_bet with the bet (every entry of a bet is in it), and each index more is
    # written for every entry (migrations/0007_ledger_fewer_indexes.py).
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries", db_index=False)
    amount = MoneyField(help_text="Signed: positive credits the account.")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    bet = models.ForeignKey("bets.Bet", on_delete=models.PROTECT, null=True, blank=True, related_name="entries", db_index=False)
    round = models.ForeignKey("tables.Round", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # The round's settlement version the entry belongs to (0 for placing and cancelling).
    version = models.PositiveIntegerField(default=0)
    memo = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "ledger entries"
        constraints = [
            # Paying (or refunding, or reversing) the same bet twice is impossible at the database.
            models.UniqueConstraint(fields=["bet", "kind", "version", "account"], condition=Q(bet__isnull=False), name="ledger_once_per_bet"),
            models.UniqueConstraint(
                fields=["round", "kind", "version", "account"], condition=Q(bet__isnull=True, round__isnull=False), name="ledger_once_per_round"
            ),
        ]
        indexes = [models.Index(fields=["account", "-id"], name="ledger_account_recent_idx")]


class Bet(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        CANCELLED = "cancelled"
        WON = "won"
        LOST = "lost"
        REFUNDED = "refunded"

    # Few indexes, none on status or payout: settlement rewrites those on every bet of a round, and
    # with no index on them and room left in each page for every row's new version
    # (migrations/0006_room_for_settlement.py) PostgreSQL updates the rows in place (HOT) instead of
    # touching every index for each of them.
    # The round's index leads with the round and goes on with the player: a bet reads the player's
    # open bets in the round, and with an index on the round alone PostgreSQL's cached (generic) plan
    # can walk every bet of the round for it, each time (a bet would cost O(bets in the round)).
    round = models.ForeignKey("tables.Round", on_delete=models.PROTECT, related_name="bets", db_index=False)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bets", db_index=False)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="bets", db_index=False)
    spot = models.CharField(max_length=16)
    amount = MoneyField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    payout = MoneyField(default=0, help_text="What came back to the player: stake + winnings, or 0.")
    idempotency_key = models.CharField(max_length=80, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="bet_amount_positive"),
            models.UniqueConstraint(fields=["player", "idempotency_key"], condition=Q(idempotency_key__isnull=False), name="bet_idempotency_key"),
        ]
        indexes = [models.Index(fields=["player", "round"], name="bet_player_round_idx"),
                   models.Index(fields=["round", "player"], name="bet_round_player_idx")]


class WalletTransaction(models.Model):
    """One call to a seamless operator's wallet (docs/OPERATORS.md), written before it is sent: the
    debits by bets.seamless as a bet is placed, the credits and rollbacks (the outbox) in the same
    transaction as the settlement, void, cancel or re-settlement that causes them. `transaction_id`
    is the protocol's id: one operation, always the same body, sent until acknowledged."""

    class Kind(models.TextChoices):
        DEBIT = "debit"
        CREDIT = "credit"
        ROLLBACK = "rollback"

    class Status(models.TextChoices):
        PENDING = "pending"      # not acknowledged yet (a rollback refused by the operator stays pending: stuck, alerted)
        OK = "ok"                # acknowledged by the operator
        REFUSED = "refused"      # a debit the operator refused: no bet
        CANCELLED = "cancelled"  # a debit whose outcome was unknown or came too late: rolled back by its rollback

    transaction_id = models.CharField(max_length=64, unique=True)
    operator = models.ForeignKey("accounts.Operator", on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    amount = MoneyField()
    currency = models.CharField(max_length=8)
    round = models.ForeignKey("tables.Round", on_delete=models.PROTECT, related_name="+", db_index=False)
    bet = models.ForeignKey(Bet, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    reference = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="rolled_back_by",
                                     help_text="A rollback: the debit or credit it undoes (one rollback each).")
    # Sent only once this one is acknowledged (a credit's rollback after the credit, a new credit after the old one's rollback).
    after = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    settlement_version = models.PositiveIntegerField(default=0)
    idempotency_key = models.CharField(max_length=80, null=True, blank=True)
    body = models.JSONField(help_text="The request's body, the same on every attempt.")
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.CharField(max_length=200, blank=True, default="")
    operator_balance = MoneyField(null=True, blank=True, help_text="The balance the operator answered with.")
    created_at = models.DateTimeField(default=timezone.now)
    acknowledged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gte=0), name="wallet_transaction_amount_not_negative"),
            # A credit per player per round per settlement version; a debit per bet.
            models.UniqueConstraint(fields=["round", "player", "settlement_version"], condition=Q(kind="credit"),
                                    name="wallet_transaction_one_credit"),
            models.UniqueConstraint(fields=["bet"], condition=Q(kind="debit"), name="wallet_transaction_one_debit_per_bet"),
            models.UniqueConstraint(fields=["player", "idempotency_key"], condition=Q(idempotency_key__isnull=False),
                                    name="wallet_transaction_idempotency"),
        ]
        indexes = [
            models.Index(fields=["round", "player"], name="wtx_round_idx"),
            # The sweeper's rows: the unacknowledged ones.
            models.Index(fields=["next_attempt_at"], condition=Q(status="pending"), name="wtx_pending_idx"),
            models.Index(fields=["operator", "-id"], name="wtx_operator_idx"),
        ]

    def __str__(self):
        return f"{self.kind} {self.transaction_id} {self.amount} {self.status}"
