"""The reports, read from the rollups only (never from the bets): two grouped statements over the
period's rows, one for the rounds as a whole and one for the spots.

The theoretical hold of a spot is 1 - its exact return to player (engine.odds) under the rules each
stake was bet under (the rounds' settings snapshots, reports.models.Rules), weighted by those
stakes; the observed hold is (stakes - payouts) / stakes.
Days are the studio's TIME_ZONE days; an hour's row belongs to the day its hour starts in.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import functools
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from engine import EngineError, TableConfig, odds, percent4
from accounts.models import Operator
from studio.money import from_minor, to_minor
from tables.models import Table

from .models import ROUND_FIGURES, OperatorRollup, Rollup, RollupDay, Rules

GROUPS = ("table", "dealer", "shift", "day", "hour", "operator", "multiplier")
STUDIO_WALLETS = "studio"  # group=operator: the key of the row of the studio's own wallets
ROLLUP = Rollup._meta.db_table
DAY = RollupDay._meta.db_table
ROUND_COLUMNS = ROUND_FIGURES
TWO = Decimal("0.01")


@dataclass(frozen=True)
class Filters:
    start: datetime  # inclusive, aware
    end: datetime  # exclusive, aware
    table: int | None = None
    dealer: int | None = None


def _key_sql(group: str) -> tuple[str, tuple]:
    if group == "day":
        return connection.ops.datetime_cast_date_sql("r.hour", (), settings.TIME_ZONE)
    return {"table": "r.table_id", "dealer": "r.dealer_id", "shift": "r.shift_id", "hour": "r.hour", "multiplier": "r.multiplier"}[group], ()


def _where(filters: Filters, whole_round: bool) -> tuple[str, list]:
    adapt = connection.ops.adapt_datetimefield_value
    sql = [f"r.spot {'=' if whole_round else '<>'} ''", "r.hour >= %s", "r.hour < %s"]
    params: list = [adapt(filters.start), adapt(filters.end)]
    if filters.table is not None:
        sql.append("r.table_id = %s")
        params.append(filters.table)
    if filters.dealer is not None:
        sql.append("r.dealer_id = %s")
        params.append(filters.dealer)
    return " AND ".join(sql), params


def _rtp_text(value: Fraction) -> str:
    with localcontext() as ctx:
        ctx.prec = 30
        return str(Decimal(value.numerator) / Decimal(value.denominator))


@functools.lru_cache(maxsize=256)
def _returns(config_json: str) -> tuple[tuple[str, str], ...]:
    """(spot, return to player) of every spot a set of rules offers; () for rules the engine refuses."""
    try:
        config = TableConfig.from_dict(json.loads(config_json))
    except EngineError:  # an edited row: no theoretical figure
        return ()
    return tuple((o.spot, _rtp_text(o.rtp)) for o in odds(config))


def _theoretical() -> list[tuple[str, str, str]]:
    """(rules, spot, return to player) of every spot of every set of rules rounds were played under
    (a few rows: a table's rules change seldom; each set's odds are worked out once per process)."""
    rows = []
    for key, config in Rules.objects.values_list("key", "config"):
        rows += [(key, spot, rtp) for spot, rtp in _returns(json.dumps(config, sort_keys=True))]
    return rows


def _fetch(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def _round_rows(group: str, filters: Filters) -> dict:
    key, key_params = _key_sql(group)
    where, params = _where(filters, whole_round=True)
    sums = ", ".join(f"SUM(r.{c})" for c in ROUND_COLUMNS)
    rows = _fetch(f"SELECT {key} AS k, {sums} FROM {ROLLUP} r WHERE {where} GROUP BY 1", [*key_params, *params])
    return {row[0]: dict(zip(ROUND_COLUMNS, (int(v or 0) for v in row[1:]), strict=True)) for row in rows}


def _whole_days(filters: Filters) -> tuple[date, date] | None:
    """The period's first and last-but-one day when it runs from a midnight to a midnight of TIME_ZONE."""
    zone = ZoneInfo(settings.TIME_ZONE)
    start, end = filters.start.astimezone(zone), filters.end.astimezone(zone)
    if any((t.hour, t.minute, t.second, t.microsecond) != (0, 0, 0, 0) for t in (start, end)):
        return None
    return start.date(), end.date()


