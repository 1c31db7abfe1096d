"""The seamless wallet's outbox: credits and rollbacks, written in the same transaction as the
settlement, void, cancel or re-settlement that causes them, sent after commit, retried with backoff
(from SEAMLESS_RETRY_FIRST seconds, doubling, at most SEAMLESS_RETRY_MAX apart) until the operator
acknowledges them, across restarts (beat's sweep sends what a lost task missed).

Each attempt claims its row by compare-and-set (the attempt count, and the next attempt pushed past
the call's timeout), so two workers never send the same row at once; the operator treats a repeat of
a transaction id as the same operation anyway. A refusal of a credit or a rollback (the winnings
already spent) leaves the row pending, retried at the longest interval and listed as stuck: never
dropped.

A row may come `after` another (a credit's rollback after the credit, a new credit after the old
one's rollback): it is sent once both its own commit and its predecessor's acknowledgment have
happened, in whichever order they come. Two events hand a row over, each once it is committed and
visible to every connection: its transaction's commit (every row written, waiting or not), and its
predecessor's acknowledgment (the rows already committed that wait on it). An attempt at a row
whose predecessor is not acknowledged is skipped, so the later of the two events sends it; when
both find it ready, the claim sends it once.

The tasks are reached through the `wallet_due` hook (tables.hooks, connected to bets.tasks in
bets.apps), as a service reaches its app's tasks everywhere else."""
from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from studio.errors import require_transaction
from tables import hooks

from . import operator_wallet
from .models import WalletTransaction

log = logging.getLogger(__name__)
T = WalletTransaction


def backoff(attempts: int) -> float:
    """Seconds before the next attempt after `attempts` attempts: 1, 2, 4, ... at most 60 (the settings)."""
    return min(settings.SEAMLESS_RETRY_FIRST * 2 ** max(attempts - 1, 0), settings.SEAMLESS_RETRY_MAX)


def outbox_add(rows: list[WalletTransaction]) -> list[WalletTransaction]:
    """Write credits and rollbacks in the caller's transaction; each handed over once it commits,
    those that come after another too (their predecessor may have been acknowledged while this
    transaction was open, when its acknowledgment could not see them)."""
    require_transaction("an operator's credits and rollbacks")
    if not rows:
        return []
    created = T.objects.bulk_create(rows)
    pks = [r.pk for r in created]
    transaction.on_commit(lambda: hooks.wallet_due.send(sender=T, pks=pks, eta=None))
    return created


def transaction_send(*, pk: int) -> str:
    """One attempt at a pending credit or rollback: claimed, sent (no transaction open), recorded.
    Returns what happened: ok, refused, unknown, or skipped (not due, not pending, or waiting)."""
    now = timezone.now()
    row = T.objects.select_related("operator").filter(pk=pk).first()
    if row is None or row.status != T.Status.PENDING or row.kind == T.Kind.DEBIT:
        return "skipped"
    if row.after_id is not None and not T.objects.filter(pk=row.after_id, status=T.Status.OK).exists():
        return "skipped"  # the one before it is not acknowledged yet: its acknowledgment sends this one
    lease = now + timedelta(seconds=settings.SEAMLESS_TIMEOUT + backoff(row.attempts + 1))
    claimed = T.objects.filter(pk=pk, status=T.Status.PENDING, attempts=row.attempts, next_attempt_at__lte=now).update(
        attempts=F("attempts") + 1, next_attempt_at=lease)
    if claimed != 1:
        return "skipped"  # not due yet, or another worker has it
    answer = operator_wallet.call(operator=row.operator, action=row.kind, body=row.body)
    done = timezone.now()
    if answer.ok:
        if T.objects.filter(pk=pk, status=T.Status.PENDING).update(status=T.Status.OK, acknowledged_at=done, last_error="",
                                                                    operator_balance=answer.balance) == 1:
            # Committed as it returns (no transaction is open here: operator_wallet.call refuses one), so
            # this finds every row committed before it; a row committed after finds this one acknowledged.
            waiting = list(T.objects.filter(after_id=pk, status=T.Status.PENDING).values_list("pk", flat=True))
            if waiting:
                hooks.wallet_due.send(sender=T, pks=waiting, eta=None)
        return "ok"
    error = f"{answer.code}: {answer.message}" if answer.outcome == operator_wallet.REFUSED else answer.message
    delay = settings.SEAMLESS_RETRY_MAX if answer.outcome == operator_wallet.REFUSED else backoff(row.attempts + 1)
    retry_at = done + timedelta(seconds=delay)
    T.objects.filter(pk=pk, status=T.Status.PENDING, attempts=row.attempts + 1).update(last_error=error[:200], next_attempt_at=retry_at)
    if answer.outcome == operator_wallet.REFUSED:
        log.warning("operator %s refused %s %s: %s (stuck, retried)", row.operator.code, row.kind, row.transaction_id, error)
    hooks.wallet_due.send(sender=T, pks=[pk], eta=retry_at)
    return answer.outcome


def due_now(*, limit: int = 500) -> list[int]:
    """The pending credits and rollbacks whose next attempt is due (the sweep's), oldest first."""
    now = timezone.now()
    rows = (T.objects.filter(status=T.Status.PENDING, next_attempt_at__lte=now).exclude(kind=T.Kind.DEBIT)
            .filter(Q(after__isnull=True) | Q(after__status=T.Status.OK)).order_by("next_attempt_at"))
    return list(rows.values_list("pk", flat=True)[:limit])


def debits_abandoned() -> list[int]:
    """Debits still pending well after their call's timeout: the process that sent them stopped before
    it learnt the answer. Each is cancelled and rolled back (bets.seamless.debit_cancel)."""
    cutoff = timezone.now() - timedelta(seconds=settings.SEAMLESS_TIMEOUT + 30)
    return list(T.objects.filter(status=T.Status.PENDING, kind=T.Kind.DEBIT, created_at__lt=cutoff).values_list("pk", flat=True)[:500])


def stuck_q(now=None) -> Q:
    """Unacknowledged for longer than SEAMLESS_ALERT_AFTER seconds."""
    now = now or timezone.now()
    return Q(status=T.Status.PENDING, created_at__lt=now - timedelta(seconds=settings.SEAMLESS_ALERT_AFTER))


def operators_with_stuck() -> dict[int, int]:
    """{operator id: how many of its transactions are stuck}."""
    out: dict[int, int] = {}
    for op_id in T.objects.filter(stuck_q()).values_list("operator_id", flat=True):
        out[op_id] = out.get(op_id, 0) + 1
    return out

