"""Thin, idempotent tasks: a second run of a settled round is a no-op."""
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from studio.scheduling import enqueue_on_commit
from tables.models import Round

from . import outbox, seamless
from .crowd import crowd_publish
from .settlement import round_settle


@shared_task(name="bets.tasks.settle_round", ignore_result=True)
def settle_round(round_id: int) -> bool:
    return round_settle(round_id=round_id)


def settle_when_finished(sender, *, rnd, **kwargs) -> None:
    """tables.hooks.round_finished: the settlement task, sent after commit."""
    enqueue_on_commit(settle_round, rnd.pk)


@shared_task(name="bets.tasks.sweep_unsettled_rounds", ignore_result=True)
def sweep_unsettled_rounds() -> int:
    """Settle any round left finished for more than a few seconds (a lost settlement task)."""
    stale = Round.objects.filter(status=Round.Status.FINISHED, finished_at__lte=timezone.now() - timedelta(seconds=5))
    return sum(round_settle(round_id=pk) for pk in list(stale.values_list("pk", flat=True)))


@shared_task(name="bets.tasks.send_wallet_transaction", ignore_result=True)
def send_wallet_transaction(pk: int) -> str:
    """One attempt at a credit or rollback of the outbox (a no-op when not due or already acknowledged)."""
    return outbox.transaction_send(pk=pk)


def send_when_due(sender, *, pks, eta=None, **kwargs) -> None:
    """tables.hooks.wallet_due (sent by bets.outbox): each row's attempt, now or at `eta`."""
    for pk in pks:
        enqueue_on_commit(send_wallet_transaction, pk, eta=eta)


@shared_task(name="bets.tasks.sweep_wallet_transactions", ignore_result=True)
def sweep_wallet_transactions() -> int:
    """Beat, every SEAMLESS_SWEEP_SECONDS: the outbox's rows whose attempt is due (a lost task, a
    restart), and debits whose sender stopped before their answer (cancelled and rolled back)."""
    for pk in outbox.debits_abandoned():
        seamless.debit_cancel(pk=pk)
    due = outbox.due_now()
    for pk in due:
        enqueue_on_commit(send_wallet_transaction, pk)
    return len(due)


@shared_task(name="bets.tasks.crowd_publish", ignore_result=True)
def crowd_publish_task() -> int:
    """Each betting round's crowd to its watchers, when it changed (bets.crowd)."""
    return crowd_publish()
