"""The one place where a round changes status. Every change is a compare-and-set on the round row
(`filter(status=from).update(status=to)`) plus an audit record, in the caller's transaction; and
the one writer of audit records (RoundEvent), each a record of its table's audit chain. Both are
handed the round's locks (tables.locking.lock_round) and take none of their own."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit import chain
from studio import metrics
from studio.errors import WrongMoment

from .locking import Held, require_held
from .models import Round, RoundEvent

S = Round.Status

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


def transition(held: Held, *, frm: str, to: str, actor=None, action: str, data: dict | None = None, **fields) -> bool:
    """Move the round `held` locks (tables.locking.lock_round) from `frm` to `to` if it is still in
    `frm`. Returns False (and changes nothing) when it is not; raises ApplicationError for a
    transition the rules forbid."""
    check_transition(frm, to)
    require_held(held, what="a round's transition")
    changed = Round.objects.filter(pk=held.round_id, status=frm).update(status=to, **fields)
    if changed != 1:
        return False
    audit(held, actor=actor, action=action, frm=frm, to=to, data=data)
    return True


def transition_or_refuse(held: Held, *, frm: str, to: str, **kwargs) -> None:
    """`transition` for a caller that holds the round's lock and has just read it in `frm`: the
    compare-and-set cannot lose there, and if it ever does (a writer that skipped the lock), the
    change is refused (409 `round_changed`) and the caller's transaction rolls back: no audit, no
    event, no reaction for a move that did not happen."""
    if not transition(held, frm=frm, to=to, **kwargs):
        now = Round.objects.filter(pk=held.round_id).values_list("status", flat=True).first()
        raise WrongMoment(f"The round is no longer {frm} (it is {now}): look again.", code="round_changed",
                          extra={"status": now})


def audit(held: Held, *, actor, action: str, frm: str = "", to: str = "", data: dict | None = None, at=None) -> RoundEvent:
    """The audit record of a change of the round `held` locks, numbered and hashed in its table's
    chain before its INSERT (audit.chain.append: one statement, the head already held by
    tables.locking). `at`: when the change took effect, if the caller stored that instant elsewhere
    too (a card's dealt_at); now otherwise. A round entering a status (opened: "" to betting) is
    counted once committed."""
    require_held(held, what="a round's audit record")
    if held.round is None:
        raise TypeError("an audit record of a round needs the round's locks (tables.locking.lock_round)")
    key = chain.table_key(held.table_id)
    event = RoundEvent(round_id=held.round_id, at=at or timezone.now(), actor=actor if getattr(actor, "pk", None) else None,
                       action=action, from_status=frm, to_status=to, data=data or {}, chain=key)
    chain.seal(event, key=key)
    event.save(force_insert=True)
    if to and to != frm:
        transaction.on_commit(metrics.ROUNDS.labels(status=to).inc)
    return event
