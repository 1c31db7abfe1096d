"""Thin, idempotent tasks: a second run of a settled round is a no-op."""
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from studio.scheduling import enqueue_on_commit
from tables.models import Round

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
