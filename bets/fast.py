"""POST /api/rounds/{id}/bets/ for API clients, without DRF's request machinery in the common case.

A bet is the studio's most frequent request. Measured in-process (the view alone, PostgreSQL),
DRF's part of it (the Request wrapper, content negotiation, parsing, the input serializer, the
permission classes, rendering through a Response) costs 0.28 ms of the 1.15 ms of CPU a bet takes:
a quarter, for work this path does in a few lines. See docs/PERFORMANCE.md.

This path takes the common case only, on PostgreSQL: a player authenticated by `Authorization: Token
<key>`, a JSON body whose spot and amount are plain printable strings, and an Idempotency-Key of at
most 80 characters if any. The token's user and roles (studio.auth's columns) are read in the same
statement as the bet's context (bets.placing.seen_context_by_token): a bet is then two statements,
that read and the guarded write. It calls the same service, answers with the same body
(bets.api.placed_body), status and headers, and refuses a broken rule with the same error body
(studio.errors.exception_handler), rendered by DRF's own JSONRenderer.

Everything else goes to the DRF view unchanged, so every refusal DRF makes stays DRF's, word for
word: GET, session users (the pages, whose CSRF check is DRF's), other content types, malformed
JSON or odd values (an amount that is not a string of digits with at most two decimals), a bad, expired,
revoked or inactive token (401), a caller who is not a player (403), a round that
does not exist, a first bet in a new wallet, and everything on SQLite. A test
sends the same requests both ways and compares the answers (tests/bets/test_bet_fast_path.py).
"""
from __future__ import annotations

import functools
import json

from django.db import connection
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer

from studio.errors import exception_handler
from studio.money import AMOUNT_TEXT
from studio.roles import PLAYER, has_role

from . import services
from .api import RoundBetsView, placed_body
from .placing import seen_context_by_token

_drf_view = RoundBetsView.as_view()
_render = JSONRenderer().render
# What DRF's finalize_response adds: Allow, and Vary: Accept only when the view has several renderers
# (with DEBUG on, the browsable API's).
_HEADERS = {"Allow": "GET, POST, HEAD, OPTIONS"} | ({"Vary": "Accept"} if len(RoundBetsView.renderer_classes) > 1 else {})
_LIMITS = {"spot": 16, "amount": 24}  # BetInputSerializer's max_length
MAX_BODY = 1024  # a bet is about 40 bytes
_PASSED_ON = ("Retry-After", "WWW-Authenticate")


def _plain(value, limit: int) -> bool:
    """A value BetInputSerializer's fields take as it is (no trimming, nothing to refuse)."""
    return type(value) is str and 0 < len(value) <= limit and value.isascii() and value.isprintable() and value == value.strip()


def _plain_amount(value) -> bool:
    """An amount string that BetInputSerializer's AmountField takes as it is (parse_amount's format)."""
    return _plain(value, _LIMITS["amount"]) and AMOUNT_TEXT.fullmatch(value) is not None


def _fast_input(request, round_id: int):
    """(user, context, spot, amount, key) when the request is the common case, else None."""
    if request.method != "POST" or request.content_type != "application/json":
        return None
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit() or int(length) > MAX_BODY:
        return None
    if request.content_params.get("charset", "utf-8").lower() not in ("utf-8", "utf8"):
        return None
    parts = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(parts) != 2 or parts[0].lower() != "token" or not parts[1].isascii():
        return None
    key = request.headers.get("Idempotency-Key") or None
    if key is not None and len(key) > 80:
        return None
    try:
        data = json.loads(request.body)
    except (ValueError, RecursionError):
        return None
    if type(data) is not dict or not _plain(data.get("spot"), _LIMITS["spot"]) or not _plain_amount(data.get("amount")):
        return None
    found = seen_context_by_token(key=parts[1], round_id=round_id)  # the token's user and the bet's context, one statement
    if found is None:
        return None
    user, context = found
    if not user.is_active or not has_role(user, PLAYER):
        return None
    return user, context, data["spot"], data["amount"], key


def _answer(body: dict, status: int, headers=None) -> HttpResponse:
    response = HttpResponse(_render(body), status=status, content_type="application/json", headers=_HEADERS)
    for name in _PASSED_ON:  # a refusal's own headers, as DRF would send them
        if headers and name in headers:
            response[name] = headers[name]
    return response


@functools.wraps(_drf_view)  # keeps .cls, .initkwargs, csrf_exempt: the schema and CSRF see RoundBetsView
def round_bets(request, pk: int):
    try:
        fast = _fast_input(request, pk) if connection.vendor == "postgresql" else None
    except Exception as exc:  # the database was busy (no connection, lock or statement in time): DRF's answer
        refused = exception_handler(exc, {"request": request})
        if refused is None:
            raise
        return _answer(refused.data, refused.status_code, refused.headers)
    if fast is None:
        return _drf_view(request, pk=pk)
    user, context, spot, amount, key = fast
    request.user = user  # as DRF sets it on the underlying request
    try:
        bet, created = services.bet_place(round_id=pk, player=user, spot=spot, amount=amount, idempotency_key=key, seen=context)
    except Exception as exc:  # a broken rule (ApplicationError) above all: answered as DRF's handler would
        refused = exception_handler(exc, {"request": request})
        if refused is None:
            raise
        return _answer(refused.data, refused.status_code, refused.headers)
    return _answer(placed_body(bet, bet.balance), 201 if created else 200)
