"""The integrity monitor: each round updates its table's and its dealer's checks once, at constant
cost, inside the round's transaction (tables.hooks.round_settled and round_voided); a check that
reaches its threshold records an alert and tells every supervisor's console after commit.

Locks, in this order everywhere: the table's monitor, the dealer's, the studio's baseline, then
alerts. A round is counted once (MonitoredRound): a re-settlement after a correction changes no check.
What a round tells: its results (engine.integrity.RoundFacts) to both monitors; for a person's
round, its operational signals (a correction, a void, seconds per card) to the dealer's, against
the studio's own rates. Refused scans are not recorded by the studio (a refused card changes
nothing and is not stored), so the monitor has no signal for them.
"""
from __future__ import annotations

import dataclasses

from django.db import IntegrityError, transaction
from django.db.models import Max, Min
from django.utils import timezone

import engine.integrity as ig
from studio.errors import NotFound, WrongMoment, invalid
from tables.access import PERSON, round_driver
from tables.models import DealtCard, Round, RoundEvent
from tables.selectors import round_deal

from . import events, stream
from .models import Alert, Baseline, Monitor, MonitoredRound
from .selectors import alert_info


def _monitor(**subject) -> Monitor:
    """The subject's monitor, locked; created on its first round."""
    kind = Monitor.Kind.TABLE if "table_id" in subject else Monitor.Kind.DEALER
    monitor = Monitor.objects.select_for_update().filter(kind=kind, **subject).first()
    if monitor is None:
        try:
            with transaction.atomic():
                Monitor.objects.create(kind=kind, state=ig.initial_state(), **subject)
        except IntegrityError:  # another round created it meanwhile
            pass
        monitor = Monitor.objects.select_for_update().get(kind=kind, **subject)
    return monitor


def _baseline() -> Baseline:
    Baseline.objects.get_or_create(pk=1)
    return Baseline.objects.select_for_update().get(pk=1)


def _engine_baseline(row: Baseline) -> ig.Baseline:
    return ig.Baseline(rounds=row.rounds, corrections=row.corrections, voids=row.voids, timed=row.timed,
                       log_seconds=row.log_seconds, log_seconds_sq=row.log_seconds_sq)


def _store_baseline(row: Baseline, base: ig.Baseline) -> None:
    Baseline.objects.filter(pk=row.pk).update(rounds=base.rounds, corrections=base.corrections, voids=base.voids,
                                              timed=base.timed, log_seconds=base.log_seconds,
                                              log_seconds_sq=base.log_seconds_sq)


def _claim(rnd: Round, field: str) -> bool:
    """Mark the round counted for `field` (results, voided); False if it already was."""
    MonitoredRound.objects.get_or_create(round_id=rnd.pk)
    return MonitoredRound.objects.filter(round_id=rnd.pk, **{field: False}).update(**{field: True}) == 1


def _save(monitor: Monitor, state: dict, checks, rnd: Round) -> None:
    monitor.state = state
    monitor.save(update_fields=["state", "updated_at"])
    for result in ig.evaluate(state, checks):
        if result.status != ig.ALERT or Alert.objects.filter(monitor=monitor, check_name=result.check,
                                                             acknowledged_at__isnull=True).exists():
            continue
        alert = Alert.objects.create(monitor=monitor, check_name=result.check, statistic=result.statistic,
                                     threshold=result.threshold, round=rnd)
        stream.supervisor_event(events.AlertRaised(alert=alert_info(alert)))


def _seconds_per_card(rnd: Round) -> float | None:
    span = DealtCard.objects.filter(round=rnd).aggregate(first=Min("dealt_at"), last=Max("dealt_at"))
    if rnd.cards_dealt < 2 or span["first"] is None or span["last"] == span["first"]:
        return None
    return (span["last"] - span["first"]).total_seconds() / (rnd.cards_dealt - 1)


def on_round_settled(sender, *, rnd: Round, **kwargs) -> None:
    """tables.hooks.round_settled, inside the settlement's transaction: count the round, once."""
    if not _claim(rnd, "results"):
        return
    facts = ig.RoundFacts.of(round_deal(rnd))
    table = _monitor(table_id=rnd.table_id)
    _save(table, ig.observe_results(table.state, facts), ig.RESULT_CHECKS, rnd)
    if rnd.dealer_id is None:
        return
    dealer = _monitor(dealer_id=rnd.dealer_id)
    state = ig.observe_results(dealer.state, facts)
    checks = ig.RESULT_CHECKS
    if round_driver(rnd) == PERSON:
        corrected = RoundEvent.objects.filter(round=rnd, action="corrected").exists()
        seconds = _seconds_per_card(rnd)
        row = _baseline()
        base = _engine_baseline(row)
        state = ig.observe_operations(state, base, corrected=corrected, voided=False, seconds_per_card=seconds)
        _store_baseline(row, ig.baseline_after(base, corrected=corrected, voided=False, seconds_per_card=seconds))
        checks = ig.RESULT_CHECKS + ig.OPERATIONAL_CHECKS
    _save(dealer, state, checks, rnd)


def on_round_voided(sender, *, rnd: Round, **kwargs) -> None:
    """tables.hooks.round_voided, inside the void's transaction: a person's voided round counts once
    for its dealer's `voids` check (as a round of its own when it had not been settled)."""
    if rnd.dealer_id is None or round_driver(rnd) != PERSON or not _claim(rnd, "voided"):
        return
    dealer = _monitor(dealer_id=rnd.dealer_id)
    row = _baseline()
    base = _engine_baseline(row)
    state = ig.observe_operations(dealer.state, base, corrected=False, voided=True, seconds_per_card=None)
    counted = MonitoredRound.objects.filter(round_id=rnd.pk, results=True).exists()
    after = ig.baseline_after(base, corrected=False, voided=True, seconds_per_card=None)
    if counted:  # the settled round is in the baseline already: only its void is new
        after = dataclasses.replace(after, rounds=base.rounds)
    _store_baseline(row, after)
    _save(dealer, state, ig.RESULT_CHECKS + ig.OPERATIONAL_CHECKS, rnd)


@transaction.atomic
def alert_acknowledge(*, alert_id: int, actor, note: str) -> Alert:
    """Acknowledge an open alert with a note (compare-and-set from open: 409 if it was already);
    its check starts afresh."""
    if not note or not note.strip():
        raise invalid("note", "Say what was found or done.")
    monitor_id = Alert.objects.filter(pk=alert_id).values_list("monitor_id", flat=True).first()
    if monitor_id is None:
        raise NotFound("No such alert.", code="not_found")
    monitor = Monitor.objects.select_for_update().get(pk=monitor_id)
    alert = Alert.objects.get(pk=alert_id)
    done = Alert.objects.filter(pk=alert_id, acknowledged_at__isnull=True).update(
        acknowledged_at=timezone.now(), acknowledged_by=actor, note=note.strip())
    if done != 1:
        raise WrongMoment("This alert was already acknowledged.", code="alert_acknowledged",
                          extra={"acknowledged_by": alert.acknowledged_by.username if alert.acknowledged_by_id else None})
    monitor.state = ig.reset(monitor.state, alert.check_name)
    monitor.save(update_fields=["state", "updated_at"])
    alert = Alert.objects.select_related("monitor__table", "monitor__dealer", "acknowledged_by").get(pk=alert_id)
    stream.supervisor_event(events.AlertAcknowledged(alert=alert_info(alert)))
    return alert
