"""What the integrity API and the supervisors' stream read."""
from __future__ import annotations

from django.contrib.auth import get_user_model

import engine.integrity as ig
from engine.multipliers import Multipliers
from tables.models import Table

from .models import Alert, Baseline, Monitor


def alert_info(alert: Alert) -> dict:
    monitor = alert.monitor
    name = {Monitor.Kind.TABLE: lambda: monitor.table.name, Monitor.Kind.DEALER: lambda: monitor.dealer.username,
            Monitor.Kind.OPERATOR: lambda: monitor.operator.code}[monitor.kind]()
    return {
        "id": alert.pk,
        "subject": monitor.kind,
        "table": monitor.table_id,
        "dealer": monitor.dealer_id,
        "operator": monitor.operator_id,
        "name": name,
        "check": alert.check_name,
        "statistic": alert.statistic,
        "threshold": alert.threshold,
        "round": alert.round_id,
        "raised_at": alert.raised_at.isoformat(),
        "acknowledged_at": alert.acknowledged_at.isoformat() if alert.acknowledged_at else None,
        "acknowledged_by": alert.acknowledged_by.username if alert.acknowledged_by_id else None,
        "note": alert.note,
    }


def alerts(*, status: str | None = None, limit: int = 200) -> list[dict]:
    rows = Alert.objects.select_related("monitor__table", "monitor__dealer", "monitor__operator", "acknowledged_by")
    if status == "open":
        rows = rows.filter(acknowledged_at__isnull=True)
    elif status == "acknowledged":
        rows = rows.filter(acknowledged_at__isnull=False)
    return [alert_info(a) for a in rows[:limit]]


def progress(statistic: int, threshold: int) -> int:
    """How far a check is on its way to an alert: its statistic as a whole percentage of its alarm
    threshold, rounded down (100 and more: the threshold is reached)."""
    return max(0, statistic) * 100 // threshold if threshold > 0 else 0


def _checks(state: dict, checks, open_alerts: dict[str, int]) -> list[dict]:
    out = []
    for result in ig.evaluate(state, checks):
        alert = open_alerts.get(result.check)
        out.append({
            "check": result.check, "statistic": result.statistic,
            "threshold": result.threshold, "watch": result.watch, "progress": progress(result.statistic, result.threshold),
            "status": ig.ALERT if alert else result.status, "alert": alert,
        })
    return out


def _worst(checks: list[dict]) -> str:
    """A table's or dealer's status: its worst check's (an open alert, else a check on watch, else ok)."""
    statuses = {c["status"] for c in checks}
    return next((s for s in (ig.ALERT, ig.WATCH) if s in statuses), ig.OK)


def integrity_overview() -> dict:
    """Every table's checks (a table with no round yet at its initial state) and every monitored
    dealer's, with their open alerts; the studio's baseline."""
    monitors = list(Monitor.objects.all())
    open_alerts: dict[int, dict[str, int]] = {}
    for monitor_id, check, alert_id in Alert.objects.filter(acknowledged_at__isnull=True).values_list(
            "monitor_id", "check_name", "pk"):
        open_alerts.setdefault(monitor_id, {})[check] = alert_id
    by_table = {m.table_id: m for m in monitors if m.kind == Monitor.Kind.TABLE}
    dealers = {m.dealer_id: m for m in monitors if m.kind == Monitor.Kind.DEALER}
    names = dict(get_user_model().objects.filter(pk__in=dealers).values_list("pk", "username"))
    tables = []
    for table in Table.objects.order_by("id").only("id", "name", "multipliers"):
        monitor = by_table.get(table.pk)
        setting = Multipliers.from_value(table.multipliers)  # its draws' checks, afresh since its setting last changed
        state = ig.with_draws(monitor.state if monitor else ig.initial_state(), setting)
        alerts_of = open_alerts.get(monitor.pk, {}) if monitor else {}
        checks = _checks(state, ig.RESULT_CHECKS + ig.draw_checks(setting), alerts_of)
        tables.append({"table": table.pk, "name": table.name, "rounds": state["rounds"], "status": _worst(checks), "checks": checks})
    dealer_rows = []
    for dealer_id, monitor in sorted(dealers.items(), key=lambda kv: names.get(kv[0], "")):
        alerts_of = open_alerts.get(monitor.pk, {})
        checks = _checks(monitor.state, ig.RESULT_CHECKS + ig.OPERATIONAL_CHECKS, alerts_of)
        dealer_rows.append({"dealer": dealer_id, "name": names.get(dealer_id, ""), "rounds": monitor.state["rounds"],
                            "operational_rounds": monitor.state["ops_rounds"], "status": _worst(checks), "checks": checks})
    base = Baseline.objects.filter(pk=1).first() or Baseline()
    baseline = {"rounds": base.rounds, "corrections": base.corrections, "voids": base.voids, "timed": base.timed,
                "refused_scans": base.refused_scans, "cards": base.cards,
                "refused_per_100_cards": round(100 * base.refused_scans / base.cards, 2) if base.cards else None,
                "ready": base.rounds >= ig.MIN_BASELINE_ROUNDS}
    return {"tables": tables, "dealers": dealer_rows, "baseline": baseline}
