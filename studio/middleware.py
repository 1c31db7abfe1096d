"""A NUL byte is never valid in a URL: PostgreSQL cannot store or compare text holding one, so a query
parameter with it would reach the database as an error (a 500) wherever a view filters on it (the
admin's filters and searches, any page). Refused here for every request: a 400, JSON with the
parameter named for the API, before any view runs. The API's own query serializers refuse it too."""
from __future__ import annotations

from django.http import HttpResponseBadRequest, JsonResponse

MESSAGE = "NUL bytes are not allowed in a URL."


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
