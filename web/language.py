"""The pages' language; the API's is always English (its messages are for programs, with stable codes).

`?lang=`: a link can open a page in a language (a launch from an
operator's site, a shared rules page). A language the studio offers is used for this request and
remembered in Django's language cookie, as the switcher (Django's set_language view) remembers it;
anything else is ignored and the usual choice (cookie, then Accept-Language) stands.

What a page says depends on the language, so a page varies on what decides it (`Vary: Cookie,
Accept-Language`; `?lang=` is in its URL), and the pages are not stored (`Cache-Control: no-store`,
each view's never_cache). The scripts' words are addressed by their language instead
(web/catalogue.py: `/jsi18n/<lang>/<digest>/`)."""
from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers

OFFERED = {code for code, _name in settings.LANGUAGES}
API = "/api/"
# Answers whose language is not the reader's: the API's (English) and the scripts' catalogues (the
# language in their URL).
NOT_THE_READERS = (API, "/jsi18n/")


class PageLocaleMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware for the pages, which also vary on the cookie that holds the reader's
    choice (Django's varies only on Accept-Language). An API request stays in LANGUAGE_CODE, so DRF's
    own messages are not translated, and its answer does not vary by language; nor does a
    catalogue's, whose language its URL names."""

    def process_request(self, request):
        if request.path_info.startswith(NOT_THE_READERS):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = settings.LANGUAGE_CODE
            return None
        return super().process_request(request)

    def process_response(self, request, response):
        if request.path_info.startswith(NOT_THE_READERS):
            return response
        patch_vary_headers(response, ("Cookie",))
        return super().process_response(request, response)


def language_from_query(get_response):
    def middleware(request):
        wanted = request.GET.get("lang", "")
        if wanted not in OFFERED or request.path_info.startswith(NOT_THE_READERS):
            return get_response(request)
        translation.activate(wanted)
        request.LANGUAGE_CODE = wanted
        response = get_response(request)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME, wanted, max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH, samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        )
        response.headers.setdefault("Content-Language", wanted)
        return response

    return middleware
