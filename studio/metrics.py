"""The studio's Prometheus metrics, each declared once here and counted where its event happens:
HTTP answers in RequestMetricsMiddleware below, bets in bets.services and bets.settlement, round
status changes in tables.transitions, closes in tables.services, stream messages in tables.stream,
stream connections in tables.consumers, tasks through Celery's signals (studio.celery), an
operator's calls refused beyond its share and a round's writes beyond its share (studio.bulkhead). An event inside a transaction is
counted when it commits.

With PROMETHEUS_MULTIPROC_DIR set (several server processes, the Celery worker) every process
writes its values to files there and `exposition()` sums them (prometheus-client's multiprocess
mode; the directory must exist and be emptied when the studio starts). Unset: this process's own
registry. Counting is an increment in memory (or an mmap'd file): no query, no I/O on a request.
"""
from __future__ import annotations

import os

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess

_LAG_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60)

HTTP_REQUESTS = Counter("studio_http_requests", "HTTP requests answered, by route (the URL pattern's name), method and status",
                        ["route", "method", "status"])
BETS_ACCEPTED = Counter("studio_bets_accepted", "Bets accepted")
BETS_REFUSED = Counter("studio_bets_refused", "Bets refused, by the refusal's code", ["code"])
BETS_SETTLED = Counter("studio_bets_settled", "Bets settled (won or lost)")
ROUNDS = Counter("studio_rounds", "Rounds that entered each status", ["status"])
CLOSE_LAG = Histogram("studio_round_close_lag_seconds", "From a round's closes_at to the moment its betting closed (closes that were due)",
                      buckets=_LAG_BUCKETS)
SETTLE_LAG = Histogram("studio_round_settle_lag_seconds", "From a round's finish to its settlement", buckets=_LAG_BUCKETS)
STREAM_CONNECTIONS = Gauge("studio_stream_connections", "Open WebSocket stream connections", multiprocess_mode="livesum")
STREAM_MESSAGES = Counter("studio_stream_messages", "Stream messages published to the channel layer, by kind (table, user)", ["kind"])
TASKS = Counter("studio_tasks", "Background tasks run, by task and outcome (success, failure, retry)", ["task", "outcome"])
OPERATOR_BUSY = Counter("studio_operator_busy", "Seamless wallet calls refused at once (503 operator_busy): the operator's share of the "
                        "process's request threads, or all operators' share, was full", ["operator"])
ROUND_BUSY = Counter("studio_round_busy", "Writes to a round (or a table, a match) beyond its share of the process's request threads "
                     "refused with 503 busy instead of waiting for a lock (studio.bulkhead), by what they wrote to", ["kind"])


def exposition() -> tuple[bytes, str]:
    """The text /metrics answers, and its content type."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return generate_latest(registry), CONTENT_TYPE_LATEST


class RequestMetricsMiddleware:
    """Counts every HTTP answer by the route's name (never the raw path: ids would make a series each)."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.children: dict[tuple[str, str, int], object] = {}  # labels() once per combination

    def __call__(self, request):
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = (match.view_name or match.route) if match is not None else "unmatched"
        key = (route, request.method if request.method in _METHODS else "other", response.status_code)
        child = self.children.get(key)
        if child is None:
            child = self.children[key] = HTTP_REQUESTS.labels(*key)
        child.inc()
        return response


_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
