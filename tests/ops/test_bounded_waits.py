"""Waits on Redis are bounded too: a Redis that accepts connections and never answers (a hung
server, a full network path) fails a stream publish and a task sent from a request within
REDIS_TIMEOUT, instead of holding the thread; a request whose task cannot reach the broker still
answers (its change is committed; beat's sweeps catch the task), never a 500."""
import contextlib
import socket
import threading
import time

import pytest
from django.conf import settings as dj_settings
from accounts.tokens import token_issue

from tables import stream
from tables.models import Round
from tests import localhttp
from tests.servers import studio_server


@contextlib.contextmanager
def unanswering_redis():
    """redis://... of a port that takes connections (the kernel's backlog) and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"


def test_a_publish_to_an_unanswering_redis_gives_up(settings):
    layer = dj_settings.CHANNEL_LAYERS["default"]
    with unanswering_redis() as url:
        host = {**layer["CONFIG"]["hosts"][0], "address": url}  # the studio's own options, another address
        settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": [host]}}}
        message = {"type": "stream.event", "group": "table.1", "seq": 1, "text": "{}"}
        worker = threading.Thread(target=stream.publish, args=([message],), daemon=True)  # as in a Celery task
        started = time.monotonic()
        worker.start()
        worker.join(30)
        assert not worker.is_alive(), "stream.publish still waits for Redis"
    assert time.monotonic() - started < 30


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("broker", ["unanswering", "refusing"])
def test_a_request_whose_task_cannot_reach_the_broker_still_answers(broker, dealer, make_table, tmp_path):
    table = make_table(betting_seconds=600)
    auth = {"Authorization": "Token " + token_issue(user=dealer).key}
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(unanswering_redis()) if broker == "unanswering" else "redis://127.0.0.1:1/0"
        base = stack.enter_context(studio_server(log_dir=tmp_path, name="broker", REDIS_URL=url, TEST_TASKS="broker"))
        response = localhttp.post(f"{base}/api/tables/{table.pk}/rounds/", json={"joker": "KS"}, headers=auth, timeout=60)
    assert response.status_code == 201, response.text[:500]
    assert Round.objects.get(pk=response.json()["id"]).status == "betting"