def _spot_source(group: str, filters: Filters) -> tuple[str, list]:
    """The spots' sums per group, table and spot: from the daily rows when the period is whole days
    and the group is not the hour (a twenty-fourth of the rows), else from the hourly rows."""
    days = _whole_days(filters) if group != "hour" else None
    if days is None:
        key, key_params = _key_sql(group)
        where, params = _where(filters, whole_round=False)
        table = ROLLUP
    else:
        key, key_params = ("r.day", ()) if group == "day" else _key_sql(group)
        adapt = connection.ops.adapt_datefield_value
        where, params = "r.day >= %s AND r.day < %s", [adapt(days[0]), adapt(days[1])]
        if filters.table is not None:
            where, params = where + " AND r.table_id = %s", [*params, filters.table]
        if filters.dealer is not None:
            where, params = where + " AND r.dealer_id = %s", [*params, filters.dealer]
        table = DAY
    sql = (f"SELECT {key} AS k, r.rules, r.spot, SUM(r.bets) AS bets, SUM(r.stakes) AS stakes, SUM(r.payouts) AS payouts "
           f"FROM {table} r WHERE {where} GROUP BY 1, 2, 3")
    return sql, [*key_params, *params]


def _spot_rows(group: str, filters: Filters) -> dict:
    """Per group and spot: summed per set of rules first (a few rows per group), then weighted by each
    set's return to player: the join and the NUMERIC products touch the sums, not the rows."""
    sums, sum_params = _spot_source(group, filters)
    theo = _theoretical()
    if theo:
        values = ", ".join(["(CAST(%s AS VARCHAR(16)), CAST(%s AS VARCHAR(16)), CAST(%s AS NUMERIC))"] * len(theo))
        with_sql = f"WITH theo (rules, spot, rtp) AS (VALUES {values}), g AS ({sums}) "
        join = "LEFT JOIN theo t ON t.rules = g.rules AND t.spot = g.spot"
        theo_cols = "SUM(CASE WHEN t.rtp IS NULL THEN 0 ELSE g.stakes END), SUM(g.stakes * t.rtp)"
        theo_params = [v for row in theo for v in row]
    else:
        with_sql, join, theo_cols, theo_params = f"WITH g AS ({sums}) ", "", "0, NULL", []
    rows = _fetch(f"{with_sql}SELECT g.k, g.spot, SUM(g.bets), SUM(g.stakes), SUM(g.payouts), {theo_cols} FROM g {join} GROUP BY 1, 2 "
                  # a spot whose every bet was taken back (a voided round) is left out
                  "HAVING SUM(g.bets) <> 0 OR SUM(g.stakes) <> 0 OR SUM(g.payouts) <> 0", [*theo_params, *sum_params])
    out: dict = {}
    for k, spot, bets, stakes, payouts, theo_stakes, theo_payouts in rows:
        out.setdefault(k, {})[spot] = {"bets": int(bets or 0), "stakes": int(stakes or 0), "payouts": int(payouts or 0),
                                       "theo_stakes": int(theo_stakes or 0), "theo_payouts": Fraction(theo_payouts or 0)}
    return out


def _ratio(numerator, denominator, scale: Decimal = TWO) -> str | None:
    if not denominator:
        return None
    return str((Decimal(numerator) / Decimal(denominator)).quantize(scale, rounding=ROUND_HALF_UP))


def _hold(stakes: int, payouts) -> str | None:
    return percent4(Fraction(stakes - payouts) / stakes) if stakes else None


def _spot(spot: str, f: dict) -> dict:
    theo = (1 - f["theo_payouts"] / f["theo_stakes"]) if f["theo_stakes"] else None
    return {"spot": spot, "bets": f["bets"], "stakes": str(from_minor(f["stakes"])), "payouts": str(from_minor(f["payouts"])),
            "ggr": str(from_minor(f["stakes"] - f["payouts"])), "hold": _hold(f["stakes"], f["payouts"]),
            "theoretical_hold": percent4(theo) if theo is not None else None}


def _line(key, label, f: dict, spots: dict) -> dict:
    return {
        "key": key, "label": label,
        "rounds": f["rounds"],
        "rounds_per_hour": _ratio(f["rounds"] * 3_600_000, f["round_ms"]),
        "seconds_per_card": _ratio(f["card_ms"], f["cards"] * 1000),
        "cards": f["cards"], "incidents": f["incidents"], "voids": f["voids"], "player_rounds": f["player_rounds"],
        "bets": f["bets"], "stakes": str(from_minor(f["stakes"])), "payouts": str(from_minor(f["payouts"])),
        "ggr": str(from_minor(f["stakes"] - f["payouts"])), "hold": _hold(f["stakes"], f["payouts"]),
        "spots": [_spot(spot, spots[spot]) for spot in sorted(spots)],
    }


def _key_text(group: str, key) -> str | None:
    if key is None:
        return None
    if group == "hour":
        return key.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if group == "day":
        return key.isoformat()
    return str(key)


def _labels(group: str, keys: list) -> dict:
    ids = [k for k in keys if k is not None]
    if group == "table":
        return dict(Table.objects.filter(pk__in=ids).values_list("pk", "name"))
    if group == "dealer":
        return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    return {}


def _add(total: dict, f: dict) -> None:
    for name, value in f.items():
        total[name] = total.get(name, 0) + value


