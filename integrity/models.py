"""The integrity monitor's rows: one state per table and per dealer (a few integers per check,
engine/integrity.py), the studio's own operational rates, the rounds already counted, and alerts."""
from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q

from tables.models import Round, Table


class Monitor(models.Model):
    class Kind(models.TextChoices):
        TABLE = "table"
        DEALER = "dealer"
        OPERATOR = "operator"  # a seamless operator's wallet transactions (integrity.services.wallet_alerts_raise)

    kind = models.CharField(max_length=8, choices=Kind.choices)
    table = models.ForeignKey(Table, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    dealer = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    operator = models.ForeignKey("accounts.Operator", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    state = models.JSONField(help_text="engine.integrity.initial_state(), updated once per round.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind", "id"]
        constraints = [
            models.UniqueConstraint(fields=["table"], condition=Q(kind="table"), name="monitor_one_per_table"),
            models.UniqueConstraint(fields=["dealer"], condition=Q(kind="dealer"), name="monitor_one_per_dealer"),
            models.UniqueConstraint(fields=["operator"], condition=Q(kind="operator"), name="monitor_one_per_operator"),
            models.CheckConstraint(
                condition=(Q(kind="table", table__isnull=False, dealer__isnull=True, operator__isnull=True)
                           | Q(kind="dealer", dealer__isnull=False, table__isnull=True, operator__isnull=True)
                           | Q(kind="operator", operator__isnull=False, table__isnull=True, dealer__isnull=True)),
                name="monitor_subject_matches_kind"),
        ]


class Baseline(models.Model):
    """The studio's own operational rates (one row, id 1): person-dealt rounds, those corrected,
    voided, with a refused scan; refused scans and cards; the log seconds per card of the timed
    rounds (sum and sum of squares)."""

    rounds = models.PositiveIntegerField(default=0)
    corrections = models.PositiveIntegerField(default=0)
    voids = models.PositiveIntegerField(default=0)
    refused = models.PositiveIntegerField(default=0, help_text="Rounds with at least one refused scan.")
    refused_scans = models.PositiveIntegerField(default=0)
    cards = models.PositiveIntegerField(default=0)
    timed = models.PositiveIntegerField(default=0)
    log_seconds = models.FloatField(default=0)
    log_seconds_sq = models.FloatField(default=0)


class MonitoredRound(models.Model):
    """A round the monitor has counted: its results once (at its first settlement), its void once;
    and its refused scans (tables.hooks.card_refused), counted as they happen."""

    round = models.OneToOneField(Round, on_delete=models.CASCADE, primary_key=True, related_name="+")
    results = models.BooleanField(default=False)
    voided = models.BooleanField(default=False)
    refused_scans = models.PositiveIntegerField(default=0)


class Alert(models.Model):
    """A check reached its threshold. It stays open until a supervisor acknowledges it with a note;
    a check has at most one open alert."""

    monitor = models.ForeignKey(Monitor, on_delete=models.CASCADE, related_name="alerts")
    check_name = models.CharField(max_length=32)
    statistic = models.IntegerField()
    threshold = models.IntegerField()
    round = models.ForeignKey(Round, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
                              help_text="The round after which the check reached its threshold.")
    raised_at = models.DateTimeField(auto_now_add=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                        related_name="+")
    note = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["monitor", "check_name"], condition=Q(acknowledged_at__isnull=True),
                                    name="alert_one_open_per_check"),
        ]
        indexes = [models.Index(fields=["raised_at"], condition=Q(acknowledged_at__isnull=True), name="alert_open_idx")]


# --- the public round log (integrity/publiclog.py, docs/PUBLIC_LOG.md) ---------------------------------

class LogPending(models.Model):
    """A round's outcome waiting for the log: written in the transaction that settled or voided the
    round (its leaf's bytes as they were then), appended by the next drain, in id order."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="+")
    leaf = models.BinaryField(help_text="The leaf's bytes: the outcome's canonical JSON.")


class LogEntry(models.Model):
    """A leaf of the log, at its index (0, 1, 2, ...): append-only."""

    index = models.BigIntegerField(primary_key=True)
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="+")
    leaf = models.BinaryField()
    logged_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["round", "index"], name="log_entry_round_idx")]


class LogNode(models.Model):
    """The hash of a complete perfect subtree: level l, index i covers the leaves [i * 2^l, (i + 1) * 2^l)."""

    pk = models.CompositePrimaryKey("level", "index")
    level = models.SmallIntegerField()
    index = models.BigIntegerField()
    hash = models.BinaryField()


class LogHead(models.Model):
    """The log's size and root (one row, id 1): every append locks it."""

    size = models.BigIntegerField(default=0)
    root = models.BinaryField()
    updated_at = models.DateTimeField()


class LogCheckpoint(models.Model):
    """A signed checkpoint of the log (a C2SP signed note): one per tree size, the latest served."""

    size = models.BigIntegerField(unique=True)
    root = models.BinaryField()
    note = models.TextField(help_text="The signed note, the studio's signature only.")
    signed_at = models.DateTimeField()


class LogCosignature(models.Model):
    """A witness's cosignature of a checkpoint (C2SP tlog-cosignature), served with it."""

    checkpoint = models.ForeignKey(LogCheckpoint, on_delete=models.CASCADE, related_name="cosignatures")
    witness = models.CharField(max_length=200)
    line = models.TextField()
    received_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["checkpoint", "witness"], name="log_one_cosignature_per_witness")]
