"""Tables, rounds, dealt cards and the append-only audit of every change to a round."""
from decimal import Decimal
from enum import StrEnum

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

import engine
from audit.models import ChainedRecord
from studio.appendonly import AppendOnlyModel
from studio.money import MoneyField
from studio.validators import refuse_control_characters

# The rules' settings, their values and their defaults are the engine's; the columns store them.
RULES = engine.TableConfig()
DEFAULT_SIDE_BETS = sorted(RULES.side_bets)


def default_side_bets():
    return list(DEFAULT_SIDE_BETS)


def choices_of(enum: type[StrEnum]) -> type[models.TextChoices]:
    """An engine enum as Django choices: the same names and values (the database's), Django's labels."""
    return models.TextChoices(enum.__name__, [(member.name, member.value) for member in enum])


class Table(models.Model):
    FirstCard = choices_of(engine.FirstCard)
    Mode = choices_of(engine.Mode)
    Paytable = choices_of(engine.Paytable)

    class State(models.TextChoices):
        """A closed or maintenance table opens no new round (a running one finishes)."""
        OPEN = "open"
        CLOSED = "closed"
        MAINTENANCE = "maintenance"

    name = models.CharField(max_length=80, unique=True)
    currency = models.CharField(max_length=8, default="CHIPS", help_text="Currency of play; CHIPS are play chips.")
    first_card = models.CharField(max_length=16, choices=FirstCard.choices, default=FirstCard(RULES.first_card))
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode(RULES.mode))
    commission = models.DecimalField(max_digits=4, decimal_places=3, default=RULES.commission)
    side_bets = models.JSONField(default=default_side_bets)
    card_count_paytable = models.CharField(max_length=8, choices=Paytable.choices, default=Paytable(RULES.card_count_paytable))
    chip_unit = MoneyField(default=RULES.chip_unit)
    min_bet = MoneyField(default=Decimal("10"))
    max_bet = MoneyField(default=Decimal("500"))
    allow_both_sides = models.BooleanField(default=False)
    # Random multipliers (engine.multipliers): null, or {"spots": [...], "draws": n, "values": [[multiplier, weight], ...]}.
    multipliers = models.JSONField(null=True, blank=True, default=None,
                                   help_text='Random multipliers: null, or {"spots": [...], "draws": n, "values": [[multiplier, weight], ...]}.')
    betting_seconds = models.PositiveIntegerField(default=15)
    # A private table (a friends' match) is listed only to its players and supervisors.
    is_private = models.BooleanField(default=False)
    # Virtual dealer (virtual.dealer): the server shuffles, opens, closes and deals at this pace.
    virtual_dealer = models.BooleanField(default=False)
    deal_interval_ms = models.PositiveIntegerField(default=1200, help_text="Virtual dealer: pause between two cards.")
    round_gap_ms = models.PositiveIntegerField(default=4000, help_text="Virtual dealer: pause between two rounds.")
    # Changed by supervisors only (tables.services.table_state_set); a maintenance table says why.
    state = models.CharField(max_length=12, choices=State.choices, default=State.OPEN)
    state_reason = models.CharField(max_length=200, blank=True, default="",
                                    help_text="Why the table is closed or under maintenance (players read it); required for maintenance.")
    # Last sequence number sent on the table's live stream (tables.stream).
    stream_seq = models.BigIntegerField(default=0)
    # Dealer shifts (tables.shifts): a shift that has lasted this long is a rotation due.
    shift_minutes = models.PositiveIntegerField(default=30, help_text="Dealer shift length in minutes; a shift that lasts longer is flagged as a rotation due.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(chip_unit__gt=0), name="table_chip_unit_positive"),
            models.CheckConstraint(condition=Q(min_bet__gt=0) & Q(max_bet__gte=models.F("min_bet")), name="table_limits_ordered"),
            models.CheckConstraint(condition=Q(commission__gt=0) & Q(commission__lte=1), name="table_commission_range"),
            models.CheckConstraint(condition=Q(state__in=["open", "closed", "maintenance"]), name="table_state_known"),
            models.CheckConstraint(condition=Q(shift_minutes__gte=1) & Q(shift_minutes__lte=720), name="table_shift_minutes_range"),
        ]

    def __str__(self):
        return self.name

    def engine_config(self) -> engine.TableConfig:
        return engine.TableConfig.from_dict(self.config_dict())

    def config_dict(self) -> dict:
        """The rules part of the settings, JSON-safe (what a round snapshots)."""
        return {
            "first_card": self.first_card,
            "mode": self.mode,
            "commission": str(self.commission),
            "side_bets": sorted(self.side_bets),
            "card_count_paytable": self.card_count_paytable,
            "chip_unit": str(self.chip_unit),
            **({"multipliers": self.multipliers} if self.multipliers is not None else {}),
        }

    def snapshot(self) -> dict:
        return {
            **self.config_dict(),
            "currency": self.currency,
            "min_bet": str(self.min_bet),
            "max_bet": str(self.max_bet),
            "allow_both_sides": self.allow_both_sides,
            "betting_seconds": self.betting_seconds,
            "private": self.is_private,
            "match": Match.objects.filter(table=self).values_list("pk", flat=True).first(),
        }

    def clean(self):
        for field in ("name", "state_reason"):
            try:
                refuse_control_characters(getattr(self, field))
            except ValidationError as exc:
                raise ValidationError({field: exc.messages}) from None
        if self.state == self.State.MAINTENANCE and not self.state_reason.strip():
            raise ValidationError({"state_reason": "A table under maintenance needs a reason (players read it)."})
        try:
            self.engine_config()
        except engine.EngineError as exc:
            raise ValidationError({getattr(exc, "field", "side_bets"): str(exc)}) from None


