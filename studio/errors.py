"""One application error for broken rules, and one DRF handler that turns every failure into
{"code", "message", "fields"} with the right status (400 bad input, 401, 403 wrong role, 404, 409 wrong moment,
503 `busy` with Retry-After when the database did not answer in time).

Busy: a request that waited its bound for a pooled connection (psycopg_pool's PoolTimeout, after
DB_POOL_TIMEOUT), a row lock (LockNotAvailable, after DB_LOCK_TIMEOUT_MS) or its statement
(QueryCanceled, after DB_STATEMENT_TIMEOUT_MS). Django raises each as its OperationalError with
psycopg's error as the cause. The transaction it was in rolls back, so nothing of the request is
applied; the DRF handler and BusyMiddleware (every other view) answer the same JSON 503."""
from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied, ValidationError as DjangoValidationError
from django.db import OperationalError, connection
from django.db.transaction import TransactionManagementError
from django.http import Http404, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from psycopg import errors as pg_errors
from psycopg_pool import PoolTimeout
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

log = logging.getLogger(__name__)

BUSY_RETRY_AFTER = 1  # seconds: the lock or the connection is usually free again by then
_BUSY_CAUSES = (PoolTimeout, pg_errors.LockNotAvailable, pg_errors.QueryCanceled)


class ApplicationError(Exception):
    """A broken business rule. Services raise one of the subclasses below, each of which names the
    answer's status; the one handler (exception_handler) only reads it."""

    status = 409
    default_code = "conflict"

    def __init__(self, message: str, *, code: str | None = None, fields: dict | None = None, extra: dict | None = None):
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.fields = fields or {}
        self.extra = extra or {}


class InvalidInput(ApplicationError):
    """Bad input: 400 with field errors."""

    status = 400
    default_code = "invalid"


class NotAllowed(ApplicationError):
    """The caller's role may not do this: 403."""

    status = 403
    default_code = "forbidden"


class NotFound(ApplicationError):
    """Nothing the caller may see by that id: 404."""

    status = 404
    default_code = "not_found"


class WrongMoment(ApplicationError):
    """The object is not in a state that allows it (a round not betting, a match already started): 409."""


class TooMany(ApplicationError):
    """A limit on how many a caller may have or do at once: 429."""

    status = 429
    default_code = "too_many"


class Busy(ApplicationError):
    """Could not be done now for a reason that passes (no free match code): 503, worth a retry."""

    status = 503
    default_code = "busy"


class OperatorBusy(Busy):
    """As many of this process's request threads as an operator's share allows already wait on its
    wallet (studio.bulkhead): 503 `operator_busy` with Retry-After, at once, nothing asked of it."""

    default_code = "operator_busy"


class Unauthenticated(ApplicationError):
    """Who is asking could not be told (a bad signature, an unknown caller, a stale or replayed request): 401."""

    status = 401
    default_code = "not_authenticated"


class OperatorRefused(WrongMoment):
    """An operator's wallet refused a call (insufficient funds, a blocked player): 409 `operator_refused`
    with the operator's code and message."""

    default_code = "operator_refused"

    def __init__(self, operator_code: str, operator_message: str):
        super().__init__(f"The operator refused: {operator_message or operator_code}", code="operator_refused",
                         extra={"operator_code": operator_code, "operator_message": operator_message})


class OutcomeUnknown(Busy):
    """An operator's wallet did not answer in time or answered something unreadable: 503 with Retry-After.
    What was asked is being undone (docs/OPERATORS.md)."""

    default_code = "operator_unavailable"


def require_transaction(what: str) -> None:
    """The caller is inside a transaction, or Django's TransactionManagementError: `what` must be
    written in its writer's transaction. An explicit check, where an `assert` would vanish under
    `python -O` (tests/test_invariants.py keeps the application's packages free of them)."""
    if not connection.in_atomic_block:
        raise TransactionManagementError(f"{what} only inside its writer's transaction")


