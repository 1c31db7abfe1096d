"""The pages' words for their scripts: Django's JavaScriptCatalog (window.django: gettext, the
plural rule, the formats) of one language, at a URL that names the language and a digest of the
catalogue's own bytes, `/jsi18n/<lang>/<digest>/`, served with `Cache-Control: immutable` for a
year, as the hashed static files are.

A URL is one language's catalogue and never another's: a browser that has kept the English one
asks for the Hindi one by its own URL when the page is Hindi, and a release that changes the words
(or the formats) changes the digest, hence the URL. Each catalogue is rendered once per process,
by the stock view under the language (its content changes only with a new release, hence a new
process), and kept with its digest; base.html names it through the `catalogue` template tag.

A URL whose digest is not this process's (a page of another release, during a rolling start) is
sent on to this one's (302, not kept by a cache): its bytes are never served under a digest they do
not have."""
from __future__ import annotations

import hashlib
from functools import cache

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import translation
from django.views.i18n import JavaScriptCatalog

# Only the project's own catalogue (LOCALE_PATHS): not the words of every installed app.
render_catalogue = JavaScriptCatalog.as_view(packages=["web"])
FOR_EVER = "public, max-age=31536000, immutable"
# What the rendered catalogues depend on besides the .mo files and the code (both fixed in a process).
INPUTS = {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "FORMAT_MODULE_PATH", "USE_THOUSAND_SEPARATOR"}


def offered() -> set[str]:
    return {code for code, _name in settings.LANGUAGES}


@cache
def catalogue(language: str) -> tuple[bytes, str, str]:
    """(content, content type, digest) of `language`'s catalogue, rendered once."""
    request = HttpRequest()
    request.method = "GET"
    with translation.override(language):
        response = render_catalogue(request)
    return response.content, response["Content-Type"], hashlib.sha256(response.content).hexdigest()[:16]


@receiver(setting_changed)
def _forget(setting, **kwargs):
    if setting in INPUTS:
        catalogue.cache_clear()


def catalogue_url(language: str) -> str:
    """The URL of `language`'s catalogue (LANGUAGE_CODE's for a language not offered)."""
    language = language if language in offered() else settings.LANGUAGE_CODE
    return reverse("javascript-catalog", kwargs={"language": language, "digest": catalogue(language)[2]})


def javascript_catalog(request, language: str, digest: str):
    if language not in offered():
        raise Http404("No such language.")
    content, content_type, current = catalogue(language)
    if digest != current:
        return redirect(catalogue_url(language))
    response = HttpResponse(content, content_type=content_type)
    response["Cache-Control"] = FOR_EVER
    response["Content-Language"] = language
    return response