class TableChange(AppendOnlyModel, ChainedRecord):
    """The change log of a table: who changed which of its settings, limits, state, driver or dealer
    on shift, when, from what to what. Written only by tables.changes.change_record (for
    tables.services and tables.shifts); never updated or deleted (studio.appendonly). Values are
    text: decimals as written, lists comma-joined, a dealer by username. A record of its table's
    audit chain (audit.chain): hashed over every column but the actor's id, which deleting that
    user sets to null (the actor's name stays, and is hashed)."""

    CHAINED_KIND = "table_change"
    CHAINED_COLUMNS = ("table_id", "at", "actor_name", "source", "field", "old", "new")

    at = models.DateTimeField(default=timezone.now)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="changes")
    actor = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    actor_name = models.CharField(max_length=150)  # kept if the actor's user is deleted
    source = models.CharField(max_length=16)  # api, admin, command, match (tables.changes.SOURCES)
    field = models.CharField(max_length=32)  # a Table field's name, "created", or "dealer"
    old = models.TextField(blank=True)
    new = models.TextField(blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["table", "-id"], name="tablechange_table_idx"),
                   models.Index(fields=["field", "-id"], name="tablechange_field_idx")]
        constraints = [models.UniqueConstraint(fields=["table", "chain_seq"], name="tablechange_chain_seq_unique")]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor_name} {self.field} of table {self.table_id}: {self.old!r} -> {self.new!r}"


class Shift(models.Model):
    """A dealer on shift at a table, from sign-in until sign-out, the next dealer, a move to another
    table, or a supervisor ends it (tables.shifts). At most one open shift per table and per dealer."""

    class End(models.TextChoices):
        SIGNED_OUT = "signed_out"
        NEXT_DEALER = "next_dealer"
        MOVED = "moved"
        SUPERVISOR = "supervisor"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shifts")
    dealer = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    end_reason = models.CharField(max_length=12, choices=End.choices, blank=True, default="")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table"], condition=Q(ended_at__isnull=True), name="one_open_shift_per_table"),
            models.UniqueConstraint(fields=["dealer"], condition=Q(ended_at__isnull=True), name="one_open_shift_per_dealer"),
            models.CheckConstraint(
                condition=(Q(ended_at__isnull=True) & Q(end_reason="")) | (Q(ended_at__gte=models.F("started_at")) & ~Q(end_reason="")),
                name="shift_end_consistent",
            ),
        ]
        indexes = [models.Index(fields=["table", "-started_at"], name="shift_table_recent_idx")]

    def __str__(self):
        return f"Shift {self.pk}: {self.dealer_id} at {self.table_id}"


class Round(models.Model):
    class Status(models.TextChoices):
        BETTING = "betting"
        DEALING = "dealing"
        PAUSED = "paused"
        FINISHED = "finished"
        SETTLED = "settled"
        VOIDED = "voided"

    OPEN_STATUSES = (Status.BETTING, Status.DEALING, Status.PAUSED)

    Side = choices_of(engine.Side)

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    settings = models.JSONField(help_text="The table's settings when the round opened.")
    joker = models.CharField(max_length=3)
    first_side = models.CharField(max_length=5, choices=Side.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.BETTING)
    opened_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    winner = models.CharField(max_length=5, choices=Side.choices, blank=True, default="")
    cards_dealt = models.PositiveSmallIntegerField(default=0)
    dealer = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True)
    # The shift the round was opened in: null for the virtual dealer's rounds and rounds opened with no one on shift.
    shift = models.ForeignKey(Shift, on_delete=models.PROTECT, related_name="rounds", null=True, blank=True)
    # Incidents: the status to go back to, and the betting time left, while paused.
    resume_status = models.CharField(max_length=10, blank=True, default="")
    betting_left_ms = models.PositiveIntegerField(null=True, blank=True)
    # Virtual dealer fairness: SHA-256 of "salt:pack" published at opening; salt and pack revealed
    # once the round is over (pack = the joker then the cards in dealing order, canonical codes).
    commitment = models.CharField(max_length=64, blank=True, default="")
    pack = models.TextField(blank=True, default="")
    salt = models.CharField(max_length=64, blank=True, default="")
    # Random multipliers (engine.multipliers): the SHA-256 of the round's seed, published when it
    # opens; the seed (hex) and the drawn multipliers ([{"spot", "multiplier"}]), made when betting
    # closes and shown only from then on.
    multipliers_commit = models.CharField(max_length=64, blank=True, default="")
    multipliers_seed = models.CharField(max_length=64, blank=True, default="")
    multipliers = models.JSONField(null=True, blank=True, default=None)
    # Settlement (bets.services.settlement); version grows with every (re-)settlement and void.
    settlement_version = models.PositiveIntegerField(default=0)
    settled_at = models.DateTimeField(null=True, blank=True)
    total_staked = MoneyField(default=0)
    total_paid = MoneyField(default=0)
    bet_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=Q(status__in=["betting", "dealing", "paused"]), name="one_open_round_per_table"
            ),
        ]
        indexes = [
            # What the betting sweep looks for.
            models.Index(fields=["closes_at"], condition=Q(status="betting"), name="round_betting_closes_idx"),
            models.Index(fields=["finished_at"], condition=Q(status="finished"), name="round_unsettled_idx"),
            # A table's latest rounds (the virtual dealer asks on every step; a table's history).
            models.Index(fields=["table", "-id"], name="round_table_recent_idx"),
        ]

    def __str__(self):
        return f"Round {self.pk} at {self.table_id} ({self.status})"

    @property
    def house_result(self):
        return self.total_staked - self.total_paid


