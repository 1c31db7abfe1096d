"""Wallets (accounts), the append-only double-entry ledger, and bets.

Every movement of chips is a pair of ledger entries that sum to zero: a player's wallet and the
house, or the mint (which issues chips: its balance is minus all chips ever issued). So the sum of
all balances is always zero, and players + house always equal the chips issued.
"""
from django.conf import settings
from django.db import models
from django.db.models import Q

from studio.money import MoneyField


class Account(models.Model):
    class Kind(models.TextChoices):
        PLAYER = "player"
        HOUSE = "house"
        MINT = "mint"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="accounts")
    currency = models.CharField(max_length=8, default="CHIPS")
    # Denormalised sum of this account's entries, changed only with them in one transaction.
    balance = MoneyField(default=0)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "currency"], condition=Q(kind="player"), name="account_one_wallet_per_currency"),
            models.UniqueConstraint(fields=["kind", "currency"], condition=Q(user__isnull=True), name="account_one_house_per_currency"),
            models.CheckConstraint(condition=Q(kind="player", user__isnull=False) | Q(~Q(kind="player"), user__isnull=True), name="account_owner_matches_kind"),
        ]

    def __str__(self):
        return f"{self.user or self.kind} {self.currency}"


class LedgerEntry(models.Model):
    class Kind(models.TextChoices):
        ISSUE = "issue"          # chips issued by the mint (or taken back): an admin adjustment
        BET = "bet"              # stake debited when a bet is placed
        CANCEL = "cancel"        # stake returned when a bet is taken back
        WIN = "win"              # stake + winnings credited at settlement
        REVERSAL = "reversal"    # a win taken back (void or re-settlement)
        REFUND = "refund"        # stake returned when a round is voided

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    amount = MoneyField(help_text="Signed: positive credits the account.")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    bet = models.ForeignKey("bets.Bet", on_delete=models.PROTECT, null=True, blank=True, related_name="entries")
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
    # with no index on them (and room left in each page, see the fillfactor migration) PostgreSQL
    # updates the rows in place (HOT) instead of touching every index for each of them.
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
