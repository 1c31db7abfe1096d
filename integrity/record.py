"""A round's record (GET /api/rounds/{id}/record/, the round page; docs/AUDIT.md): everything about
one round in one self-contained JSON document that scripts/verify_round_record.py checks offline.

It holds the round (table, joker, first side, status, its times), the settings it opened with, its
dealer and shift, each card with its time (UTC, to the millisecond), its incidents with their notes
and resolutions, its corrections, every bet added up per spot, its settlement or void, and its
chain links: each of the round's events with its canonical form, digest, prev and hash, the bare
links (seq, prev, digest, hash) of the other records of the chain between its first and last event
(other rounds' events, the change log: their content is not shown), and the chain's head now.

Between two of the round's events, more than GAP_LIMIT other records (a void or a re-settlement
long after the deal) are not listed: the record declares the gap (`after`, `before`), and the
script checks the links on each side of it; verify_audit checks the whole chain in the studio.

Read in one consistent snapshot (REPEATABLE READ), so a round dealt meanwhile is
recorded as it was at one instant. Set-based: a few queries, whatever the number of bets.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.models import Q

from audit import offline
from audit.chain import canonical, digest, form_of, numbered
from audit.models import ChainHead
from bets.history import round_spot_totals
from bets.models import Bet
from studio.errors import NotFound
from studio.roles import SUPERVISOR, has_role
from studio.times import utc_ms
from tables.access import NOT_FOUND, round_or_404
from tables.models import DealtCard, Incident, Round, RoundEvent, TableChange
from tables.selectors import round_multipliers, round_spots

from . import publiclog

FORMAT = offline.FORMAT
GAP_LIMIT = 500  # other records listed between two of the round's events, at most


@contextmanager
def snapshot() -> Iterator[None]:
    """One consistent read: a transaction, REPEATABLE READ and read-only when it is the outermost
    one (its first statement)."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            with connection.cursor() as cur:
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def record_round_or_404(*, round_id: int, user) -> Round:
    """The round, for a supervisor or a player who bet in it; anyone else is told there is no such
    round (404), as for a round they may not see."""
    rnd = round_or_404(round_id=round_id, user=user)
    if not has_role(user, SUPERVISOR) and not Bet.objects.filter(round=rnd, player_id=user.pk).exists():
        raise NotFound(NOT_FOUND["round"], code="not_found")
    return rnd


def _money(value) -> str:
    return str(value)


def _link(model, row: dict, key: str) -> dict:
    form = numbered(form_of(model.CHAINED_KIND, row, model.CHAINED_COLUMNS), key=key, seq=row["chain_seq"])
    return {"seq": row["chain_seq"], "prev": row["prev_hash"], "digest": digest(form), "hash": row["hash"], "form": form}


def _segment(key: str, table_id: int, round_id: int, seqs: list[int]) -> tuple[list[dict], list[dict]]:
    """The bare links of the other records between the round's events, and the gaps too long to list."""
    ranges, gaps = [], []
    for before, after in zip(seqs, seqs[1:]):
        if after - before - 1 > GAP_LIMIT:
            gaps.append({"after": before, "before": after})
        elif after - before > 1:
            ranges.append((before + 1, after - 1))
    if not ranges:
        return [], gaps
    within = Q()
    for low, high in ranges:
        within |= Q(chain_seq__gte=low, chain_seq__lte=high)
    columns = ("chain_seq", "prev_hash", "hash")
    others = [_link(RoundEvent, row, key) for row in RoundEvent.objects.filter(within, chain=key).exclude(round_id=round_id)
              .values(*columns, *RoundEvent.CHAINED_COLUMNS)]
    others += [_link(TableChange, row, key) for row in TableChange.objects.filter(within, table_id=table_id)
               .values(*columns, *TableChange.CHAINED_COLUMNS)]
    return sorted(({k: v for k, v in item.items() if k != "form"} for item in others), key=lambda item: item["seq"]), gaps


def round_record(rnd: Round) -> dict:
    """The record of the round (see the module's docstring), as plain JSON values."""
    with snapshot():
        return _record(Round.objects.select_related("table", "dealer", "shift").get(pk=rnd.pk))