class DealtCard(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="cards")
    position = models.PositiveSmallIntegerField()
    side = models.CharField(max_length=5, choices=Round.Side.choices)
    card = models.CharField(max_length=3)
    dealt_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "position"], name="dealtcard_unique_position"),
            models.UniqueConstraint(fields=["round", "card"], name="dealtcard_unique_card"),
            models.CheckConstraint(condition=Q(position__gte=1) & Q(position__lte=49), name="dealtcard_position_range"),
        ]


class RoundEvent(AppendOnlyModel, ChainedRecord):
    """Every change to a round, who made it, from which status to which, and what it was (`data`):
    opened, betting_closed, card, finished, paused, incident, incident_note, incident_resolved,
    resumed, corrected, settled, resettled, voided. Written only by tables.transitions.audit; never
    updated or deleted (studio.appendonly). A record of its table's audit chain (`chain`, the key
    `table:<id>`; audit.chain), hashed over every column."""

    CHAINED_KIND = "round_event"
    CHAINED_COLUMNS = ("round_id", "at", "actor_id", "action", "from_status", "to_status", "data")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(default=timezone.now)
    actor = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+")
    action = models.CharField(max_length=32)
    from_status = models.CharField(max_length=10, blank=True, default="")
    to_status = models.CharField(max_length=10, blank=True, default="")
    data = models.JSONField(default=dict, blank=True)
    chain = models.CharField(max_length=40, null=True, blank=True, editable=False)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["chain", "chain_seq"], name="roundevent_chain_seq_unique")]


class Incident(models.Model):
    """Something went wrong in a round: raised by a dealer or supervisor, resolved by a supervisor."""

    class Kind(models.TextChoices):
        MISREAD = "misread"
        WRONG_SIDE = "wrong_side"
        PROCEDURE = "procedure"
        EQUIPMENT = "equipment"
        STREAM = "stream"
        SETTLEMENT = "settlement"
        OTHER = "other"

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"
        VOIDED = "voided"

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="incidents")
    raised_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    notes = models.JSONField(default=list, blank=True, help_text="[{at, by, text}], oldest first.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    paused_round = models.BooleanField(default=False, help_text="Raising it paused the round.")
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    resolution = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["status"], condition=Q(status="open"), name="incident_open_idx")]


class Match(models.Model):
    """A game of several rounds among friends on a private virtual table (RULES.md, "Matches")."""

    class Scoring(models.TextChoices):
        CHIPS = "chips"
        POINTS = "points"

    class Status(models.TextChoices):
        LOBBY = "lobby"
        RUNNING = "running"
        FINISHED = "finished"

    table = models.OneToOneField(Table, on_delete=models.PROTECT, related_name="match")
    code = models.CharField(max_length=6, unique=True)
    scoring = models.CharField(max_length=6, choices=Scoring.choices, default=Scoring.CHIPS)
    rounds_total = models.PositiveSmallIntegerField(default=20)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.LOBBY)
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    rounds_played = models.PositiveSmallIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True, help_text="{ranking: [...], winners: [...], shared, draw, early}")

    class Meta:
        ordering = ["-id"]
        constraints = [models.CheckConstraint(condition=Q(rounds_total__in=[10, 20, 30]), name="match_rounds_10_20_30")]

    @property
    def currency(self) -> str:
        return f"M{self.pk}"


class MatchPlayer(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    joined_at = models.DateTimeField(auto_now_add=True)
    points = models.PositiveSmallIntegerField(default=0)
    # The round this player has finished betting in (bet or sat out), if it is the current one.
    done_round = models.ForeignKey(Round, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # Score after each counted round: [{round, n, chips, points}], oldest first.
    history = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["match", "user"], name="match_player_once")]
