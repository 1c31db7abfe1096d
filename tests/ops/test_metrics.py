"""/metrics: the counters move when the real thing happens (a bet placed and one refused through
the API, a round closed at its deadline, dealt and settled, a watcher connected), the endpoint
answers only with the metrics token or from an allowed address, and with PROMETHEUS_MULTIPROC_DIR
it sums two real server processes and a real Celery worker."""
import os
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.conf import settings as dj_settings
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from tables.models import Round
from tables.services import close_expired_betting
from tests import localhttp
from tests.servers import db_url_of_tests, studio_server
from tests.stream.conftest import Watcher


def value(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


class Moves:
    """The change of each sample between `Moves(...)` and `.by()`."""

    def __init__(self, *samples):
        self.samples = samples
        self.before = [value(name, **labels) for name, labels in samples]

    def by(self) -> list[float]:
        return [value(name, **labels) - before for (name, labels), before in zip(self.samples, self.before)]


@pytest.mark.django_db(transaction=True)
def test_bets_rounds_closes_settlements_and_requests_are_counted(dealer_api, alice_api, make_table):
    table = make_table(betting_seconds=600)
    moves = Moves(("studio_rounds_total", {"status": "betting"}), ("studio_stream_messages_total", {"kind": "table"}))
    rnd = dealer_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}, format="json").json()
    assert moves.by() == [1, 1]

    bets = Moves(("studio_bets_accepted_total", {}), ("studio_bets_refused_total", {"code": "insufficient_funds"}),
                 ("studio_http_requests_total", {"route": "round-bets", "method": "POST", "status": "201"}),
                 ("studio_http_requests_total", {"route": "round-bets", "method": "POST", "status": "400"}))
    assert alice_api.post(f"/api/rounds/{rnd['id']}/bets/", {"spot": "andar", "amount": "50"}, format="json").status_code == 201
    assert alice_api.post(f"/api/rounds/{rnd['id']}/bets/", {"spot": "andar", "amount": "5000"}, format="json").status_code == 400
    assert bets.by() == [1, 1, 1, 1]

    closes = Moves(("studio_rounds_total", {"status": "dealing"}), ("studio_round_close_lag_seconds_count", {}))
    Round.objects.filter(pk=rnd["id"]).update(closes_at=timezone.now() - timedelta(seconds=2))  # its deadline passed 2 s ago
    assert close_expired_betting() == 1
    assert closes.by() == [1, 1]
    assert value("studio_round_close_lag_seconds_bucket", le="1.0") < value("studio_round_close_lag_seconds_bucket", le="5.0")

    settles = Moves(("studio_rounds_total", {"status": "finished"}), ("studio_rounds_total", {"status": "settled"}),
                    ("studio_round_settle_lag_seconds_count", {}), ("studio_bets_settled_total", {}),
                    ("studio_tasks_total", {"task": "bets.tasks.settle_round", "outcome": "success"}))
    assert dealer_api.post(f"/api/rounds/{rnd['id']}/cards/", {"card": "KD"}, format="json").json()["match"]  # settled in-process
    assert Round.objects.get(pk=rnd["id"]).status == "settled"
    assert settles.by() == [1, 1, 1, 1, 1]


@pytest.mark.django_db(transaction=True)
async def test_stream_connections_are_a_gauge(make_table):
    from asgiref.sync import sync_to_async

    table = await sync_to_async(make_table)()
    before = value("studio_stream_connections")
    watcher = Watcher(table.pk)
    await watcher.connect()
    assert value("studio_stream_connections") == before + 1
    await watcher.comm.disconnect()
    assert value("studio_stream_connections") == before


@pytest.mark.django_db
def test_metrics_need_the_token_or_an_allowed_address(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS = None, []
    assert client.get("/metrics").status_code == 404  # off unless configured

    settings.METRICS_TOKEN = "metrics-secret"
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Token metrics-secret").status_code == 403
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer metrics-secret")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    assert b"# TYPE studio_bets_accepted_total counter" in response.content

    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS = None, ["10.0.0.0/8"]
    assert client.get("/metrics").status_code == 403  # the test client is 127.0.0.1
    settings.METRICS_ALLOWED_IPS = ["10.0.0.0/8", "127.0.0.1"]
    assert client.get("/metrics").status_code == 200


def scrape(url: str) -> dict[tuple, float]:
    response = localhttp.get(url + "/metrics", headers={"Authorization": "Bearer multi"}, timeout=10)
    assert response.status_code == 200, response.text[:300]
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


UNMATCHED = ("studio_http_requests_total", (("method", "GET"), ("route", "unmatched"), ("status", "404")))
HEARTBEAT_RAN = ("studio_tasks_total", (("outcome", "success"), ("task", "studio.heartbeat")))


@pytest.mark.django_db(transaction=True)
def test_multiprocess_mode_sums_two_servers_and_the_celery_worker(broker_tasks, tmp_path):
    folder = tmp_path / "prometheus"
    folder.mkdir()
    env = {"PROMETHEUS_MULTIPROC_DIR": str(folder), "METRICS_TOKEN": "multi"}
    with studio_server(log_dir=tmp_path / "a", name="metrics-a", **env) as a, \
            studio_server(log_dir=tmp_path / "b", name="metrics-b", **env) as b:
        # Counted on a route nothing else asks for: the start-up checks ask /healthz, and one whose
        # client gave up waiting on a loaded machine may still be answered (and counted) later.
        assert scrape(a).get(UNMATCHED, 0) == 0
        for url in (a, a, a, b, b):
            assert localhttp.get(url + "/no-such-page/", timeout=10).status_code == 404
        assert scrape(b)[UNMATCHED] == 5

        from studio.celery import app

        log_path = tmp_path / "worker.log"
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "studio", "worker", "-l", "info", "--pool", "solo", "-n", f"metrics-{os.getpid()}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat"], cwd=dj_settings.BASE_DIR,
            env={**os.environ, **env, "DATABASE_URL": db_url_of_tests(), "TEST_TASKS": "broker"},
            stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
        try:
            app.send_task("studio.heartbeat")
            deadline = time.monotonic() + 60
            while scrape(a).get(HEARTBEAT_RAN, 0) < 1:
                assert worker.poll() is None and time.monotonic() < deadline, log_path.read_text()[-3000:]
                time.sleep(0.2)
        finally:
            worker.terminate()
            worker.wait(15)
