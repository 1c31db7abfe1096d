"""The OpenAPI schema's shared parts: the error body every refusal has, and the refusals each
operation can answer (a drf-spectacular postprocessing hook, so no view repeats them)."""
from __future__ import annotations

from .limits import MAX_BODY

ERROR_SCHEMA = {
    "type": "object",
    "description": ("Every refusal: a machine-readable code, a sentence (English), and the bad fields with their messages. "
                    "A bet's refusal also carries the figures its sentence names, as decimal strings, for a page to say it in its "
                    "own language: over_max_bet and under_min_bet `max_bet` / `min_bet` and `would_stake`; insufficient_funds "
                    "`balance`; chip_unit `chip_unit`; both_sides `side`; spot_not_offered `spot`."),
    "properties": {
        "code": {"type": "string", "example": "invalid"},
        "message": {"type": "string"},
        "fields": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
                   "description": "Field name (a nested one by its path, e.g. bets.0.amount) -> messages."},
    },
    "required": ["code", "message", "fields"],
    "additionalProperties": True,  # some refusals add context, e.g. the round's status
}

_REF = {"$ref": "#/components/schemas/Error"}
WHY = {
    "400": "Bad input: the fields say what is expected.",
    "401": "Not authenticated, or a bad token.",
    "403": "Your role may not do this.",
    "404": "No such object (or not one you may see).",
    "409": "Not now: the state does not allow it (the code says why).",
    "413": f"`too_large`: the body is longer than {MAX_BODY} bytes; refused before it is read.",
    "415": "`unsupported_media_type`: the body is not JSON (application/json).",
    "429": "Too many failed logins of this username from this address: wait Retry-After seconds.",
    "503": "`busy`: no database connection, lock or statement in time, or the server holds too many request bodies at once; "
           "nothing was applied. Retry after Retry-After seconds.",
}
THROTTLED = {"/api/auth/token/"}  # django-axes counts failed logins here (accounts)
SIGNED = {"/api/operator/sessions/"}  # an operator's signed request (docs/OPERATORS.md): 401 bad signature, 403 inactive operator
ASKS_OPERATOR = {"/api/me/"}  # a seamless player's balance comes from the operator: 409 operator_refused
NOT_YET = {"/api/log/checkpoint/"}  # the public log before its first checkpoint: 409 no_checkpoint
NAMES_IN_BODY = {"/api/log/cosignatures/"}  # a checkpoint the studio never signed: 404
UNSAFE = {"post", "put", "patch", "delete"}


def _refusals(path: str, method: str, operation: dict) -> list[str]:
    """The 4xx answers an operation can give, from what the operation takes."""
    params = operation.get("parameters", [])
    security = operation.get("security") or []  # none: no authentication runs (auth=[], the token endpoint)
    codes = []
    if "requestBody" in operation or any(p["in"] == "query" for p in params) or method in UNSAFE:
        codes.append("400")
    if security or path in SIGNED:
        codes.append("401")  # a bad token is refused even where anyone may read
        if {} not in security or path in SIGNED:  # authentication required: a role may be missing
            codes.append("403")
    if any(p["in"] in ("path", "query") for p in params) or path in NAMES_IN_BODY:
        codes.append("404")
    if method in UNSAFE or path in ASKS_OPERATOR or path in NOT_YET:
        codes.append("409")
    if "requestBody" in operation or method in UNSAFE:
        codes.append("413")
    if "requestBody" in operation:
        codes.append("415")
    if path in THROTTLED:
        codes.append("429")
    codes.append("503")  # every operation reads the database
    return codes


def add_error_responses(result, generator, request, public):
    """POSTPROCESSING_HOOKS: the Error component, and each operation's refusals that it does not
    document itself."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in {"get", "head", "options", *UNSAFE}:
                continue
            responses = operation.setdefault("responses", {})
            for code in _refusals(path, method, operation):
                responses.setdefault(code, {"description": WHY[code], "content": {"application/json": {"schema": _REF}}})
    return result
