from decimal import Decimal

from django.db.models import Count, Sum

from .models import Bet


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
