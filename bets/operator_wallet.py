"""The studio's client of a seamless operator's wallet (docs/OPERATORS.md): `POST {wallet_url}/{action}`
with the JSON body signed (X-Signature, studio.signing), the answer's signature checked. Three
outcomes: ok (with the balance), refused (the operator's code and message), unknown (a timeout, a
connection error, a 5xx, a body that does not parse or is longer than MAX_ANSWER, a wrong
signature). Never called inside a database transaction: the callers (bets.seamless, bets.outbox)
hold no lock while they wait."""
from __future__ import annotations

import http.client
import json
import logging
import threading
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection
from django.db.transaction import TransactionManagementError

from studio import signing
from studio.money import parse_amount
from studio.parsers import json_loads

log = logging.getLogger(__name__)
ACTIONS = ("balance", "debit", "credit", "rollback")
OK, REFUSED, UNKNOWN = "ok", "refused", "unknown"
MAX_ANSWER = 16 * 1024  # bytes: an answer is a status, a balance, a code and a message of some hundred bytes

_local = threading.local()  # each thread's keep-alive connections, by (scheme, host, port)
_RETRYABLE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


class CallFailed(Exception):
    """No readable HTTP answer (a timeout, a refused or broken connection, an answer longer than
    MAX_ANSWER): the outcome is unknown."""


def _post(url: str, raw: bytes, headers: dict, timeout: float) -> tuple[int, str | None, bytes]:
    """POST on this thread's keep-alive connection to the host (the standard library's client: a
    bet waits on this call, and it costs a third of httpx's CPU). A connection the server closed
    while idle fails on its first use: that request is sent once more on a new connection (every
    call is idempotent by its transaction id)."""
    parts = urlsplit(url)
    key = (parts.scheme, parts.hostname, parts.port)
    connections = _local.__dict__.setdefault("connections", {})
    for attempt in (1, 2):
        conn = connections.get(key)
        reused = conn is not None
        if conn is None:
            cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            conn = connections[key] = cls(parts.hostname, parts.port, timeout=timeout)
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        try:
            conn.request("POST", parts.path or "/", body=raw, headers=headers)
            response = conn.getresponse()
            content = response.read(MAX_ANSWER + 1)  # never more: the rest of a longer answer stays unread
            if len(content) > MAX_ANSWER:
                raise http.client.HTTPException(f"an answer longer than {MAX_ANSWER} bytes")
            return response.status, response.getheader("X-Signature"), content
        except _RETRYABLE as exc:
            conn.close()
            connections.pop(key, None)
            if not reused or attempt == 2:
                raise CallFailed(f"{type(exc).__name__}: {exc}") from None
        except (OSError, http.client.HTTPException) as exc:  # a timeout included: the outcome is unknown
            conn.close()
            connections.pop(key, None)
            raise CallFailed(f"{type(exc).__name__}: {exc}") from None
    raise AssertionError("unreachable")


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
    if action not in ACTIONS:
        raise ValueError(f"not an operator wallet action: {action!r} (one of {', '.join(ACTIONS)})")
    if connection.in_atomic_block:
        raise TransactionManagementError("no network I/O inside a transaction: call the operator's wallet outside it")
    raw = encode(body)
    url = f"{operator.wallet_url}/{action}"
    try:
        status, signature, content = _post(url, raw, {"Content-Type": "application/json", "X-Operator": operator.code,
                                                      "X-Signature": signing.sign(operator.secret, raw)}, settings.SEAMLESS_TIMEOUT)
    except CallFailed as exc:
        return Answer(UNKNOWN, message=str(exc)[:200])
    if status != 200:
        return Answer(UNKNOWN, message=f"HTTP {status}")
    if not signing.verify(operator.secret, content, signature):
        log.warning("operator %s: %s answered with a wrong signature", operator.code, action)
        return Answer(UNKNOWN, message="wrong answer signature")
    try:
        answer = json_loads(content)
        status = answer["status"]
        if status == "ok":
            balance = answer.get("balance")
            return Answer(OK, balance=None if balance is None else parse_amount(str(_scalar(balance))))
        if status == "error":
            code, message = _scalar(answer.get("code") or "error"), _scalar(answer.get("message") or "")
            return Answer(REFUSED, code=str(code)[:64], message=str(message)[:200])
    except (ValueError, KeyError, TypeError):
        pass
    return Answer(UNKNOWN, message="unreadable answer")


def _scalar(value):
    """A field of an answer is a string or a number: anything else (a list, an object) is unreadable."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return value
    raise TypeError(f"a {type(value).__name__} where a string or a number is expected")
