"""studio.parsers.CommonCaseNegotiation answers the common Accept headers at once and must choose
exactly as DRF's own negotiation does, for every Accept header and ?format=, with the renderers of
the settings and with JSON alone."""
import pytest
from django.http import Http404
from rest_framework import exceptions
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from studio.parsers import CommonCaseNegotiation

ACCEPTS = [None, "*/*", "application/json", "text/html", "application/json; indent=4", "application/xml",
           "text/html, */*;q=0.8", "application/*", "", "*/*;q=0"]


def choice(negotiation, accept, query, renderers):
    headers = {"HTTP_ACCEPT": accept} if accept is not None else {}
    request = Request(APIRequestFactory().get("/api/x/" + query, **headers))
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers)
    except exceptions.NotAcceptable:
        return "406"
    except Http404:  # a ?format= no renderer has
        return "404"
    return type(renderer), media_type


@pytest.mark.parametrize("renderers", [[JSONRenderer], [JSONRenderer, BrowsableAPIRenderer]], ids=["json", "json+browsable"])
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api"])
@pytest.mark.parametrize("accept", ACCEPTS)
def test_the_common_case_chooses_as_drf_does(accept, query, renderers):
    made = [r() for r in renderers]
    assert choice(CommonCaseNegotiation(), accept, query, made) == choice(DefaultContentNegotiation(), accept, query, made)
