"""The Celery app. Periodic jobs are declared here, in one place."""
import os

from celery import Celery

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
