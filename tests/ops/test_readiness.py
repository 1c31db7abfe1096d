"""/readyz names each part the studio needs and answers 503 when one is down: a REAL Celery worker
and beat on Redis are seen through the heartbeat beat sends (studio.celery); without them, or once
beat stops, readiness says which. The same four parts wherever the studio runs."""
import time
import uuid

import pytest

from tests.servers import celery_process


def readyz(client):
    response = client.get("/readyz")
    assert response.status_code in (200, 503), response.content[:300]
    assert response.status_code == (200 if response.json()["ok"] else 503)
    return response.json()["parts"]


@pytest.mark.django_db
def test_without_a_worker_and_beat_readiness_is_503_naming_them(client, settings):
    settings.REDIS_PREFIX = f"ready-{uuid.uuid4().hex[:8]}"  # heartbeats nobody sends
    response = client.get("/readyz")
    assert response.status_code == 503
    parts = response.json()["parts"]
    assert parts["database"]["ok"] and parts["redis"]["ok"]
    assert not parts["worker"]["ok"] and not parts["beat"]["ok"]
    assert "never seen" in parts["beat"]["error"]


@pytest.mark.django_db
def test_redis_down_is_named(client, settings):
    from studio import heartbeat

    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    heartbeat.client.cache_clear()
    try:
        parts = client.get("/readyz").json()["parts"]
    finally:
        heartbeat.client.cache_clear()
    assert parts["database"]["ok"] and not parts["redis"]["ok"]
    assert parts["worker"] == parts["beat"] == {"ok": False, "error": "unknown: Redis is down"}


def _poll(client, until, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        parts = readyz(client)
        if until(parts):
            return parts
        time.sleep(0.1)
    pytest.fail(f"readiness never became what was expected: {parts}")


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_and_beat_are_seen_and_a_stopped_beat_is_named(client, settings, tmp_path):
    prefix = f"ready-{uuid.uuid4().hex[:8]}"
    settings.REDIS_PREFIX, settings.READY_MAX_AGE = prefix, 2
    assert not readyz(client)["worker"]["ok"]
    env = {"CHANNELS_PREFIX": prefix, "HEARTBEAT_SECONDS": "0.5"}
    with celery_process(["worker", "-l", "info", "--pool", "solo", "-n", f"ready-{prefix}@%h", "--without-gossip", "--without-mingle",
                         "--without-heartbeat"], tmp_path / "worker.log", " ready.", **env):
        with celery_process(["beat", "-l", "info", "-s", str(tmp_path / "schedule"), "--pidfile", str(tmp_path / "beat.pid")],
                            tmp_path / "beat.log", "beat: Starting", **env):
            parts = _poll(client, lambda parts: all(part["ok"] for part in parts.values()))
            assert set(parts) == {"database", "redis", "worker", "beat"}
        parts = _poll(client, lambda parts: not parts["beat"]["ok"])
        assert "not seen for" in parts["beat"]["error"]
