"""Thin, idempotent tasks: take ids, call a service, do nothing when the work is done."""
from celery import shared_task

from . import services


@shared_task(name="tables.tasks.close_betting", ignore_result=True)
def close_betting(round_id: int) -> bool:
    return services.close_betting_when_due(round_id=round_id)


@shared_task(name="tables.tasks.sweep_expired_betting", ignore_result=True)
def sweep_expired_betting() -> int:
    return services.close_expired_betting()