def _operator_rows(filters: Filters) -> dict:
    """group=operator: the seamless operators' settled bets in the period, per operator code."""
    adapt = connection.ops.adapt_datetimefield_value
    where, params = "r.hour >= %s AND r.hour < %s", [adapt(filters.start), adapt(filters.end)]
    if filters.table is not None:
        where, params = where + " AND r.table_id = %s", [*params, filters.table]
    rows = _fetch(f"SELECT o.code, SUM(r.player_rounds), SUM(r.bets), SUM(r.stakes), SUM(r.payouts) FROM {OperatorRollup._meta.db_table} r "
                  f"JOIN {Operator._meta.db_table} o ON o.id = r.operator_id WHERE {where} GROUP BY o.code", params)
    return {code: {"player_rounds": int(pr or 0), "bets": int(b or 0), "stakes": int(st or 0), "payouts": int(pa or 0)}
            for code, pr, b, st, pa in rows if b}


def _operator_report(filters: Filters) -> dict:
    """One row per seamless operator whose players bet in the period, and one (`studio`) for the
    studio's own wallets: the rest of the period's figures (bets, stakes, payouts, player rounds).
    The rounds' own figures (rounds, cards, times, incidents, voids) and the spots are on the total."""
    whole = report(group="table", filters=filters)
    operators = _operator_rows(filters)
    empty = dict.fromkeys(ROUND_COLUMNS, 0)
    total = whole["total"]
    studio = {"player_rounds": total["player_rounds"], "bets": total["bets"], "stakes": to_minor(Decimal(total["stakes"])),
              "payouts": to_minor(Decimal(total["payouts"]))}
    rows = []
    for code in sorted(operators):
        f = operators[code]
        for name in studio:
            studio[name] -= f[name]
        rows.append(_line(code, code, {**empty, **f}, {}))
    rows.append(_line(STUDIO_WALLETS, "studio wallets", {**empty, **studio}, {}))
    return {**whole, "group": "operator", "rows": rows}


@contextmanager
def _report_transaction() -> Iterator[None]:
    """A report's reads: JIT-compiling these statements costs more than it saves them (about 0.2 s),
    and a year's per-table sums (some 100,000 groups) spill to disk in the default work_mem."""
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SET LOCAL jit = off")
            cur.execute("SET LOCAL work_mem = '64MB'")
        yield


def _multiplier_report(filters: Filters) -> dict:
    """One row per multiplier the period's bets were paid under (`x1`: no multiplier), from the
    spots' rows: their bets, stakes, payouts and spots. A spot's theoretical hold, an average over
    every draw, is left out of these rows; the rounds' own figures and the theoretical holds are on
    the total."""
    whole = report(group="table", filters=filters)
    with _report_transaction():
        spots = _spot_rows("multiplier", filters)
    empty = dict.fromkeys(ROUND_COLUMNS, 0)
    rows = []
    for multiplier in sorted(spots):
        by_spot = {spot: {**f, "theo_stakes": 0} for spot, f in spots[multiplier].items()}
        sums = {name: sum(f[name] for f in by_spot.values()) for name in ("bets", "stakes", "payouts")}
        rows.append(_line(str(multiplier), f"x{multiplier}", {**empty, **sums}, by_spot))
    return {**whole, "group": "multiplier", "rows": rows}


def report(*, group: str, filters: Filters) -> dict:
    """The report of the period, one row per group (in key order) and the total."""
    if group not in GROUPS:
        raise ValueError(f"not a report's group: {group!r} (one of {', '.join(GROUPS)})")
    if group == "operator":
        return _operator_report(filters)
    if group == "multiplier":
        return _multiplier_report(filters)
    with _report_transaction():
        rounds, spots = _round_rows(group, filters), _spot_rows(group, filters)
    labels = _labels(group, list(rounds))
    keys = sorted(set(rounds) | set(spots), key=lambda k: (k is None, _key_text(group, k) if group in ("day", "hour") else k or 0))
    empty = dict.fromkeys(ROUND_COLUMNS, 0)
    rows, total, total_spots = [], dict(empty), {}
    for k in keys:
        f, s = rounds.get(k, empty), spots.get(k, {})
        text = _key_text(group, k)
        label = labels.get(k, "") if group in ("table", "dealer") else (text or "")
        rows.append(_line(text, label, f, s))
        _add(total, f)
        for spot, figures in s.items():
            _add(total_spots.setdefault(spot, {}), figures)
    return {"group": group, "from": filters.start.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "to": filters.end.astimezone(UTC).isoformat().replace("+00:00", "Z"), "time_zone": settings.TIME_ZONE,
            "table": filters.table, "dealer": filters.dealer,
            "rows": rows, "total": _line(None, "total", total, total_spots)}
