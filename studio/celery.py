"""The Celery app. Periodic jobs are declared here, in one place, and so is what the worker counts
(studio.metrics) and reports for readiness (studio.heartbeat)."""
import os
from logging.config import dictConfig

from celery import Celery
from celery.signals import after_task_publish, setup_logging, task_failure, task_retry, task_success
from django.conf import settings

from . import heartbeat, metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

HEARTBEAT = "studio.heartbeat"


@app.task(name=HEARTBEAT, ignore_result=True)
def beat_heartbeat() -> None:
    """Sent by beat; the worker that runs it has been seen (and beat, which sent it: below)."""
    heartbeat.record(heartbeat.WORKER)


@app.on_after_configure.connect
def _schedule(sender, **kwargs):
    sender.conf.beat_schedule = {
        # Catches any round whose close-betting task was lost (a worker that died).
        "sweep-expired-betting": {"task": "tables.tasks.sweep_expired_betting", "schedule": 1.0},
        # Catches any finished round whose settlement task was lost.
        "sweep-unsettled-rounds": {"task": "bets.tasks.sweep_unsettled_rounds", "schedule": 5.0},
        # Sends the seamless wallet's credits and rollbacks whose attempt is due (a lost task, a restart).
        "sweep-wallet-transactions": {"task": "bets.tasks.sweep_wallet_transactions", "schedule": settings.SEAMLESS_SWEEP_SECONDS},
        # Alerts supervisors (integrity's alerts) about wallet transactions unacknowledged past SEAMLESS_ALERT_AFTER.
        "wallet-alerts": {"task": "integrity.tasks.wallet_alerts", "schedule": settings.SEAMLESS_SWEEP_SECONDS},
        # each betting round's crowd (players, the main bets' shares) to its watchers, when it changed
        "crowd": {"task": "bets.tasks.crowd_publish", "schedule": settings.CROWD_SECONDS, "options": {"expires": settings.CROWD_SECONDS * 2}},
        # the public round log: new rounds in, a grown tree signed (docs/PUBLIC_LOG.md)
        "log-publish": {"task": "integrity.tasks.log_publish", "schedule": settings.LOG_PUBLISH_SECONDS,
                        "options": {"expires": settings.LOG_PUBLISH_SECONDS * 2}},
        # /readyz: the worker and beat were seen lately. Expires unrun after a period (no pile-up
        # while the worker is down).
        "heartbeat": {"task": HEARTBEAT, "schedule": settings.HEARTBEAT_SECONDS, "options": {"expires": max(settings.HEARTBEAT_SECONDS * 2, 10)}},
    }


@after_task_publish.connect(sender=HEARTBEAT)
def _beat_seen(**kwargs):
    heartbeat.record(heartbeat.BEAT)


@task_success.connect
def _task_succeeded(sender=None, **kwargs):
    metrics.TASKS.labels(task=sender.name, outcome="success").inc()


@task_failure.connect
def _task_failed(sender=None, **kwargs):
    metrics.TASKS.labels(task=sender.name, outcome="failure").inc()


@task_retry.connect
def _task_retried(sender=None, **kwargs):
    metrics.TASKS.labels(task=sender.name, outcome="retry").inc()


@setup_logging.connect
def _log_as_the_web_does(**kwargs):
    """The worker and beat log through settings.LOGGING (stdout, one format), not Celery's own stderr
    handler; LOG_LEVEL sets the level."""
    dictConfig(settings.LOGGING)
