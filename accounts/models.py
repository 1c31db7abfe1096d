"""API tokens (many per user, each with an expiry) and the append-only record of access changes."""
import binascii
import os

from django.conf import settings
from django.db import models
from django.utils import timezone

from audit.models import ChainedRecord
from studio.appendonly import AppendOnlyModel


def new_key() -> str:
    return binascii.hexlify(os.urandom(20)).decode()


class Token(models.Model):
    """One login's API token, or one browser session's page token. Revoking a token deletes it."""

    class Kind(models.TextChoices):
        API = "api"  # POST /api/auth/token/
        PAGE = "page"  # embedded in the pages of one browser session

    key = models.CharField(max_length=40, unique=True, default=new_key)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.API)
    created = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["user", "expires_at"], name="token_user_expiry")]

    def __str__(self):
        return f"{self.kind} token of user {self.user_id}, expires {self.expires_at:%Y-%m-%d %H:%M}"


class AccessChange(AppendOnlyModel, ChainedRecord):
    """Who changed whose roles, permissions, password or lockout, when, from what to what.
    Written only by accounts.services; never updated or deleted (studio.appendonly). Passwords are never recorded,
    only that one was set. A record of the studio-wide audit chain (audit.chain), hashed over every
    column but the two user ids, which deleting those users sets to null (the names stay, and are hashed)."""

    CHAINED_KIND = "access_change"
    CHAINED_COLUMNS = ("at", "actor_name", "source", "username", "field", "old", "new")

    at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    actor_name = models.CharField(max_length=150)  # kept if the actor's user is deleted; "studio_user command" for it
    source = models.CharField(max_length=16)  # admin, command, api
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    username = models.CharField(max_length=150)
    field = models.CharField(max_length=32)  # is_superuser, is_staff, is_active, groups, user_permissions, password, created, lockout
    old = models.TextField(blank=True)
    new = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [models.UniqueConstraint(fields=["chain_seq"], name="accesschange_chain_seq_unique")]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor_name} {self.field} of {self.username}: {self.old!r} -> {self.new!r}"


class Operator(models.Model):
    """An online casino that sends its players to the studio's tables (docs/OPERATORS.md). Its players
    bet with the studio's own wallets (`internal`) or with the operator's money through its wallet's
    HTTP API (`seamless`). Written only by accounts.operators (the studio_operator command)."""

    class Wallet(models.TextChoices):
        INTERNAL = "internal"
        SEAMLESS = "seamless"

    code = models.SlugField(max_length=32, unique=True)
    name = models.CharField(max_length=100, blank=True, default="")
    wallet = models.CharField(max_length=8, choices=Wallet.choices, default=Wallet.INTERNAL)
    wallet_url = models.URLField(blank=True, default="", help_text="Base URL of the operator's wallet API (seamless).")
    # The shared secret of both directions' signatures; never shown again after it is set.
    secret = models.CharField(max_length=128)
    currency = models.CharField(max_length=8, default="CHIPS")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["code"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(wallet="seamless") | ~models.Q(wallet_url=""), name="operator_seamless_has_url"),
        ]

    def __str__(self):
        return f"{self.code} ({self.wallet})"

    @property
    def seamless(self) -> bool:
        return self.wallet == self.Wallet.SEAMLESS


class OperatorPlayer(models.Model):
    """The studio's user for one operator's player: one per (operator, player_id)."""

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="players")
    player_id = models.CharField(max_length=64)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="operator_player")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["operator", "player_id"], name="operator_player_once")]

    def __str__(self):
        return f"{self.operator_id}:{self.player_id}"


class OperatorLaunch(models.Model):
    """A launch the operator's server asked for. The body's digest is unique (a replayed body is
    refused); the one-time `code` opens the player page once, in `language`, at `table_id`."""

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    body_digest = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    table_id = models.BigIntegerField()
    language = models.CharField(max_length=8)
    code = models.CharField(max_length=40, unique=True, default=new_key)
    code_expires_at = models.DateTimeField()
    code_used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
