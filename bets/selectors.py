from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import BooleanField, Case, Count, Q, Sum, Value, When
from django.utils import timezone

from accounts.models import Operator, OperatorPlayer
from studio import sql
from studio.money import from_minor

from .models import Account, Bet, WalletTransaction

# A player's wallets and whether their operator keeps their money (a seamless player), in one
# statement: `GET /api/me/` is every page's first read, and two ORM queries cost it more CPU than
# the rest of the request (docs/PERFORMANCE.md, the token-authenticated read).
_MY_WALLETS = (
    f"SELECT NULL, NULL FROM {OperatorPlayer._meta.db_table} l JOIN {Operator._meta.db_table} o ON o.id = l.operator_id "
    f"WHERE l.user_id = %s AND o.wallet = %s "
    f"UNION ALL (SELECT a.currency, a.balance FROM {Account._meta.db_table} a WHERE a.kind = %s AND a.user_id = %s ORDER BY a.currency)")


def my_wallets(*, user) -> tuple[dict[str, Decimal], bool]:
    """The balance of each of the player's wallets by currency (sorted; a read: no wallet is made),
    and whether the player is a seamless operator's (whose balance is the operator's to tell)."""
    rows = sql.fetch_all(_MY_WALLETS, [user.pk, Operator.Wallet.SEAMLESS, Account.Kind.PLAYER, user.pk])
    seamless = any(currency is None for currency, _ in rows)
    return {currency: from_minor(minor) for currency, minor in rows if currency is not None}, seamless


def round_bets(*, round_id: int, player=None) -> dict:
    """Bets of a round (one player's, or everyone's), with totals per spot."""
    bets = Bet.objects.filter(round_id=round_id).exclude(status=Bet.Status.CANCELLED).select_related("player").order_by("id")
    if player is not None:
        bets = bets.filter(player=player)
    per_spot = bets.order_by().values("spot").annotate(count=Count("id"), staked=Sum("amount"), paid=Sum("payout"))
    totals = {row["spot"]: {"count": row["count"], "staked": str(row["staked"]), "paid": str(row["paid"])} for row in per_spot}
    return {
        "bets": list(bets[:1000]),
        "totals": totals,
        "staked": sum((Decimal(t["staked"]) for t in totals.values()), Decimal("0.00")),
        "paid": sum((Decimal(t["paid"]) for t in totals.values()), Decimal("0.00")),
    }


def wallet_transactions(*, operator_code: str | None = None, status: str | None = None, round_id: int | None = None):
    """An operator's (or every operator's) wallet transactions for the supervisors: the stuck first
    (unacknowledged the longest), then the newest. `status=pending`: only the unacknowledged."""
    from_now = timezone.now() - timedelta(seconds=settings.SEAMLESS_ALERT_AFTER)
    rows = WalletTransaction.objects.select_related("operator", "player", "reference")
    if operator_code:
        rows = rows.filter(operator__code=operator_code)
    if status:
        rows = rows.filter(status=status)
    if round_id:
        rows = rows.filter(round_id=round_id)
    stuck = Case(When(status=WalletTransaction.Status.PENDING, created_at__lt=from_now, then=Value(True)), default=Value(False),
                 output_field=BooleanField())
    pending_first = Case(When(status=WalletTransaction.Status.PENDING, then=Value(0)), default=Value(1))
    return rows.annotate(stuck=stuck, pending_first=pending_first).order_by("-stuck", "pending_first", "-id")


def operators_overview() -> list[dict]:
    """Every operator (never its secret) with how many of its transactions are pending and stuck."""
    from_now = timezone.now() - timedelta(seconds=settings.SEAMLESS_ALERT_AFTER)
    pending = Count("id", filter=Q(status=WalletTransaction.Status.PENDING))
    stuck = Count("id", filter=Q(status=WalletTransaction.Status.PENDING, created_at__lt=from_now))
    counts = {row["operator_id"]: row for row in
              WalletTransaction.objects.order_by().values("operator_id").annotate(pending=pending, stuck=stuck)}
    return [{"code": op.code, "name": op.name, "wallet": op.wallet, "wallet_url": op.wallet_url, "currency": op.currency,
             "active": op.active, "pending": counts.get(op.pk, {}).get("pending", 0), "stuck": counts.get(op.pk, {}).get("stuck", 0)}
            for op in Operator.objects.order_by("code")]
