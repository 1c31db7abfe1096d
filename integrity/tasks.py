"""The integrity app's periodic tasks (declared in studio.celery's beat schedule)."""
from celery import shared_task

from .publiclog import log_publish
from .services import wallet_alerts_raise


@shared_task(name="integrity.tasks.wallet_alerts", ignore_result=True)
def wallet_alerts() -> int:
    """Alert the supervisors about operators' wallet transactions unacknowledged for too long."""
    return wallet_alerts_raise()


@shared_task(name="integrity.tasks.log_publish", ignore_result=True)
def log_publish_task() -> int:
    """The public log takes in the rounds waiting for it and signs its grown tree (idempotent: the
    head row serializes appends, and an unchanged tree is not signed again)."""
    checkpoint = log_publish()
    return checkpoint.size if checkpoint else 0
