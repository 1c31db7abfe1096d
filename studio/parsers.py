"""The API's JSON parser: DRF's, with a body nested too deep for Python's decoder refused as a parse
error (400) like any other malformed body, instead of escaping as a RecursionError (a 500)."""
from __future__ import annotations

from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - the body is nested too deeply.") from None
