"""A REAL Celery worker (and beat) on Redis and the test PostgreSQL database: the timed task closes a
round's betting within a second of closes_at, settlement runs on the worker, and the beat sweep
closes a round whose task was never sent."""
import time
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tables.models import Round, RoundEvent
from tests.servers import celery_process

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def celery_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """One solo worker for this module, on a broker purged of any other test's leftover tasks."""
    from studio.celery import app

    app.control.purge()
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    with celery_process(["worker", "-l", "info", "--pool", "solo", "-n", f"rounds-{uuid.uuid4().hex[:8]}@%h",
                         "--without-gossip", "--without-mingle", "--without-heartbeat"], log_path, " ready."):
        yield log_path


@pytest.fixture
def celery_beat(celery_worker, tmp_path):
    log_path = tmp_path / "beat.log"
    with celery_process(["beat", "-l", "info", "-s", str(tmp_path / "schedule"), "--pidfile", str(tmp_path / "beat.pid")],
                        log_path, "beat: Starting"):
        yield log_path


def wait_for(round_id, status, timeout):
    """Poll the database until the round has `status`; the moment it was first seen so, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Round.objects.filter(pk=round_id, status=status).exists():
            return timezone.now()
        time.sleep(0.02)
    return None


def closing(round_id):
    return RoundEvent.objects.get(round_id=round_id, action="betting_closed")


def test_the_worker_closes_betting_at_closes_at_and_settles(
        broker_tasks, celery_worker, dealer_api, alice_api, bob_api, make_table):
    table = make_table(betting_seconds=2)
    response = dealer_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}, format="json")
    assert response.status_code == 201
    rnd = Round.objects.get(pk=response.json()["id"])
    assert rnd.closes_at - rnd.opened_at == timedelta(seconds=2)
    assert alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "bahar", "amount": "50"}, format="json").status_code == 201
    assert bob_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "50"}, format="json").status_code == 201

    seen = wait_for(rnd.pk, "dealing", timeout=5)
    assert seen is not None, "the worker never closed betting:\n" + celery_worker.read_text()[-3000:]
    event = closing(rnd.pk)
    assert event.data["reason"] == "timer" and event.actor is None
    # Never early; late by a Celery countdown's slack, about 0.1 s on a quiet machine: 3 s leaves room for a loaded one.
    assert rnd.closes_at <= event.at < rnd.closes_at + timedelta(seconds=3)
    assert seen - rnd.closes_at < timedelta(seconds=3)

    answer = dealer_api.post(f"/api/rounds/{rnd.pk}/cards/", {"card": "KD"}, format="json").json()
    assert (answer["side"], answer["match"]) == ("andar", True)
    assert wait_for(rnd.pk, "settled", timeout=10) is not None, celery_worker.read_text()[-3000:]
    assert RoundEvent.objects.filter(round_id=rnd.pk, action="settled").count() == 1
    assert Decimal(alice_api.get("/api/me/").json()["balance"]) == Decimal("950")
    assert Decimal(bob_api.get("/api/me/").json()["balance"]) == Decimal("1045")  # 0.9:1 on the first-card side


def test_the_beat_sweep_closes_a_round_whose_task_was_never_sent(celery_beat, dealer, make_table):
    from tables.services import round_open

    # The close-betting task is applied at once here (tests/settings.py), finds the deadline not yet
    # come and does nothing, and none reaches the worker: only the sweep can close the round.
    rnd = round_open(table_id=make_table(betting_seconds=2).pk, joker="7H", dealer=dealer)
    before_deadline = (rnd.closes_at - timezone.now()).total_seconds() - 0.1
    assert wait_for(rnd.pk, "dealing", timeout=before_deadline) is None  # nothing closes it before its deadline
    seen = wait_for(rnd.pk, "dealing", timeout=8)
    assert seen is not None, "the sweep never closed betting:\n" + celery_beat.read_text()[-3000:]
    assert seen - rnd.closes_at < timedelta(seconds=4)  # a sweep a second, with room for a loaded machine
    event = closing(rnd.pk)
    assert event.data["reason"] == "sweep"
    assert rnd.closes_at <= event.at < rnd.closes_at + timedelta(seconds=4)
