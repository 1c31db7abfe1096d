"""The studio's client of a seamless operator's wallet (docs/OPERATORS.md): `POST {wallet_url}/{action}`
with the JSON body signed (X-Signature, studio.signing), the answer's signature checked. Three
outcomes: ok (with the balance), refused (the operator's code and message), unknown (a timeout, a
connection error, a 5xx, a body that does not parse, a wrong signature). Never called inside a
database transaction: the callers (bets.seamless, bets.outbox) hold no lock while they wait."""
from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from decimal import Decimal

import httpx
from django.conf import settings
from django.db import connection

from studio import signing
from studio.money import parse_amount

log = logging.getLogger(__name__)
ACTIONS = ("balance", "debit", "credit", "rollback")
OK, REFUSED, UNKNOWN = "ok", "refused", "unknown"

_client: httpx.Client | None = None
_client_lock = threading.Lock()


def _http() -> httpx.Client:
    """One pooled client per process (keep-alive connections to every operator)."""
    global _client
    with _client_lock:
        if _client is None:
            _client = httpx.Client(limits=httpx.Limits(max_connections=200, max_keepalive_connections=50))
        return _client


@dataclass(frozen=True)
class Answer:
    outcome: str  # ok, refused, unknown
    balance: Decimal | None = None
    code: str = ""
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome == OK


def encode(body: dict) -> bytes:
    """The body's bytes as sent (and signed): compact JSON, keys in order."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


def call(*, operator, action: str, body: dict) -> Answer:
    assert action in ACTIONS, action
    assert not connection.in_atomic_block, "no network I/O inside a transaction"
    raw = encode(body)
    url = f"{operator.wallet_url}/{action}"
    try:
        response = _http().post(url, content=raw, timeout=settings.SEAMLESS_TIMEOUT,
                                headers={"Content-Type": "application/json", "X-Operator": operator.code,
                                         "X-Signature": signing.sign(operator.secret, raw)})
    except httpx.HTTPError as exc:
        return Answer(UNKNOWN, message=f"{type(exc).__name__}: {exc}"[:200])
    if response.status_code != 200:
        return Answer(UNKNOWN, message=f"HTTP {response.status_code}")
    if not signing.verify(operator.secret, response.content, response.headers.get("X-Signature")):
        log.warning("operator %s: %s answered with a wrong signature", operator.code, action)
        return Answer(UNKNOWN, message="wrong answer signature")
    try:
        answer = json.loads(response.content)
        status = answer["status"]
        if status == "ok":
            return Answer(OK, balance=parse_amount(str(answer["balance"])) if answer.get("balance") is not None else None)
        if status == "error":
            return Answer(REFUSED, code=str(answer.get("code") or "error")[:64], message=str(answer.get("message") or "")[:200])
    except (ValueError, KeyError, TypeError):
        pass
    return Answer(UNKNOWN, message="unreadable answer")
