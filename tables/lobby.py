"""The lobby: every table a visitor may see, at a glance (`GET /api/lobby/`), and the one stream a
lobby page needs (`ws://HOST/ws/lobby/`, tables/consumers.py): a `lobby.table` event each time a
public table's round opens, closes betting, ends or its table changes state, and a `lobby.players`
when the players of its betting round change (bets.crowd).

A table's row: its name, state and driver, currency, limits, modes and side bets, its random
multipliers (if any, with the highest), its current (or latest) round with the betting time left,
the players in it, and its last results as a small road (winner and cards dealt, newest last).
Three queries whatever the number of tables: the tables with their latest round, the players of
those rounds, and the last results of every table (a window over the settled rounds).
"""
from __future__ import annotations

from django.db.models import Count, OuterRef, Q, Subquery
from django.utils import timezone

from engine.multipliers import Multipliers
from studio import sql

from .access import table_driver, visible_tables, with_driver
from .models import Round
from .selectors import betting_left_ms

ROAD = 12  # results a lobby row shows
_ROAD = (f"SELECT table_id, winner, cards_dealt FROM (SELECT table_id, id, winner, cards_dealt, "
         f"row_number() OVER (PARTITION BY table_id ORDER BY id DESC) AS n FROM {Round._meta.db_table} "
         f"WHERE status IN ('finished', 'settled') AND table_id = ANY(%s)) r WHERE n <= %s ORDER BY table_id, id")


def round_brief(rnd: Round | None, now=None) -> dict | None:
    """What the lobby shows of a table's round."""
    if rnd is None:
        return None
    now = now or timezone.now()
    return {"id": rnd.pk, "status": rnd.status, "closes_at": rnd.closes_at, "betting_left_ms": betting_left_ms(rnd, now),
            "winner": rnd.winner or None, "cards_dealt": rnd.cards_dealt}


def multiplier_badge(setting) -> dict | None:
    multipliers = Multipliers.from_value(setting)
    return None if multipliers is None else {"draws": multipliers.draws, "spots": len(multipliers.spots), "highest": multipliers.highest}


def lobby(*, user) -> list[dict]:
    """Every table the user may see (an anonymous visitor: the public ones), in id order."""
    latest = Round.objects.filter(table=OuterRef("pk")).order_by("-id").values("id")[:1]
    tables = list(with_driver(visible_tables(user)).annotate(latest_round=Subquery(latest)).order_by("id"))
    rounds = {r.pk: r for r in Round.objects.filter(pk__in=[t.latest_round for t in tables if t.latest_round])}
    seated = Count("bets__player", distinct=True, filter=~Q(bets__status="cancelled"))  # players with a bet standing
    players = dict(Round.objects.filter(pk__in=list(rounds)).values("id").annotate(n=seated).values_list("id", "n"))
    road: dict[int, list[dict]] = {t.pk: [] for t in tables}
    for table_id, winner, cards in sql.fetch_all(_ROAD, [[t.pk for t in tables], ROAD]):
        road[table_id].append({"winner": winner, "cards_dealt": cards})
    now = timezone.now()
    return [{
        "id": t.pk, "name": t.name, "state": t.state, "state_reason": t.state_reason, "driver": table_driver(t),
        "currency": t.currency, "min_bet": t.min_bet, "max_bet": t.max_bet, "mode": t.mode, "side_bets": sorted(t.side_bets),
        "multipliers": multiplier_badge(t.multipliers), "private": t.is_private,
        "round": round_brief(rounds.get(t.latest_round), now), "players": players.get(t.latest_round, 0), "road": road[t.pk],
    } for t in tables]
