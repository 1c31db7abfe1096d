"""The floor: every table a supervisor sees, with its state, the dealer on shift (for how long, a
rotation due), its current round, who is betting on it, what it could cost the house, and its open
incidents, read in a fixed number of set-based queries whatever
the number of tables (the supervisor console polls it)."""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, OuterRef, Subquery, Sum
from django.utils import timezone

from bets.models import Bet
from engine import possible_facts, worst_case
from tables.access import VIRTUAL, MATCH, table_driver, visible_tables, with_driver
from tables.models import DealtCard, Incident, Round, Shift, Table
from tables.selectors import betting_left_ms, round_config, round_deal, round_multiplied
from tables.shifts import rotation_due

ZERO = Decimal("0.00")
# A virtual or match table deals a card every deal_interval_ms: silent for this many intervals
# (and at least MIN_VIRTUAL_SILENCE seconds), it is flagged.
VIRTUAL_SILENCE_INTERVALS = 5
MIN_VIRTUAL_SILENCE = 3


def expected_silence(table: Table, driver: str) -> float:
    """The longest the table may go without a card once betting has closed, in seconds."""
    if driver in (VIRTUAL, MATCH):
        return max(MIN_VIRTUAL_SILENCE, VIRTUAL_SILENCE_INTERVALS * table.deal_interval_ms / 1000)
    return float(settings.FLOOR_SILENCE_SECONDS)


def floor(*, user) -> list[dict]:
    """Seven queries: the tables (with each one's latest round's id and its open shift), those rounds,
    their cards, their bets grouped by spot and stake, their players, the open shifts' settled rounds
    (turnover and GGR so far, from the rounds' totals), and the open incidents."""
    now = timezone.now()
    latest = Round.objects.filter(table=OuterRef("pk")).order_by("-id").values("id")[:1]
    open_shift = Shift.objects.filter(table=OuterRef("pk"), ended_at=None)
    tables = list(with_driver(visible_tables(user)).annotate(
        latest_round=Subquery(latest), shift_id=Subquery(open_shift.values("id")[:1]),
        shift_dealer=Subquery(open_shift.values("dealer__username")[:1]),
        shift_started=Subquery(open_shift.values("started_at")[:1]),
    ).order_by("id"))
    round_ids = [t.latest_round for t in tables if t.latest_round is not None]
    rounds = {r.pk: r for r in Round.objects.filter(pk__in=round_ids).select_related("dealer")}
    cards: dict[int, list[tuple[str, datetime]]] = defaultdict(list)
    for row in DealtCard.objects.filter(round_id__in=round_ids).order_by("round_id", "position").values_list(
            "round_id", "card", "dealt_at"):
        cards[row[0]].append((row[1], row[2]))
    live = Bet.objects.filter(round_id__in=round_ids).exclude(status=Bet.Status.CANCELLED).order_by()
    stakes: dict[int, list[tuple[str, Decimal, int]]] = defaultdict(list)
    for round_id, spot, amount, n in live.values("round_id", "spot", "amount").annotate(n=Count("id")).values_list(
            "round_id", "spot", "amount", "n"):
        stakes[round_id].append((spot, amount, n))
    people = {row["round_id"]: row for row in live.values("round_id").annotate(
        players=Count("player_id", distinct=True), bets=Count("id"))}
    open_shifts = [t.shift_id for t in tables if t.shift_id is not None]
    shift_money = {row["shift_id"]: row for row in Round.objects.filter(shift_id__in=open_shifts, status=Round.Status.SETTLED)
                   .order_by().values("shift_id").annotate(rounds=Count("id"), staked=Sum("total_staked"), paid=Sum("total_paid"))}
    incidents: dict[int, list[dict]] = defaultdict(list)
    for inc in Incident.objects.filter(status=Incident.Status.OPEN, round__table_id__in=[t.pk for t in tables]).select_related(
            "raised_by", "round").order_by("id"):
        incidents[inc.round.table_id].append({
            "id": inc.pk, "round": inc.round_id, "round_status": inc.round.status, "kind": inc.kind,
            "created_at": inc.created_at, "raised_by": inc.raised_by.username, "notes": len(inc.notes),
        })
    result = []
    for table in tables:
        driver = table_driver(table)
        rnd = rounds.get(table.latest_round)
        result.append({
            "id": table.pk, "name": table.name, "driver": driver, "currency": table.currency,
            "min_bet": table.min_bet, "max_bet": table.max_bet, "betting_seconds": table.betting_seconds,
            "state": table.state, "state_reason": table.state_reason, "shift_minutes": table.shift_minutes,
            "on_shift": None if table.shift_id is None else {
                "id": table.shift_id, "dealer": table.shift_dealer, "started_at": table.shift_started,
                "seconds": int((now - table.shift_started).total_seconds()),
                "rotation_due": rotation_due(started_at=table.shift_started, minutes=table.shift_minutes, now=now),
                **_shift_money(shift_money.get(table.shift_id)),
            },
            "round": None if rnd is None else _round(rnd, cards[rnd.pk], stakes[rnd.pk], people.get(rnd.pk),
                                                     expected_silence(table, driver), now),
            "incidents": incidents[table.pk],
        })
    return result


def _shift_money(row: dict | None) -> dict:
    """The shift's settled rounds so far: how many, their turnover (stakes) and the house's gross gaming revenue."""
    staked, paid = (row["staked"], row["paid"]) if row else (ZERO, ZERO)
    return {"rounds": row["rounds"] if row else 0, "turnover": staked, "ggr": staked - paid}


def _round(rnd: Round, cards: list[tuple[str, datetime]], stakes: list, people: dict | None, expected: float, now) -> dict:
    last_card_at = cards[-1][1] if cards else None
    if rnd.status == Round.Status.VOIDED or not stakes:
        staked = sum((amount * n for _, amount, n in stakes), ZERO)
        exposure, worst_payout = ZERO, ZERO  # no bet, or every stake went back: the round can cost nothing more
    else:
        deal = round_deal(rnd, [card for card, _ in cards])
        worst = worst_case(round_config(rnd), stakes, possible_facts(deal), round_multiplied(rnd))
        staked, exposure, worst_payout = worst.staked, worst.exposure, worst.worst_payout
    silent = None
    if rnd.status == Round.Status.DEALING:
        since = last_card_at or rnd.closed_at or rnd.closes_at
        silent = max(0.0, (now - since).total_seconds())
    left = betting_left_ms(rnd, now)
    return {
        "id": rnd.pk, "status": rnd.status, "joker": rnd.joker, "first_side": rnd.first_side,
        "winner": rnd.winner or None, "cards_dealt": rnd.cards_dealt, "opened_at": rnd.opened_at,
        "closes_at": rnd.closes_at, "betting_left_ms": left, "last_card_at": last_card_at,
        "silent_seconds": None if silent is None else round(silent, 1), "expected_seconds": expected,
        "stalled": silent is not None and silent > expected,
        "dealer": rnd.dealer.username if rnd.dealer_id else None,
        "players": people["players"] if people else 0, "bets": people["bets"] if people else 0,
        "staked": staked, "worst_payout": worst_payout, "exposure": exposure,
    }
