"""Rounds played through the services for the reports' tests, and the rollups recomputed from the
rounds, the bets and the ledger, to compare with what settlement, voids and corrections kept."""
from __future__ import annotations

from collections import defaultdict
from datetime import UTC
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.db.models import Max

from bets.models import Account, Bet, LedgerEntry
from bets.settlement import round_settle
from reports.models import Rollup, RollupDay
from studio.money import to_minor
from tables.models import DealtCard, Incident, Round
from tables.selectors import round_multiplied

from ..incidents.conftest import close, deal, open_round, place, quick_player  # noqa: F401

COUNTERS = ["rounds", "cards", "card_ms", "round_ms", "incidents", "voids", "player_rounds", "bets", "stakes", "payouts"]


@pytest.fixture
def make_table(make_table):
    def make(**fields):
        fields.setdefault("betting_seconds", 600)  # nothing closes betting by itself in a test
        return make_table(**fields)

    return make


def play(table, dealer, bets: list[tuple], cards: list[str], joker: str = "KS", settle: bool = True, opened_at=None) -> Round:
    """Open a round (as if at `opened_at`), place (player, spot, amount) bets, close, deal `cards`
    (ending on the match), settle."""
    rnd = open_round(table, dealer, joker)
    if opened_at is not None:
        Round.objects.filter(pk=rnd.pk).update(opened_at=opened_at)
    for player, spot, amount in bets:
        place(player, rnd, spot, amount)
    close(rnd, dealer)
    assert deal(rnd, dealer, cards)
    if settle:  # committed at once (transaction=True), the in-process task runner may have settled it
        assert round_settle(round_id=rnd.pk) or Round.objects.get(pk=rnd.pk).status == Round.Status.SETTLED
    return Round.objects.get(pk=rnd.pk)


def _ms(start, end) -> int:
    return max(0, round((end - start).total_seconds() * 1000)) if start and end else 0


def recomputed() -> dict:
    """Every rollup figure from scratch: rounds and cards from the rounds, money from the ledger
    (stakes: the bet entries less the cancellations; payouts: wins less reversals, by the bets' spots)."""
    out: dict = defaultdict(lambda: dict.fromkeys(COUNTERS, 0))

    def key(rnd, spot=""):
        multiplier = (round_multiplied(rnd) or {}).get(spot, 1)  # a spot's bets apart per the multiplier its round drew
        return (rnd.table_id, rnd.opened_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0), rnd.dealer_id, rnd.shift_id, spot,
                multiplier)

    rounds = {r.pk: r for r in Round.objects.all()}
    for rnd in rounds.values():
        whole = out[key(rnd)]
        whole["incidents"] += Incident.objects.filter(round=rnd).count()
        if rnd.status == Round.Status.VOIDED:
            whole["voids"] += 1
        if rnd.status != Round.Status.SETTLED:
            continue
        last = DealtCard.objects.filter(round=rnd).aggregate(at=Max("dealt_at"))["at"]
        whole["rounds"] += 1
        whole["cards"] += rnd.cards_dealt
        whole["card_ms"] += _ms(rnd.closed_at, last)
        whole["round_ms"] += _ms(rnd.opened_at, rnd.finished_at)
        whole["player_rounds"] += Bet.objects.filter(round=rnd).exclude(status="cancelled").values("player").distinct().count()
    entries = LedgerEntry.objects.filter(account__kind=Account.Kind.PLAYER, bet__isnull=False).select_related("bet")
    bets_seen = set()
    for e in entries:
        rnd = rounds[e.round_id]
        if rnd.status != Round.Status.SETTLED:
            continue
        figures = [out[key(rnd)], out[key(rnd, e.bet.spot)]]
        amount = to_minor(e.amount)
        for f in figures:
            if e.kind in (LedgerEntry.Kind.BET, LedgerEntry.Kind.CANCEL):
                f["stakes"] -= amount
            elif e.kind in (LedgerEntry.Kind.WIN, LedgerEntry.Kind.REVERSAL):
                f["payouts"] += amount
        if e.kind == LedgerEntry.Kind.BET and e.bet.status != Bet.Status.CANCELLED and e.bet_id not in bets_seen:
            bets_seen.add(e.bet_id)
            for f in figures:
                f["bets"] += 1
    return {k: v for k, v in out.items() if any(v.values())}


def kept() -> dict:
    """The rollups as kept, without the rows every figure of which went back to 0."""
    rows = Rollup.objects.values_list("table_id", "hour", "dealer_id", "shift_id", "spot", "multiplier", *COUNTERS)
    out = {}
    for row in rows:
        figures = dict(zip(COUNTERS, row[6:], strict=True))
        figures["stakes"], figures["payouts"] = to_minor(figures["stakes"]), to_minor(figures["payouts"])
        if any(figures.values()):
            out[tuple(row[:6])] = figures
    return out


def days_from_hours() -> dict:
    """The daily spot rows as the hourly ones add up per TIME_ZONE day (of each row's hour)."""
    zone = ZoneInfo(settings.TIME_ZONE)
    out: dict = defaultdict(lambda: [0, 0, 0])
    for table, hour, dealer, shift, spot, multiplier, bets, stakes, payouts in Rollup.objects.exclude(spot="").values_list(
            "table_id", "hour", "dealer_id", "shift_id", "spot", "multiplier", "bets", "stakes", "payouts"):
        f = out[(table, hour.astimezone(zone).date(), dealer, shift, spot, multiplier)]
        f[0], f[1], f[2] = f[0] + bets, f[1] + to_minor(stakes), f[2] + to_minor(payouts)
    return {k: tuple(v) for k, v in out.items() if any(v)}


def days_kept() -> dict:
    return {tuple(row[:6]): (row[6], to_minor(row[7]), to_minor(row[8]))
            for row in RollupDay.objects.values_list("table_id", "day", "dealer_id", "shift_id", "spot", "multiplier", "bets", "stakes",
                                                     "payouts")
            if any(row[6:])}


def assert_rollups_exact() -> None:
    assert kept() == recomputed()
    assert days_kept() == days_from_hours()
