"""A player's own rounds ("game recall", `GET /api/me/rounds/`): each round they bet on, newest
first, with its joker, its cards in order, their bets, what came back and the net; a voided round
with the reason the supervisor gave. A page costs the same few queries, whatever its size."""
from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.db.models import Count, QuerySet, Sum

from tables.models import DealtCard, Round, RoundEvent
from tables.selectors import applied_multiplier, round_multiplied

from .models import Bet

_DONE = (Round.Status.SETTLED, Round.Status.VOIDED)


def my_rounds(player) -> QuerySet:
    """The rounds the player bet on (cancelled bets included), newest first: what is paginated."""
    return Round.objects.filter(pk__in=Bet.objects.filter(player=player).values("round_id")).order_by("-id")


def my_rounds_detail(player, rounds: list[Round]) -> list[dict]:
    ids = [rnd.pk for rnd in rounds]
    bets, cards, reasons = defaultdict(list), defaultdict(list), {}
    for bet in Bet.objects.filter(player=player, round_id__in=ids).order_by("id"):
        bets[bet.round_id].append(bet)
    for card in DealtCard.objects.filter(round_id__in=ids).order_by("round_id", "position").values("round_id", "position", "side", "card"):
        cards[card.pop("round_id")].append(card)
    for round_id, data in RoundEvent.objects.filter(round_id__in=ids, to_status=Round.Status.VOIDED).order_by("id").values_list("round_id", "data"):
        reasons[round_id] = data.get("reason", "")
    rows = []
    for rnd in rounds:
        multiplied = round_multiplied(rnd)
        placed = [bet for bet in bets[rnd.pk] if bet.status != Bet.Status.CANCELLED]
        staked = sum((bet.amount for bet in placed), Decimal("0"))
        returned = sum((bet.payout for bet in placed), Decimal("0"))
        done = rnd.status in _DONE
        rows.append({
            "round": rnd.pk, "table": rnd.table_id, "status": rnd.status, "opened_at": rnd.opened_at,
            "joker": rnd.joker, "first_side": rnd.first_side, "winner": rnd.winner or None,
            "cards": cards[rnd.pk],
            "multipliers": rnd.multipliers,
            "bets": [{"bet": bet.pk, "spot": bet.spot, "amount": bet.amount, "status": bet.status, "payout": bet.payout,
                      **applied_multiplier(multiplied, bet.spot, bet.status)} for bet in bets[rnd.pk]],
            "staked": staked, "returned": returned if done else None, "net": returned - staked if done else None,
            "void_reason": reasons.get(rnd.pk) if rnd.status == Round.Status.VOIDED else None,
        })
    return rows


def round_spot_totals(rnd: Round, order: list[str]) -> list[dict]:
    """Every player's bets of one round added up per spot (cancelled ones left out), in `order`
    (the felt's order of the round's spots): what a supervisor reads beside the round's totals."""
    rank = {spot: n for n, spot in enumerate(order)}
    rows = (Bet.objects.filter(round=rnd).exclude(status=Bet.Status.CANCELLED).values("spot")
            .annotate(bets=Count("id"), staked=Sum("amount"), paid=Sum("payout")).order_by())
    return sorted(({"spot": row["spot"], "bets": row["bets"], "staked": row["staked"], "paid": row["paid"]} for row in rows),
                  key=lambda row: (rank.get(row["spot"], len(rank)), row["spot"]))
