"""Operators: creating and updating them (the studio_operator command), telling a signed request of
theirs from anything else, one studio user per (operator, player_id), and the one-time codes a
launch's page URL carries (docs/OPERATORS.md). What a launch is checked against at the tables (the
table and its currency) and the seamless wallet's money are bets.seamless's."""
from __future__ import annotations

import hashlib
import secrets
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from studio import signing
from studio.errors import NotAllowed, Unauthenticated, invalid
from studio.roles import PLAYER

from .models import Operator, OperatorLaunch, OperatorPlayer
from .services import role_group, user_created

LAUNCH_CODE_TTL = timedelta(minutes=5)  # the page URL's one-time code
USERNAME_PREFIX = "op"


def operator_set(*, code: str, wallet: str, wallet_url: str | None = None, secret: str | None = None,
                 currency: str | None = None, active: bool | None = None, name: str | None = None) -> tuple[Operator, bool, str | None]:
    """Create or update an operator: (operator, created, the secret if one was made here). A new
    operator without `secret` gets a random one, returned once and never shown again."""
    if wallet not in Operator.Wallet.values:
        raise invalid("wallet", f"The wallet is one of {', '.join(Operator.Wallet.values)}.")
    with transaction.atomic():
        operator = Operator.objects.select_for_update().filter(code=code).first()
        created = operator is None
        made = None
        if created:
            made = secret or secrets.token_hex(32)
            operator = Operator(code=code, secret=made)
        elif secret:
            operator.secret = secret
        if secret:
            made = None
        operator.wallet = wallet
        if wallet_url is not None:
            operator.wallet_url = wallet_url.rstrip("/")
        if currency:
            operator.currency = currency
        if active is not None:
            operator.active = active
        if name is not None:
            operator.name = name
        if operator.seamless and not operator.wallet_url:
            raise invalid("wallet_url", "A seamless operator needs its wallet's URL.")
        operator.full_clean()
        operator.save()
        return operator, created, made


def operator_authenticate(*, code: str | None, signature: str | None, body: bytes) -> Operator:
    """The operator whose secret signed `body`: 401 for a missing or bad signature or an unknown
    operator (the same answer, so that codes cannot be probed), 403 for an inactive one."""
    operator = Operator.objects.filter(code=code).first() if code and len(code) <= 32 else None
    if operator is None or not signing.verify(operator.secret, body, signature):
        raise Unauthenticated("Unknown operator or bad signature.", code="bad_signature")
    if not operator.active:
        raise NotAllowed("This operator is not active.", code="operator_inactive")
    return operator


def launch_timestamp_check(timestamp: int) -> None:
    """A launch more than OPERATOR_LAUNCH_SKEW seconds away from now is refused (401)."""
    if abs(time.time() - timestamp) > settings.OPERATOR_LAUNCH_SKEW:
        raise Unauthenticated("The timestamp is too far from the studio's clock.", code="stale_timestamp")


def body_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def launch_seen(*, body: bytes) -> None:
    """A body seen before is a replay (401)."""
    if OperatorLaunch.objects.filter(body_digest=body_digest(body)).exists():
        raise Unauthenticated("This launch was already used.", code="replayed")


def operator_player(*, operator: Operator, player_id: str, display_name: str):
    """The studio user of the operator's player, created (a player, no password) the first time.
    The caller holds a transaction."""
    link = OperatorPlayer.objects.select_related("user").filter(operator=operator, player_id=player_id).first()
    if link is not None:
        user = link.user
        if display_name and user.first_name != display_name[:150]:
            user.first_name = display_name[:150]
            user.save(update_fields=["first_name"])
        return user
    User = get_user_model()
    user = User(username=f"{USERNAME_PREFIX}{operator.pk}-{secrets.token_hex(6)}", first_name=display_name[:150])
    user.set_unusable_password()
    user.save()
    user_created(actor=None, source="api", user=user)
    user.groups.add(role_group(PLAYER))
    OperatorPlayer.objects.create(operator=operator, player_id=player_id, user=user)
    return user


def launch_record(*, operator: Operator, body: bytes, user, table_id: int, language: str) -> OperatorLaunch:
    """The launch's row (its body's digest unique: a replay racing this one fails) with its one-time code.
    Launches older than twice the timestamp's window (and the code's life) are forgotten on the way: a
    replay of one is refused by its timestamp already."""
    keep = timedelta(seconds=2 * settings.OPERATOR_LAUNCH_SKEW) + LAUNCH_CODE_TTL
    OperatorLaunch.objects.filter(created_at__lt=timezone.now() - keep).delete()
    try:
        with transaction.atomic():
            return OperatorLaunch.objects.create(operator=operator, body_digest=body_digest(body), user=user, table_id=table_id,
                                                 language=language, code_expires_at=timezone.now() + LAUNCH_CODE_TTL)
    except IntegrityError:
        raise Unauthenticated("This launch was already used.", code="replayed") from None


def launch_code_redeem(*, code: str) -> OperatorLaunch | None:
    """The launch of an unused, unexpired code, marked used (compare-and-set: once); else None."""
    if not code or len(code) > 40:
        return None
    now = timezone.now()
    if OperatorLaunch.objects.filter(code=code, code_used_at=None, code_expires_at__gt=now).update(code_used_at=now) != 1:
        return None
    return OperatorLaunch.objects.select_related("user").get(code=code)


def operator_of(user) -> Operator | None:
    link = OperatorPlayer.objects.select_related("operator").filter(user=user).first()
    return link.operator if link else None
