"""The reports' rollups: a round's figures added up per (table, hour, dealer, shift, spot).

A row with `spot` "" holds the rounds as a whole (rounds, cards, times, incidents, voids, players)
and every bet of them; a row per spot and multiplier holds that spot's bets, apart for each random
multiplier the rounds drew for it (1: none; a table with random multipliers, engine.multipliers). The round's hour (the hour in UTC in
which it opened), dealer, shift and rules place every figure of the round, so a void or a
re-settlement finds the row its settlement wrote. Written only by reports.rollup, in the
transaction of the change.

`rules` names the rules the round was played under (a Rules row): a spot's theoretical hold in a
report is its exact return under the rules its stakes were bet under, however the table's settings
changed since.
"""
from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce

from studio.money import MoneyField

WHOLE_ROUND = ""
ROUND_FIGURES = ["rounds", "cards", "card_ms", "round_ms", "incidents", "voids", "player_rounds", "bets", "stakes", "payouts"]


class Rules(models.Model):
    """A set of rules rounds were played under: the engine's part of a round's settings snapshot
    (engine.config.CONFIG_KEYS), once per distinct set, named by `key` (reports.rollup.rules_key)."""

    key = models.CharField(max_length=16, unique=True, help_text="The first 16 hex digits of the SHA-256 of the rules' canonical JSON.")
    config = models.JSONField()

    class Meta:
        verbose_name_plural = "rules"


class Rollup(models.Model):
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+", db_index=False)
    hour = models.DateTimeField(help_text="The hour (UTC) in which the rounds opened.")
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+", db_index=False)
    shift_id = models.BigIntegerField(null=True)
    rules = models.CharField(max_length=16, default="", help_text="The Rules key of the rounds' rules.")
    spot = models.CharField(max_length=16, blank=True, help_text='A bet type, or "" for the rounds as a whole.')
    multiplier = models.PositiveSmallIntegerField(db_default=1, help_text="The random multiplier the rounds drew for the spot (1: none).")
    rounds = models.IntegerField(default=0, help_text="Settled rounds (a voided one is in `voids` only).")
    cards = models.IntegerField(default=0, help_text="Cards dealt in them, the joker left out.")
    card_ms = models.BigIntegerField(default=0, help_text="Milliseconds from betting's close to the last card.")
    round_ms = models.BigIntegerField(default=0, help_text="Milliseconds from opening to the match.")
    incidents = models.IntegerField(default=0)
    voids = models.IntegerField(default=0)
    player_rounds = models.IntegerField(default=0, help_text="Players with a settled bet, once per round.")
    bets = models.IntegerField(default=0)
    stakes = MoneyField(default=0)
    payouts = MoneyField(default=0, help_text="Everything that came back: stakes and winnings.")

    class Meta:
        constraints = [
            # The key of every upsert (reports.rollup): no dealer (the virtual dealer) or no shift is 0.
            models.UniqueConstraint(F("table"), F("hour"), Coalesce(F("dealer"), 0), Coalesce(F("shift_id"), 0), F("rules"), F("spot"),
                                    F("multiplier"), name="rollup_key"),
        ]
        indexes = [
            # A report reads a period's rows, the rounds as a whole or the spots, from these alone (an
            # index-only scan, in hour order): a period's rows are a range of each, and its rows are
            # not spread over pages shared with the other kind.
            models.Index(fields=["hour"], name="rollup_round_hour_idx", condition=Q(spot=""),
                         include=["table_id", "dealer_id", "shift_id", *ROUND_FIGURES]),
            models.Index(fields=["hour"], name="rollup_spot_hour_idx", condition=~Q(spot=""),
                         include=["table_id", "dealer_id", "shift_id", "rules", "spot", "multiplier", "bets", "stakes", "payouts"]),
        ]


class RollupDay(models.Model):
    """The spots' rows again, per day of the studio's TIME_ZONE (the day each row's hour starts in):
    a long report's spots read a row per table, day, dealer and spot instead of 24. Kept by the same
    events as Rollup; `manage.py reports_rebuild_days` writes it afresh from Rollup after TIME_ZONE changes."""

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+", db_index=False)
    day = models.DateField()
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+", db_index=False)
    shift_id = models.BigIntegerField(null=True)
    rules = models.CharField(max_length=16, default="")
    spot = models.CharField(max_length=16)
    multiplier = models.PositiveSmallIntegerField(db_default=1)
    bets = models.IntegerField(default=0)
    stakes = MoneyField(default=0)
    payouts = MoneyField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(F("table"), F("day"), Coalesce(F("dealer"), 0), Coalesce(F("shift_id"), 0), F("rules"), F("spot"),
                                    F("multiplier"), name="rollup_day_key"),
        ]
        indexes = [models.Index(fields=["day"], name="rollup_day_idx",
                                include=["table_id", "dealer_id", "shift_id", "rules", "spot", "multiplier", "bets", "stakes", "payouts"])]


class OperatorRollup(models.Model):
    """The settled bets of seamless operators' players per (table, hour, operator): a report with
    group=operator reads these, and the studio's own wallets are the rest of the Rollup's figures.
    Written by reports.rollup only for rounds with a seamless bet (the settlement's hook says so)."""

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+", db_index=False)
    hour = models.DateTimeField()
    operator = models.ForeignKey("accounts.Operator", on_delete=models.PROTECT, related_name="+", db_index=False)
    player_rounds = models.IntegerField(default=0)
    bets = models.IntegerField(default=0)
    stakes = MoneyField(default=0)
    payouts = MoneyField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "hour", "operator"], name="operator_rollup_key")]
        indexes = [models.Index(fields=["hour"], name="operator_rollup_hour_idx")]
