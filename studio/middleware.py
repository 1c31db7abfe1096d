"""Refusals of every request before any view runs.

refuse_large_bodies: a body announced longer than studio.limits.MAX_BODY is a JSON 413 `too_large`,
before anything reads it. Behind the studio's server (studio.http) such a body never arrives; this
is the same answer where Django runs without it (tests, another WSGI server).

refuse_nul_bytes: a NUL byte is never valid in a URL: PostgreSQL cannot store or compare text holding
one, so a query parameter with it would reach the database as an error (a 500) wherever a view
filters on it (the admin's filters and searches, any page). Refused here for every request: a 400,
JSON with the parameter named for the API, before any view runs. The API's own query serializers
refuse it too."""
from __future__ import annotations

from django.http import HttpResponseBadRequest, JsonResponse

from .limits import MAX_BODY, TOO_LARGE

MESSAGE = "NUL bytes are not allowed in a URL."


def refuse_large_bodies(get_response):
    def middleware(request):
        length = request.META.get("CONTENT_LENGTH", "")
        if length.isascii() and length.isdigit() and int(length) > MAX_BODY:
            return JsonResponse(TOO_LARGE, status=413)
        return get_response(request)

    return middleware


def refuse_nul_bytes(get_response):
    def middleware(request):
        if "%00" in request.META.get("QUERY_STRING", "") or "\x00" in request.path:  # the cheap test first
            bad = sorted({name for name, values in request.GET.lists() if "\x00" in name or any("\x00" in v for v in values)})
            if bad or "\x00" in request.path:
                if request.path.startswith("/api/"):
                    fields = {name.replace("\x00", "\\x00"): [MESSAGE] for name in bad} or {"path": [MESSAGE]}
                    return JsonResponse({"code": "invalid", "message": MESSAGE, "fields": fields}, status=400)
                return HttpResponseBadRequest(MESSAGE)
        return get_response(request)

    return middleware
