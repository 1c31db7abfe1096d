"""Players never see Django's debug pages: with DEBUG on, Django answers a page that does not exist
with its technical 404 (the URL patterns, the settings' name) instead of calling handler404. This
middleware puts the studio's own 404 (web.pages.not_found) in its place on every path but the API's,
which keeps its JSON 404. With DEBUG off, handler404 is called and this changes nothing."""
from django.conf import settings

from .pages import not_found


def studio_not_found(get_response):
    def middleware(request):
        response = get_response(request)
        if (settings.DEBUG and response.status_code == 404 and not getattr(response, "studio_page", False)
                and not request.path.startswith("/api/") and response.get("Content-Type", "").startswith("text/html")):
            return not_found(request)
        return response
    return middleware
