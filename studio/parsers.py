"""The API's content handling, and the one way an outside body's JSON is read.

JSONParser: DRF's, with a body nested too deep for Python's decoder refused as a parse error (400)
like any other malformed body, instead of escaping as a RecursionError (a 500). It is the API's
only parser (settings.REST_FRAMEWORK): a body of any other media type is a 415.

json_loads: the JSON of a body the studio reads itself (an operator's signed launch, an operator
wallet's answer, a stream message): what the decoder cannot handle (nesting deeper than Python's
recursion allows, NaN and Infinity, bytes that are not text) is a ValueError like any other
malformed JSON, for the caller to answer as bad input (or an unknown outcome). The size of each is
bounded before it is read (studio.limits.MAX_BODY; bets.operator_wallet.MAX_ANSWER).

require_json: a view that reads its raw body itself answers a body that is not JSON with the
parsers' 415.

query_data: a request's query parameters for a query serializer, as a plain dict: DRF reads a
QueryDict as an HTML form, where an empty optional field (`?status=`) counts as absent; here an
empty value is validated as the value it is, and refused as one that is not a number, a choice, a name.

CommonCaseNegotiation: DRF's content negotiation, with the common case answered at once: no
`?format=` and an Accept header that is absent, `*/*` or the first renderer's own media type get
the first renderer, as DRF's negotiation would choose; anything else goes through DRF's.
"""
from __future__ import annotations

import json

from rest_framework import exceptions, negotiation, parsers
from rest_framework.settings import api_settings


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - the body is nested too deeply.") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def json_loads(data: bytes | str):
    try:
        return json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None


def require_json(request) -> None:
    if request.negotiator.select_parser(request, [JSONParser()]) is None:
        raise exceptions.UnsupportedMediaType(request.content_type)


def query_data(request) -> dict:
    return request.query_params.dict()


class CommonCaseNegotiation(negotiation.DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        if renderers and not format_suffix and api_settings.URL_FORMAT_OVERRIDE not in request.query_params:
            accept = request.META.get("HTTP_ACCEPT", "*/*")
            first = renderers[0]
            if accept in ("*/*", first.media_type):
                return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)