def _record(rnd: Round) -> dict:
    events = list(RoundEvent.objects.filter(round=rnd, chain_seq__isnull=False).select_related("actor").order_by("chain_seq"))
    by = {e.pk: (e.actor.username if e.actor_id else None) for e in events}
    chained = []
    for event in events:
        form = numbered(form_of(RoundEvent.CHAINED_KIND, event, RoundEvent.CHAINED_COLUMNS), key=event.chain, seq=event.chain_seq)
        chained.append({"id": event.pk, "seq": event.chain_seq, "action": event.action, "at": utc_ms(event.at), "by": by[event.pk],
                        "form": canonical(form), "digest": digest(form), "prev": event.prev_hash, "hash": event.hash})
    key = events[0].chain if events else f"table:{rnd.table_id}"
    links, gaps = _segment(key, rnd.table_id, rnd.pk, [e.chain_seq for e in events])
    head = ChainHead.objects.filter(key=key).values("seq", "hash").first() or {"seq": 0, "hash": ""}

    incidents = []
    for incident in Incident.objects.filter(round=rnd).select_related("raised_by", "resolved_by").order_by("id"):
        incidents.append({
            "id": incident.pk, "kind": incident.kind, "status": incident.status, "raised_by": incident.raised_by.username,
            "raised_at": utc_ms(incident.created_at), "notes": list(incident.notes), "resolution": incident.resolution,
            "resolved_by": incident.resolved_by.username if incident.resolved_by_id else None, "resolved_at": utc_ms(incident.resolved_at),
        })
    corrections = [{"seq": e.chain_seq, "at": utc_ms(e.at), "by": by[e.pk], "action": e.data.get("action", ""),
                    "position": e.data.get("position"), "before": e.data.get("before"), "after": e.data.get("after")}
                   for e in events if e.action == "corrected"]
    voided = next((e for e in reversed(events) if e.action == "voided"), None)
    spots = [{"spot": row["spot"], "bets": row["bets"], "staked": _money(row["staked"]), "paid": _money(row["paid"])}
             for row in round_spot_totals(rnd, [s["spot"] for s in round_spots(rnd)])]
    settled = rnd.status == Round.Status.SETTLED
    return {
        "format": FORMAT,
        "round": {
            "id": rnd.pk, "table": {"id": rnd.table_id, "name": rnd.table.name}, "joker": rnd.joker, "first_side": rnd.first_side,
            "status": rnd.status, "winner": rnd.winner or None, "cards_dealt": rnd.cards_dealt,
            "opened_at": utc_ms(rnd.opened_at), "closes_at": utc_ms(rnd.closes_at), "closed_at": utc_ms(rnd.closed_at),
            "finished_at": utc_ms(rnd.finished_at), "settled_at": utc_ms(rnd.settled_at),
            **(round_multipliers(rnd) if rnd.multipliers_commit else {}),
        },
        "settings": rnd.settings,
        "dealer": rnd.dealer.username if rnd.dealer_id else None,
        "shift": {"id": rnd.shift.pk, "started_at": utc_ms(rnd.shift.started_at), "ended_at": utc_ms(rnd.shift.ended_at)}
        if rnd.shift_id else None,
        "cards": [{"position": c.position, "side": c.side, "card": c.card, "dealt_at": utc_ms(c.dealt_at)}
                  for c in DealtCard.objects.filter(round=rnd).order_by("position")],
        "incidents": incidents,
        "log": publiclog.round_log(rnd),
        "corrections": corrections,
        "spots": spots,
        "settlement": {"version": rnd.settlement_version, "bets": rnd.bet_count, "staked": _money(rnd.total_staked),
                       "paid": _money(rnd.total_paid), "house_result": _money(rnd.total_staked - rnd.total_paid),
                       "settled_at": utc_ms(rnd.settled_at)} if settled else None,
        "void": {"version": rnd.settlement_version, "reason": voided.data.get("reason", "") if voided else "", "bets": rnd.bet_count,
                 "refunded": _money(rnd.total_staked), "at": utc_ms(voided.at) if voided else None,
                 "by": by[voided.pk] if voided else None} if rnd.status == Round.Status.VOIDED else None,
        "chain": {"key": key, "head": head, "events": chained, "links": links, "gaps": gaps},
    }


def record_check(record: dict) -> list[str]:
    """The offline script's check of a record (audit.offline): empty when it verifies."""
    return offline.check(record)

