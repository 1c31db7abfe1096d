"""The integrity monitor's periodic task (declared in studio.celery's beat schedule)."""
from celery import shared_task

from .services import wallet_alerts_raise


@shared_task(name="integrity.tasks.wallet_alerts", ignore_result=True)
def wallet_alerts() -> int:
    """Alert the supervisors about operators' wallet transactions unacknowledged for too long."""
    return wallet_alerts_raise()
