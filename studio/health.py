"""What operators and load balancers ask beyond /healthz (web.pages: the database answers):
/readyz (every part the studio needs, by name) and /metrics (Prometheus, for the metrics token or
allowed addresses)."""
from __future__ import annotations

import hmac
import ipaddress
import logging

from django.conf import settings
from django.db import connection
from django.http import HttpResponse, JsonResponse

from . import heartbeat, metrics
from .errors import error_response

log = logging.getLogger(__name__)


def _database() -> dict:
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    except Exception as exc:  # down, or busy past its bounds: not ready either way
        return {"ok": False, "error": str(exc) or type(exc).__name__}
    return {"ok": True}


def _redis() -> dict:
    try:
        heartbeat.client().ping()
    except Exception as exc:
        return {"ok": False, "error": str(exc) or type(exc).__name__}
    return {"ok": True}


def _seen(who: str, redis_ok: bool) -> dict:
    if not redis_ok:
        return {"ok": False, "error": "unknown: Redis is down"}
    try:
        ago = heartbeat.last_seen(who)
    except Exception as exc:
        return {"ok": False, "error": str(exc) or type(exc).__name__}
    if ago is None:
        return {"ok": False, "error": "never seen"}
    ok = ago <= settings.READY_MAX_AGE
    return {"ok": ok, "seen_seconds_ago": round(ago, 1)} | ({} if ok else {"error": f"not seen for {ago:.0f} s"})


def readiness() -> dict[str, dict]:
    """Each part by name, {"ok": bool, ...}: the database, Redis, the Celery worker and beat."""
    parts = {"database": _database(), "redis": _redis()}
    redis_ok = parts["redis"]["ok"]
    parts["worker"] = _seen(heartbeat.WORKER, redis_ok)
    parts["beat"] = _seen(heartbeat.BEAT, redis_ok)
    if not parts["beat"]["ok"] and not parts["worker"]["ok"] and redis_ok:
        parts["worker"]["error"] += " (the worker runs the heartbeat beat sends: with beat down it is not seen either)"
    return parts


def readyz(request):
    parts = readiness()
    ready = all(part["ok"] for part in parts.values())
    return JsonResponse({"ok": ready, "parts": parts}, status=200 if ready else 503, headers={"Cache-Control": "no-store"})


def _allowed(request) -> bool:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(header[7:].strip().encode(), token.encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(allowed, strict=False) for allowed in settings.METRICS_ALLOWED_IPS)


def metrics_view(request):
    """404 when metrics are not configured (no token, no addresses), 403 for anyone else."""
    if not settings.METRICS_TOKEN and not settings.METRICS_ALLOWED_IPS:
        return error_response("not_found", "Metrics are off: set METRICS_TOKEN or METRICS_ALLOWED_IPS.", 404)
    if not _allowed(request):
        return error_response("forbidden", "Metrics need the metrics token or an allowed address.", 403)
    body, content_type = metrics.exposition()
    return HttpResponse(body, content_type=content_type, headers={"Cache-Control": "no-store"})
