"""The page's language from `?lang=`: a link can open a page in a language (a launch from an
operator's site, a shared rules page). A language the studio offers is used for this request and
remembered in Django's language cookie, as the switcher (Django's set_language view) remembers it;
anything else is ignored and the usual choice (cookie, then Accept-Language) stands."""
from django.conf import settings
from django.utils import translation

OFFERED = {code for code, _name in settings.LANGUAGES}


def language_from_query(get_response):
    def middleware(request):
        wanted = request.GET.get("lang", "")
        if wanted not in OFFERED:
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
