from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from studio import converters, health  # noqa: F401  (converters registers <id:...>)

from studio.errors import api_not_found
from studio.routes import api_route

from . import catalogue, pages
from .schema import SchemaView

handler404 = "web.pages.not_found"  # the studio's own page (web.middleware: DEBUG too)

urlpatterns = [
    # The busiest routes first: Django tries the patterns in order, and a bet is the most frequent request.
    path("api/", include("bets.urls")),
    path("api/", include("tables.urls")),
    path("api/", include("incidents.urls")),
    path("api/", include("matches.urls")),
    path("api/", include("integrity.urls")),
    path("api/", include("reports.urls")),
    path("api/", include("accounts.urls")),
    path("healthz", api_route(pages.healthz), name="healthz"),
    path("readyz", api_route(health.readyz), name="readyz"),
    path("metrics", api_route(health.metrics_view), name="metrics"),
    path("", pages.home, name="home"),
    path("favicon.ico", pages.favicon, name="favicon"),
    path("login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("console/", pages.console, name="console"),
    path("supervisor/", pages.supervisor, name="supervisor"),
    path("supervisor/operators/", pages.operators, name="operators"),
    path("play/", pages.lobby, name="lobby"),
    path("play/tables/<id:pk>/", pages.play, name="play"),
    path("play/launch/<str:code>/", pages.operator_launch, name="operator-launch-page"),
    path("play/tables/<id:pk>/rules/", pages.rules, name="play-rules"),
    path("rounds/<id:pk>/", pages.round_page, name="round"),
    path("matches/", pages.matches, name="matches"),
    path("matches/join/<str:code>/", pages.match_join_link, name="match-join-link"),
    path("matches/<id:pk>/", pages.match, name="match"),
    # The pages' words (window.django.gettext), for static/js/i18n.js: one language's catalogue at
    # a URL naming the language and the catalogue's digest, cached for ever (web/catalogue.py).
    path("jsi18n/<str:language>/<str:digest>/", catalogue.javascript_catalog, name="javascript-catalog"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the switcher's POST
    path("admin/", admin.site.urls),
    path("api/schema/", api_route(SchemaView), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    re_path(r"^api/", api_route(api_not_found), name="api-not-found"),  # last: whatever no pattern above took (any character, a newline too)
]
