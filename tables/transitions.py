"""The one place where a round changes status. Every change is a compare-and-set on the round row
(`filter(status=from).update(status=to)`) plus an audit record, in the caller's transaction."""
from __future__ import annotations

from django.db import transaction

from studio import metrics
from studio.errors import WrongMoment

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


def transition(*, round_id: int, frm: str, to: str, actor=None, action: str, data: dict | None = None, **fields) -> bool:
    """Move the round from `frm` to `to` if it is still in `frm`. Returns False (and changes nothing)
    when another process got there first; raises ApplicationError for a transition the rules forbid."""
    check_transition(frm, to)
    assert transaction.get_connection().in_atomic_block, "transitions run inside the caller's transaction"
    changed = Round.objects.filter(pk=round_id, status=frm).update(status=to, **fields)
    if changed != 1:
        return False
    audit(round_id=round_id, actor=actor, action=action, frm=frm, to=to, data=data)
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


def audit(*, round_id: int, actor, action: str, frm: str = "", to: str = "", data: dict | None = None) -> None:
    """The audit record of a round's change; a round entering a status (opened: "" to betting) is counted once committed."""
    RoundEvent.objects.create(
        round_id=round_id, actor=actor if getattr(actor, "pk", None) else None, action=action,
        from_status=frm, to_status=to, data=data or {},
    )
    if to and to != frm:
        transaction.on_commit(metrics.ROUNDS.labels(status=to).inc)
