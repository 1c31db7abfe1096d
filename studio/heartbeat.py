"""When the Celery worker and beat were last seen, kept in Redis for /readyz (studio.health).

Beat sends `studio.heartbeat` every HEARTBEAT_SECONDS (studio.celery) and, once it is sent,
records "beat"; the worker records "worker" when it runs it. Each record is the time it was made.
"""
from __future__ import annotations

import functools
import time

import redis
from django.conf import settings

WORKER, BEAT = "worker", "beat"


@functools.cache
def client() -> redis.Redis:
    """One client per process, every command bounded by REDIS_TIMEOUT."""
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=settings.REDIS_TIMEOUT,
                                socket_connect_timeout=settings.REDIS_TIMEOUT)


def key(who: str) -> str:
    return f"{settings.REDIS_PREFIX}:heartbeat:{who}"


def record(who: str) -> None:
    client().set(key(who), repr(time.time()), ex=max(int(settings.READY_MAX_AGE * 10), 300))


def last_seen(who: str) -> float | None:
    """Seconds since `who` was last seen, or None if never (or long ago)."""
    value = client().get(key(who))
    return None if value is None else max(0.0, time.time() - float(value))