def invalid(field: str, message: str, *, code: str = "invalid", extra: dict | None = None) -> InvalidInput:
    """Bad input on one field: a 400 with field errors (`extra`: the figures the message names, for a
    page to say it in its own language)."""
    return InvalidInput(message, code=code, fields={field: [message]}, extra=extra)


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """DRF's error detail as one level of {field: [messages]}, so every body has the same shape: a
    field of a nested serializer is named by its path (`bets.0.amount`, `bets` for the list itself);
    the items of a list of values (a ListField: `side_bets`) answer under the list's name."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            if prefix and (key == "non_field_errors" or (isinstance(key, int) and not isinstance(value, dict))):
                name = prefix
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            for field, messages in _flatten(value, name).items():
                out.setdefault(field, []).extend(messages)
        return out
    items = detail if isinstance(detail, list) else [detail]
    if any(isinstance(x, dict | list) for x in items):  # a list serializer's errors: one entry per item
        out = {}
        for index, item in enumerate(items):
            if item:
                for field, messages in _flatten(item, f"{prefix}.{index}" if prefix else str(index)).items():
                    out.setdefault(field, []).extend(messages)
        return out
    return {prefix or "non_field_errors": [str(x) for x in items]}


def error_body(exc: ApplicationError) -> dict:
    """The answer's body for a broken rule (its status is exc.status)."""
    return {"code": exc.code, "message": exc.message, "fields": exc.fields, **exc.extra}


def is_busy(exc: BaseException) -> bool:
    """The database did not answer in time (see the module's docstring): worth a retry, not a 500."""
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__
    return isinstance(cause, _BUSY_CAUSES)


BUSY_BODY = {"code": "busy", "message": "The studio is busy: try again in a moment.", "fields": {}}


def error_response(code: str, message: str, status: int) -> JsonResponse:
    """An answer outside DRF (a plain Django view) in the API's error shape: code, message, no fields."""
    return JsonResponse({"code": code, "message": message, "fields": {}}, status=status)


def busy_response() -> JsonResponse:
    return JsonResponse(BUSY_BODY, status=503, headers={"Retry-After": str(BUSY_RETRY_AFTER)})


class BusyMiddleware:
    """A plain Django view (pages, /healthz) that hit a busy database answers the JSON 503 too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        if is_busy(exc):
            log.warning("busy: %s %s: %s", request.method, request.path, exc)
            return busy_response()
        return None


def exception_handler(exc, context):
    if is_busy(exc):
        log.warning("busy: %s", exc)
        return Response(BUSY_BODY, status=503, headers={"Retry-After": str(BUSY_RETRY_AFTER)})
    if isinstance(exc, ApplicationError):
        headers = {"Retry-After": str(BUSY_RETRY_AFTER)} if exc.status == 503 else None
        return Response(error_body(exc), status=exc.status, headers=headers)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(detail=exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first = next(iter(fields.items()), ("", [""]))
        message = f"{first[0]}: {first[1][0]}" if first[0] != "non_field_errors" else first[1][0]
        response.data = {"code": "invalid", "message": message, "fields": fields}
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(exc, "default_code", "error")
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            response.status_code = status.HTTP_401_UNAUTHORIZED
        response.data = {"code": code, "message": str(detail), "fields": {}}
    return response


@csrf_exempt  # as every API view: a POST to a wrong path is a JSON 404, not the CSRF page
def api_not_found(request):
    """Any /api/ path that names no endpoint (an id that is not one, a typo): the JSON 404 every API
    answer has. A GET without its trailing slash is sent to the path with it, as CommonMiddleware would."""
    if request.method in ("GET", "HEAD") and not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != "api-not-found":
            query = request.META.get("QUERY_STRING", "")
            return HttpResponsePermanentRedirect(request.path + "/" + (f"?{query}" if query else ""))
    return error_response("not_found", "No such API endpoint or object.", 404)
