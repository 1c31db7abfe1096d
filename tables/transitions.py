"""The one place where a round changes status. Every change is a compare-and-set on the round row
(`filter(status=from).update(status=to)`) plus an audit record, in the caller's transaction; and
the one writer of audit records (RoundEvent), each a record of its table's audit chain."""
from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from audit import chain
from studio import metrics
from studio.errors import WrongMoment, require_transaction

from .models import Round, RoundEvent, Table

S = Round.Status
_TABLE_LOCK = f"SELECT id FROM {Table._meta.db_table} WHERE id = %s FOR NO KEY UPDATE"

ALLOWED: dict[str, set[str]] = {
    S.BETTING: {S.DEALING, S.PAUSED, S.VOIDED},
    S.DEALING: {S.FINISHED, S.PAUSED, S.VOIDED},
    S.PAUSED: {S.BETTING, S.DEALING, S.VOIDED},
    S.FINISHED: {S.SETTLED, S.VOIDED},
    S.SETTLED: {S.SETTLED, S.VOIDED},
    S.VOIDED: set(),
}


def check_transition(frm: str, to: str) -> None:
    if to not in ALLOWED.get(frm, set()):
        raise WrongMoment(f"A round cannot go from {frm} to {to}.", code="illegal_transition", extra={"status": frm})


def transition(*, round_id: int, frm: str, to: str, actor=None, action: str, data: dict | None = None,
               table_id: int | None = None, table_locked: bool = False, **fields) -> bool:
    """Move the round from `frm` to `to` if it is still in `frm`. Returns False (and changes nothing)
    when another process got there first; raises ApplicationError for a transition the rules forbid.
    `table_id`: the round's table, when the caller has it (else it is read for the audit record);
    `table_locked`: the caller holds the table's row already (see `audit`)."""
    check_transition(frm, to)
    require_transaction("a round's transition")
    changed = Round.objects.filter(pk=round_id, status=frm).update(status=to, **fields)
    if changed != 1:
        return False
    audit(round_id=round_id, actor=actor, action=action, frm=frm, to=to, data=data, table_id=table_id, table_locked=table_locked)
    return True


def transition_or_refuse(*, round_id: int, frm: str, to: str, **kwargs) -> None:
    """`transition` for a caller that holds the round's lock and has just read it in `frm`: the
    compare-and-set cannot lose there, and if it ever does (a writer that skipped the lock), the
    change is refused (409 `round_changed`) and the caller's transaction rolls back: no audit, no
    event, no reaction for a move that did not happen."""
    if not transition(round_id=round_id, frm=frm, to=to, **kwargs):
        now = Round.objects.filter(pk=round_id).values_list("status", flat=True).first()
        raise WrongMoment(f"The round is no longer {frm} (it is {now}): look again.", code="round_changed",
                          extra={"status": now})


def table_lock(*, table_id: int) -> None:
    """Lock the table's row before its chain's head.
    The table's stream counter (tables.stream) and its change log's writers lock that row too, so a
    round's writer that took the head first and the row after (to number its stream event) would
    wait on a change-log writer holding the row and waiting on the head. One statement; nothing
    waits on it that would not wait on the stream counter a moment later."""
    with connection.cursor() as cur:
        cur.execute(_TABLE_LOCK, [table_id])


def audit(*, round_id: int, actor, action: str, frm: str = "", to: str = "", data: dict | None = None,
          table_id: int | None = None, at=None, table_locked: bool = False) -> RoundEvent:
    """The audit record of a round's change, numbered and hashed in its table's chain before its
    INSERT: the table's row locked (table_lock), then the chain's head advanced (audit.chain.append):
    two statements more, one if the caller holds the table's row already
    (`table_locked`: it locked the row, or numbered its stream event first, whose UPDATE locks it:
    tables.stream.table_event). The caller
    holds the round's lock (and its wallets', if any); the head is locked last. `at`: when the
    change took effect, if the caller stored that instant elsewhere too (a card's dealt_at); now
    otherwise. `table_id`: the round's table, when the caller has it (else one query reads it). A
    round entering a status (opened: "" to betting) is counted once committed."""
    if table_id is None:
        table_id = Round.objects.filter(pk=round_id).values_list("table_id", flat=True).get()
    key = chain.table_key(table_id)
    if not table_locked:
        table_lock(table_id=table_id)
    event = RoundEvent(round_id=round_id, at=at or timezone.now(), actor=actor if getattr(actor, "pk", None) else None,
                       action=action, from_status=frm, to_status=to, data=data or {}, chain=key)
    chain.seal(event, key=key)
    event.save(force_insert=True)
    if to and to != frm:
        transaction.on_commit(metrics.ROUNDS.labels(status=to).inc)
    return event


def audit_hold(*, table_id: int) -> None:
    """Lock the table's row and its audit chain's head now, before a reaction's rows
    (audit.chain.hold): for a writer whose hooks run before its event (a settled round's
    settlement taken back)."""
    table_lock(table_id=table_id)
    chain.hold(chain.table_key(table_id))
