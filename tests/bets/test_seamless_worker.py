"""The seamless wallet's outbox on a REAL Celery worker (and beat) with the reference operator wallet
as a real process: credits retried with backoff through a stretch of 5xx answers arrive once, and
beat's sweep sends a credit whose retry was lost."""
import uuid
from decimal import Decimal

import pytest

from bets.models import WalletTransaction
from tables.services import card_deal, round_close_betting, round_open
from tests.bets.flow import EXAMPLE_2_CARDS
from tests.bets.seamless_world import launched, seamless_operator
from tests.conftest import make_user
from tests.servers import celery_process, wait_until

pytestmark = pytest.mark.django_db(transaction=True)
D = Decimal
T = WalletTransaction
SHORT = {"SEAMLESS_TIMEOUT": "1", "SEAMLESS_RETRY_FIRST": "0.2", "SEAMLESS_RETRY_MAX": "0.8", "SEAMLESS_SWEEP_SECONDS": "0.5"}


@pytest.fixture(scope="module")
def celery_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    from studio.celery import app

    app.control.purge()
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    with celery_process(["worker", "-l", "info", "--pool", "threads", "-c", "4", "-n", f"seamless-{uuid.uuid4().hex[:8]}@%h",
                         "--without-gossip", "--without-mingle", "--without-heartbeat"], log_path, " ready.", **SHORT):
        yield log_path


def settled_round_with_a_winner(wallet, make_table):
    """Ann bets 100 on Andar and wins 190; the operator answers 5xx from the close on."""
    wallet.faults()
    seamless_operator(wallet)
    table = make_table(currency="INR", betting_seconds=600)
    dealer = make_user("dealer", "dealer")
    pid = f"ann-{table.pk}"
    wallet.players({pid: "1000"})
    api, _ = launched(pid, table)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "100"}, format="json").status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    wallet.faults(error_share=1)
    for card in EXAMPLE_2_CARDS:
        card_deal(round_id=rnd.pk, card=card, actor=dealer)
    return pid


def test_credits_retried_through_5xx_on_the_worker_arrive_once(broker_tasks, wallet, celery_worker, make_table):
    # the settlement and every attempt on the worker
    pid = settled_round_with_a_winner(wallet, make_table)
    wait_until(lambda: T.objects.filter(kind="credit", attempts__gte=5).exists(), "five 5xx attempts", timeout=30, logs=[celery_worker])
    credit = T.objects.get(kind="credit")
    assert credit.status == "pending" and credit.last_error == "HTTP 503"
    wallet.faults()
    wait_until(lambda: T.objects.filter(kind="credit", status="ok").exists(), "the credit's acknowledgement", timeout=30, logs=[celery_worker])
    assert len(wallet.applied(credit.transaction_id)) == 1
    assert wallet.balance(pid) == D("1090")


def test_beat_sweeps_a_credit_whose_retry_was_lost(wallet, celery_worker, make_table, tmp_path):
    # Tasks applied at once (tests/settings.py): the first attempt fails here, and its retry, not due
    # yet, does nothing and is never sent again (a lost task): only beat's sweep sends the credit.
    pid = settled_round_with_a_winner(wallet, make_table)
    credit = T.objects.get(kind="credit")
    assert credit.status == "pending" and credit.attempts == 1
    wallet.faults()
    log_path = tmp_path / "beat.log"
    with celery_process(["beat", "-l", "info", "-s", str(tmp_path / "schedule"), "--pidfile", str(tmp_path / "beat.pid")],
                        log_path, "beat: Starting", **SHORT):
        wait_until(lambda: T.objects.filter(pk=credit.pk, status="ok").exists(), "the sweep's send", timeout=30, logs=[celery_worker])
    assert len(wallet.applied(credit.transaction_id)) == 1
    assert wallet.balance(pid) == D("1090")
