"""The integrity monitor: each round updates its table's and its dealer's checks once, at constant
cost, inside the round's transaction (tables.hooks.round_settled and round_voided); a check that
reaches its threshold records an alert and tells every supervisor's console after commit.

Locks, in this order everywhere: the table's monitor, the dealer's, the studio's baseline, then
alerts. A round is counted once (MonitoredRound): a re-settlement after a correction changes no check.
What a round tells: its results (engine.integrity.RoundFacts) to both monitors, and at a table with
random multipliers its draw to the table's (engine.integrity.observe_draw); for a person's
round, its operational signals (a correction, a void, seconds per card) to the dealer's, against
the studio's own rates. A refused scan (an unreadable or duplicate card) is counted on the
round's marker when it happens (tables.hooks.card_refused), and read with the claim at settlement.
"""
from __future__ import annotations

import dataclasses
import json

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

import engine.integrity as ig
from bets.outbox import operators_with_stuck
from studio.errors import NotFound, WrongMoment, invalid
from tables.access import PERSON, round_driver
from tables.models import DealtCard, Round, RoundEvent
from tables.selectors import round_config, round_deal

from . import events, stream
from .models import Alert, Baseline, Monitor, MonitoredRound
from .selectors import alert_info


MONITOR, BASELINE, MARKER = Monitor._meta.db_table, Baseline._meta.db_table, MonitoredRound._meta.db_table


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def _lock_monitor(kind: str, subject_id: int) -> Monitor:
    """The subject's monitor, created on its first round, locked: one statement either way (an
    upsert whose conflict branch locks the row), so every round costs the same statements."""
    column = "table_id" if kind == Monitor.Kind.TABLE else "dealer_id"
    with connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {MONITOR} (kind, {column}, state, updated_at) VALUES (%s, %s, %s, %s) "
            f"ON CONFLICT ({column}) WHERE kind = '{kind}' DO UPDATE SET updated_at = EXCLUDED.updated_at "
            f"RETURNING id, state",
            [kind, subject_id, json.dumps(ig.initial_state()), timezone.now()])
        monitor_id, state = cur.fetchone()
    monitor = Monitor(pk=monitor_id, kind=kind, state=_json(state), **{column: subject_id})
    return monitor


def _count_baseline(*, corrected: bool, voided: bool, seconds_per_card: float | None, rounds: int = 1,
                    refused_scans: int = 0, cards: int = 0) -> ig.Baseline:
    """Add one round to the studio's baseline (created on the first) and return it as it was
    before: one statement, which locks the row until commit."""
    step = ig.baseline_after(ig.Baseline(), corrected=corrected, voided=voided, seconds_per_card=seconds_per_card,
                             refused_scans=refused_scans, cards=cards)
    step = dataclasses.replace(step, rounds=rounds, timed=step.timed if rounds else 0)
    names = tuple(f.name for f in dataclasses.fields(ig.Baseline))
    values = [getattr(step, n) for n in names]
    with connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {BASELINE} (id, {', '.join(names)}) VALUES (1, {', '.join(['%s'] * len(names))}) "
            f"ON CONFLICT (id) DO UPDATE SET " + ", ".join(f"{n} = {BASELINE}.{n} + EXCLUDED.{n}" for n in names)
            + f" RETURNING {', '.join(names)}", values)
        after = cur.fetchone()
    return ig.Baseline(**{n: a - v for n, a, v in zip(names, after, values, strict=True)})


def _claim(rnd: Round, field: str) -> int | None:
    """Mark the round counted for `field` (results, voided): its refused scans so far, or None if
    it already was counted. One statement."""
    with connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {MARKER} (round_id, results, voided, refused_scans) VALUES (%s, %s, %s, 0) "
            f"ON CONFLICT (round_id) DO UPDATE SET {field} = TRUE WHERE NOT {MARKER}.{field} RETURNING refused_scans",
            [rnd.pk, field == "results", field == "voided"])
        row = cur.fetchone()
    return None if row is None else row[0]


def on_card_refused(sender, *, rnd: Round, code: str = "", **kwargs) -> None:
    """tables.hooks.card_refused: one more refused scan on the round (one statement, no lock on the
    round: the refused deal changed nothing). A round already counted keeps it for the record."""
    with connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {MARKER} (round_id, results, voided, refused_scans) SELECT id, FALSE, FALSE, 1 "
            f"FROM {Round._meta.db_table} WHERE id = %s "
            f"ON CONFLICT (round_id) DO UPDATE SET refused_scans = {MARKER}.refused_scans + 1", [rnd.pk])


def _save(monitor: Monitor, state: dict, checks, rnd: Round) -> None:
    Monitor.objects.filter(pk=monitor.pk).update(state=state, updated_at=timezone.now())
    monitor.state = state
    for result in ig.evaluate(state, checks):
        if result.status != ig.ALERT or Alert.objects.filter(monitor_id=monitor.pk, check_name=result.check,
                                                             acknowledged_at__isnull=True).exists():
            continue
        alert = Alert.objects.create(monitor=monitor, check_name=result.check, statistic=result.statistic,
                                     threshold=result.threshold, round=rnd)
        stream.supervisor_event(events.AlertRaised(alert=alert_info(alert)))


