"""The API's content handling.

JSONParser: DRF's, with a body nested too deep for Python's decoder refused as a parse error (400)
like any other malformed body, instead of escaping as a RecursionError (a 500).

CommonCaseNegotiation: DRF's content negotiation, with the common case answered at once: no
`?format=` and an Accept header that is absent, `*/*` or the first renderer's own media type get
the first renderer, as DRF's negotiation would choose; anything else goes through DRF's.
"""
from __future__ import annotations

from rest_framework import exceptions, negotiation, parsers
from rest_framework.settings import api_settings


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - the body is nested too deeply.") from None


class CommonCaseNegotiation(negotiation.DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        if renderers and not format_suffix and api_settings.URL_FORMAT_OVERRIDE not in request.query_params:
            accept = request.META.get("HTTP_ACCEPT", "*/*")
            first = renderers[0]
            if accept in ("*/*", first.media_type):
                return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)
