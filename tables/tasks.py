"""Thin, idempotent tasks: take ids, call a service, do nothing when the work is done."""
from celery import shared_task

from studio.scheduling import enqueue_on_commit

from . import services


@shared_task(name="tables.tasks.close_betting", ignore_result=True)
def close_betting(round_id: int) -> bool:
    return services.close_betting_when_due(round_id=round_id)


@shared_task(name="tables.tasks.sweep_expired_betting", ignore_result=True)
def sweep_expired_betting() -> int:
    return services.close_expired_betting()


def schedule_close_betting(sender, *, rnd, **kwargs) -> None:
    """tables.hooks.betting_opened: the timer that closes betting at `closes_at`, sent after commit."""
    enqueue_on_commit(close_betting, rnd.pk, eta=rnd.closes_at)