def _seconds_per_card(times: list) -> float | None:
    if len(times) < 2 or times[-1] <= times[0]:
        return None
    return (times[-1] - times[0]).total_seconds() / (len(times) - 1)


def on_round_settled(sender, *, rnd: Round, **kwargs) -> None:
    """tables.hooks.round_settled, inside the settlement's transaction: count the round, once.
    The same eight statements for every round (no alert raised): the claim, the cards, each
    monitor's upsert and update, the correction flag and the baseline."""
    if rnd.status != Round.Status.SETTLED:  # sent only as a round is settled; anything else is not a result
        return
    refused = _claim(rnd, "results")
    if refused is None:
        return
    dealt = list(DealtCard.objects.filter(round=rnd).order_by("position").values_list("card", "dealt_at"))
    facts = ig.RoundFacts.of(round_deal(rnd, [card for card, _ in dealt]))
    table = _lock_monitor(Monitor.Kind.TABLE, rnd.table_id)
    state, checks = ig.observe_results(table.state, facts), ig.RESULT_CHECKS
    setting = round_config(rnd).multipliers
    if setting is not None and rnd.multipliers:  # the studio's own draw, watched at its table
        state = ig.observe_draw(state, setting, [(d["spot"], d["multiplier"]) for d in rnd.multipliers])
        checks = checks + ig.draw_checks(setting)
    _save(table, state, checks, rnd)
    if rnd.dealer_id is None:
        return
    dealer = _lock_monitor(Monitor.Kind.DEALER, rnd.dealer_id)
    state = ig.observe_results(dealer.state, facts)
    checks = ig.RESULT_CHECKS
    if round_driver(rnd) == PERSON:
        corrected = RoundEvent.objects.filter(round=rnd, action="corrected").exists()
        seconds = _seconds_per_card([at for _, at in dealt])
        base = _count_baseline(corrected=corrected, voided=False, seconds_per_card=seconds, refused_scans=refused,
                               cards=len(dealt))
        state = ig.observe_operations(state, base, corrected=corrected, voided=False, seconds_per_card=seconds,
                                      refused_scans=refused)
        checks = ig.RESULT_CHECKS + ig.OPERATIONAL_CHECKS
    _save(dealer, state, checks, rnd)


def on_round_voided(sender, *, rnd: Round, **kwargs) -> None:
    """tables.hooks.round_voided, inside the void's transaction: a person's voided round counts once
    for its dealer's `voids` check (and as a round of the baseline when it had not been settled)."""
    if rnd.dealer_id is None or round_driver(rnd) != PERSON:
        return
    counted = MonitoredRound.objects.filter(round_id=rnd.pk, results=True).exists()
    refused = _claim(rnd, "voided")
    if refused is None:
        return
    refused = 0 if counted else refused  # a settled round's refused scans were counted with it
    dealer = _lock_monitor(Monitor.Kind.DEALER, rnd.dealer_id)
    base = _count_baseline(corrected=False, voided=True, seconds_per_card=None, rounds=0 if counted else 1,
                           refused_scans=refused)
    state = ig.observe_operations(dealer.state, base, corrected=False, voided=True, seconds_per_card=None,
                                  refused_scans=refused)
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
    if alert.check_name in ig.CHECKS:  # the engine's checks start afresh; an operator's wallet check has no state
        monitor.state = ig.reset(monitor.state, alert.check_name)
        monitor.save(update_fields=["state", "updated_at"])
    alert = Alert.objects.select_related("monitor__table", "monitor__dealer", "monitor__operator", "acknowledged_by").get(pk=alert_id)
    stream.supervisor_event(events.AlertAcknowledged(alert=alert_info(alert)))
    return alert


WALLET_CHECK = "wallet_unacknowledged"


def wallet_alerts_raise() -> int:
    """Beat, every SEAMLESS_SWEEP_SECONDS: an alert for each operator with wallet transactions
    unacknowledged for longer than SEAMLESS_ALERT_AFTER seconds (bets.outbox), unless one is open
    already: the statistic is how many, the threshold the seconds. Acknowledged while some are still
    stuck, it is raised again. Returns how many were raised."""
    raised = 0
    for operator_id, stuck in sorted(operators_with_stuck().items()):
        with transaction.atomic():
            monitor, _ = Monitor.objects.select_for_update().get_or_create(kind=Monitor.Kind.OPERATOR, operator_id=operator_id,
                                                                           defaults={"state": {}})
            if Alert.objects.filter(monitor=monitor, check_name=WALLET_CHECK, acknowledged_at__isnull=True).exists():
                continue
            alert = Alert.objects.create(monitor=monitor, check_name=WALLET_CHECK, statistic=stuck, threshold=settings.SEAMLESS_ALERT_AFTER)
            alert = Alert.objects.select_related("monitor__operator").get(pk=alert.pk)
            stream.supervisor_event(events.AlertRaised(alert=alert_info(alert)))
            raised += 1
    return raised
