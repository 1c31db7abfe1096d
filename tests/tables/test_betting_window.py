"""The betting window: the close-betting task is a harmless trigger (twice, late, after an early
close, too early), waits out a moment's earliness and closes on time, and the sweep closes only
expired rounds."""
from datetime import timedelta

import pytest
from django.utils import timezone

from tables import tasks
from tables.models import Round, RoundEvent
from tables.services import close_expired_betting

pytestmark = pytest.mark.django_db


def open_round(client, table, joker="KS"):
    response = client.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")
    assert response.status_code == 201, response.content
    return Round.objects.get(pk=response.json()["id"])


def expire(rnd, seconds_ago=2):
    deadline = timezone.now() - timedelta(seconds=seconds_ago)
    Round.objects.filter(pk=rnd.pk).update(closes_at=deadline)
    return deadline


def closings(rnd):
    return list(RoundEvent.objects.filter(round_id=rnd.pk, action="betting_closed").values_list("data__reason", flat=True))


def test_the_task_closes_a_due_round_once_however_often_it_runs(dealer_api, table):
    rnd = open_round(dealer_api, table)
    deadline = expire(rnd)
    assert tasks.close_betting(rnd.pk) is True
    assert tasks.close_betting(rnd.pk) is False
    rnd.refresh_from_db()
    assert rnd.status == "dealing"
    assert rnd.closed_at == deadline  # a late task records the deadline, not its own lateness
    assert closings(rnd) == ["timer"]


def test_the_task_after_an_early_close_is_harmless(dealer_api, table):
    rnd = open_round(dealer_api, table)
    assert dealer_api.post(f"/api/rounds/{rnd.pk}/close-betting/").status_code == 200
    rnd.refresh_from_db()
    closed_at = rnd.closed_at
    expire(rnd)
    assert tasks.close_betting(rnd.pk) is False
    assert tasks.close_betting(rnd.pk) is False
    rnd.refresh_from_db()
    assert (rnd.status, rnd.closed_at) == ("dealing", closed_at)
    assert closings(rnd) == ["dealer"]


def test_the_task_for_a_finished_round_changes_nothing(dealer_api, table):
    rnd = open_round(dealer_api, table, joker="KS")
    dealer_api.post(f"/api/rounds/{rnd.pk}/close-betting/")
    dealer_api.post(f"/api/rounds/{rnd.pk}/cards/", {"card": "KD"}, format="json")
    events = RoundEvent.objects.filter(round_id=rnd.pk).count()
    assert tasks.close_betting(rnd.pk) is False
    assert Round.objects.get(pk=rnd.pk).status == "finished"
    assert RoundEvent.objects.filter(round_id=rnd.pk).count() == events


def test_a_task_fired_long_before_the_deadline_does_not_close(dealer_api, table):
    rnd = open_round(dealer_api, table)  # 15 s window
    assert tasks.close_betting(rnd.pk) is False
    assert Round.objects.get(pk=rnd.pk).status == "betting"
    assert closings(rnd) == []


def test_a_task_for_a_missing_round_is_a_no_op(db):
    assert tasks.close_betting(987654) is False


def test_the_sweep_closes_only_expired_rounds(dealer_api, make_table):
    expired, running, early = (open_round(dealer_api, make_table()) for _ in range(3))
    expire(expired)
    dealer_api.post(f"/api/rounds/{early.pk}/close-betting/")
    expire(early)
    assert close_expired_betting() == 1
    assert tasks.sweep_expired_betting() == 0
    statuses = dict(Round.objects.values_list("pk", "status"))
    assert statuses == {expired.pk: "dealing", running.pk: "betting", early.pk: "dealing"}
    assert closings(expired) == ["sweep"]
    assert closings(running) == []
    assert closings(early) == ["dealer"]


@pytest.mark.django_db(transaction=True)
def test_a_task_a_moment_early_waits_for_the_deadline(dealer_api, make_table):
    """The task a round's opening sends (applied at once here, tests/settings.py, where it finds the
    deadline far off; held by the worker until its eta in production: tests/tables/test_celery_worker.py)
    waits out a moment's earliness, then closes: never before the deadline."""
    rnd = open_round(dealer_api, make_table(betting_seconds=600))
    assert Round.objects.get(pk=rnd.pk).status == "betting"
    Round.objects.filter(pk=rnd.pk).update(closes_at=timezone.now() + timedelta(seconds=0.3))
    assert tasks.close_betting.apply(args=[rnd.pk]).get() is True
    rnd.refresh_from_db()
    assert rnd.status == "dealing" and timezone.now() >= rnd.closes_at
    assert rnd.closed_at == rnd.closes_at
    assert closings(rnd) == ["timer"]
    assert tasks.close_betting.apply(args=[rnd.pk]).get() is False  # idempotent: closed already
