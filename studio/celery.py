"""The Celery app. Periodic jobs are declared here, in one place."""
import os
from logging.config import dictConfig

from celery import Celery
from celery.signals import setup_logging
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    # Catches any round whose close-betting task was lost (a worker that died).
    "sweep-expired-betting": {"task": "tables.tasks.sweep_expired_betting", "schedule": 1.0},
    # Catches any finished round whose settlement task was lost.
    "sweep-unsettled-rounds": {"task": "bets.tasks.sweep_unsettled_rounds", "schedule": 5.0},
}


@setup_logging.connect
def _log_as_the_web_does(**kwargs):
    """The worker and beat log through settings.LOGGING (stdout, one format), not Celery's own stderr
    handler; LOG_LEVEL sets the level."""
    dictConfig(settings.LOGGING)
